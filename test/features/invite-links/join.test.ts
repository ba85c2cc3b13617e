import t from 'tap';
import { ADMIN, JSON_ADMIN, buildTestApp, committed } from '../../helpers/app.js';
import { verifyPassword } from '../../../src/features/users/password.js';

const TOKENS = '/api/admin/invite-link/tokens';
const JSON_ONLY = { 'content-type': 'application/json' };
const STRONG = 'Correct-Horse-9';
const USER_KEYS = ['id', 'name', 'email', 'username', 'imageUrl', 'loginAttempts', 'emailSent', 'rootRole', 'seenAt', 'createdAt', 'accountType'];

type App = Awaited<ReturnType<typeof buildTestApp>>;

async function newToken(app: App, expiresAt = new Date(Date.now() + 7 * 86_400_000).toISOString()): Promise<string> {
  const res = await app.inject({ method: 'POST', url: TOKENS, headers: JSON_ADMIN, payload: { name: 'join', expiresAt } });
  if (res.statusCode !== 201) throw new Error(res.body);
  return res.json().secret;
}

const validate = (app: App, secret: string) => app.inject({ method: 'GET', url: `/invite/${secret}/validate` });
const signup = (app: App, secret: string, payload: unknown) =>
  app.inject({ method: 'POST', url: `/invite/${secret}/signup`, headers: JSON_ONLY, payload: payload as object });

t.test('joining through an invite link', async (t) => {
  const app = await buildTestApp(t, { SIGNUP_RATE_LIMIT: '1000' });
  const secret = await newToken(app);
  const users = {
    findOne: async (filter: { _id: unknown }) => (await committed(app, 'users')).get(filter._id) ?? null,
    countDocuments: async () => (await committed(app, 'users')).size,
  };

  await t.test('validate: 200 with an empty body, no credential needed', async (t) => {
    const res = await validate(app, secret);
    t.equal(res.statusCode, 200);
    t.equal(res.body, '');
  });

  await t.test('validate: unknown, disabled, expired or expiring today → 400 with an empty body', async (t) => {
    const unknown = await validate(app, '0'.repeat(32));
    t.equal(unknown.statusCode, 400);
    t.equal(unknown.body, '');

    const disabled = await newToken(app);
    await app.inject({ method: 'PUT', url: `${TOKENS}/${disabled}`, headers: JSON_ADMIN, payload: { enabled: false } });
    t.equal((await validate(app, disabled)).statusCode, 400);

    const expired = await newToken(app, '2020-01-01T00:00:00Z');
    t.equal((await validate(app, expired)).statusCode, 400);

    // The UTC date of the expiry must be after now: a link expiring later today is already refused.
    const now = new Date();
    const endOfToday = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 23, 59, 59, 999));
    const today = await newToken(app, endOfToday.toISOString());
    t.equal((await validate(app, today)).statusCode, 400);
    const tomorrow = new Date(endOfToday.getTime() + 1);
    const ok = await newToken(app, tomorrow.toISOString());
    t.equal((await validate(app, ok)).statusCode, 200);
  });

  let userId = 0;
  await t.test('signup → 201 user (Viewer, no password hash), stored with a scrypt hash', async (t) => {
    const res = await signup(app, secret, { name: 'Ada Lovelace', email: '  Ada@Example.COM ', password: STRONG, username: 'ada' });
    t.equal(res.statusCode, 201, res.body);
    const body = res.json();
    t.same(Object.keys(body), USER_KEYS);
    t.equal(body.id, 1);
    t.equal(body.name, 'Ada Lovelace');
    t.equal(body.email, 'ada@example.com', 'trimmed and lower-cased');
    t.equal(body.username, 'ada');
    t.match(body.imageUrl, /^https:\/\/gravatar\.com\/avatar\/[0-9a-f]{64}\?s=42&d=retro$/);
    t.equal(body.rootRole, 3);
    t.equal(body.seenAt, null);
    t.equal(body.loginAttempts, 0);
    t.equal(body.emailSent, false);
    t.equal(body.accountType, 'User');
    t.ok(Math.abs(Date.parse(body.createdAt) - Date.now()) < 10_000);
    t.notMatch(res.body, /password|scrypt/i, 'no password or hash in the answer');
    userId = body.id;

    const stored = await users.findOne({ _id: userId });
    t.ok(stored);
    t.not(stored!.passwordHash, STRONG);
    t.notMatch(JSON.stringify(stored), STRONG, 'the plain password is stored nowhere');
    t.match(stored!.passwordHash, /^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    t.ok(await verifyPassword(STRONG, stored!.passwordHash));
    t.notOk(await verifyPassword('Correct-Horse-8', stored!.passwordHash));
  });

  await t.test('the user appears in the token\'s users, in the listing and in user-admin', async (t) => {
    const got = await app.inject({ method: 'GET', url: `${TOKENS}/${secret}`, headers: ADMIN });
    t.same(got.json().users, [{ id: userId, name: 'Ada Lovelace', username: 'ada' }]);
    const list = await app.inject({ method: 'GET', url: TOKENS, headers: ADMIN });
    const listed = list.json().tokens.find((tk: { secret: string }) => tk.secret === secret);
    t.same(listed.users, [{ id: userId, name: 'Ada Lovelace', username: 'ada' }]);
    const others = list.json().tokens.filter((tk: { secret: string }) => tk.secret !== secret);
    t.ok(others.every((tk: { users: unknown[] }) => tk.users.length === 0));
    const admin = await app.inject({ method: 'GET', url: '/api/admin/user-admin', headers: ADMIN });
    t.equal(admin.statusCode, 200);
    t.same(admin.json().users.map((u: { email: string }) => u.email), ['ada@example.com']);
    t.notMatch(admin.body, /scrypt|password/i);
    t.same(admin.json().rootRoles.map((r: { name: string }) => r.name), ['Admin', 'Editor', 'Viewer']);
  });

  await t.test('signup without password and without username; ids are sequential; username null in users[]', async (t) => {
    const res = await signup(app, secret, { name: 'Grace', email: 'grace@example.com' });
    t.equal(res.statusCode, 201, res.body);
    t.equal(res.json().id, userId + 1);
    t.equal(res.json().username, null);
    const stored = await users.findOne({ _id: res.json().id });
    t.notOk(stored && 'passwordHash' in stored);
    const got = await app.inject({ method: 'GET', url: `${TOKENS}/${secret}`, headers: ADMIN });
    t.same(got.json().users, [{ id: userId, name: 'Ada Lovelace', username: 'ada' }, { id: userId + 1, name: 'Grace', username: null }]);
  });

  await t.test('same e-mail (any case) or username again → 400 User already exists, nothing stored', async (t) => {
    const before = await users.countDocuments();
    for (const payload of [
      { name: 'Ada 2', email: 'ada@example.com' },
      { name: 'Ada 3', email: 'ADA@example.com', password: STRONG },
      { name: 'Ada 4', email: 'other@example.com', username: 'ADA' },
    ]) {
      const res = await signup(app, secret, payload);
      t.equal(res.statusCode, 400, JSON.stringify(payload));
      t.equal(res.json().name, 'ValidationError');
      t.equal(res.json().message, 'User already exists');
    }
    t.equal(await users.countDocuments(), before);
  });

  await t.test('weak password → 400 OwaspValidationError naming the problem, nothing stored', async (t) => {
    const before = await users.countDocuments();
    const short = await signup(app, secret, { name: 'W', email: 'weak@example.com', password: 'Ab1!' });
    t.equal(short.statusCode, 400);
    t.equal(short.json().name, 'OwaspValidationError');
    t.match(short.json().message, 'The password must be at least 10 characters long.');
    const simple = await signup(app, secret, { name: 'W', email: 'weak@example.com', password: 'abcdefghijk' });
    t.equal(simple.statusCode, 400);
    t.match(simple.json().message, 'at least one uppercase letter');
    t.match(simple.json().message, 'at least one number');
    t.match(simple.json().message, 'at least one special character');
    const repeated = await signup(app, secret, { name: 'W', email: 'weak@example.com', password: 'Aaaa-1234-xyz' });
    t.equal(repeated.statusCode, 400);
    t.match(repeated.json().message, 'three or more repeated characters');
    t.equal(await users.countDocuments(), before);
    const phrase = await signup(app, secret, { name: 'P', email: 'phrase@example.com', password: 'correct horse battery staple' });
    t.equal(phrase.statusCode, 400, 'a passphrase needs the character classes too (Unleash turns passphrases off)');
  });

  await t.test('invalid e-mail and schema errors → 400', async (t) => {
    const before = await users.countDocuments();
    for (const email of ['not-an-email', 'a@', '@b.c', 'a b@c.d', 'a@b..c']) {
      const res = await signup(app, secret, { name: 'X', email });
      t.equal(res.statusCode, 400, email);
      t.equal(res.json().name, 'ValidationError');
      t.match(res.json().message, 'must be a valid email');
    }
    const missing = await signup(app, secret, { name: 'X' });
    t.equal(missing.statusCode, 400);
    t.equal(missing.json().details[0].path, '/body/email');
    const extra = await signup(app, secret, { name: 'X', email: 'x@example.com', rootRole: 1 });
    t.equal(extra.statusCode, 400);
    t.equal(extra.json().details[0].path, '/body/rootRole');
    const text = await app.inject({ method: 'POST', url: `/invite/${secret}/signup`, headers: { 'content-type': 'text/plain' }, payload: 'x' });
    t.equal(text.statusCode, 415);
    t.equal(await users.countDocuments(), before);
  });

  await t.test('expired, disabled or unknown links refuse signups with 400 and an empty body', async (t) => {
    const before = await users.countDocuments();
    const expired = await newToken(app, '2020-01-01T00:00:00Z');
    const disabled = await newToken(app);
    await app.inject({ method: 'PUT', url: `${TOKENS}/${disabled}`, headers: JSON_ADMIN, payload: { enabled: false } });
    for (const token of [expired, disabled, 'f'.repeat(32)]) {
      const res = await signup(app, token, { name: 'Late', email: 'late@example.com', password: STRONG });
      t.equal(res.statusCode, 400);
      t.equal(res.body, '');
    }
    t.equal(await users.countDocuments(), before);
    await app.inject({ method: 'PUT', url: `${TOKENS}/${disabled}`, headers: JSON_ADMIN, payload: { enabled: true } });
    const again = await signup(app, disabled, { name: 'Late', email: 'late@example.com' });
    t.equal(again.statusCode, 201, 'a re-enabled link works again');
  });

  await t.test('events: user-created then public-signup-token-user-added, by the system user', async (t) => {
    await app.database.outbox.flushed(); // events are appended after the response
    const events = await app.database.db.collection('events')
      .find({ type: { $in: ['user-created', 'public-signup-token-user-added'] } }).sort({ id: 1 }).toArray();
    t.same(events.map((e) => e.type).slice(0, 4), ['user-created', 'public-signup-token-user-added', 'user-created', 'public-signup-token-user-added']);
    const [created, added] = events;
    t.same(created!.data, { id: userId, name: 'Ada Lovelace', email: 'ada@example.com', username: 'ada', rootRole: 3 });
    t.same(added!.data, { secret, userId });
    for (const event of events) {
      t.equal(event.createdBy, 'unleash_system_user');
      t.equal(event.createdByUserId, -1337);
      t.equal(event.preData, null);
      t.notMatch(JSON.stringify(event), /scrypt|Correct-Horse/);
    }
    t.equal(created!.createdAt.getTime(), added!.createdAt.getTime());
    t.equal(added!.id, created!.id + 1);
    const joined = await users.countDocuments();
    t.equal(events.filter((e) => e.type === 'user-created').length, joined, 'one user-created per stored user');
  });

  await t.test('concurrent signups get distinct sequential ids; one e-mail wins once', async (t) => {
    const token = await newToken(app);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) =>
      signup(app, token, { name: `C${i}`, email: i < 6 ? `c${i}@example.com` : 'dup@example.com' })));
    const created = results.filter((r) => r.statusCode === 201).map((r) => r.json().id as number);
    t.equal(created.length, 7);
    t.equal(results.filter((r) => r.statusCode === 400).length, 1);
    t.equal(new Set(created).size, 7);
    const all = [...(await committed(app, 'users')).keys()].map(Number).sort((a, b) => a - b);
    t.same(all, Array.from({ length: all.length }, (_, i) => i + 1), 'ids 1..n without gaps');
  });
});

t.test('signups are rate-limited per address (SIGNUP_RATE_LIMIT per minute), answered 429 in the error shape', async (t) => {
  const app = await buildTestApp(t, { SIGNUP_RATE_LIMIT: '2' });
  const secret = await newToken(app);
  t.equal((await signup(app, secret, { name: 'A', email: 'a@example.com' })).statusCode, 201);
  t.equal((await signup(app, secret, { name: 'B', email: 'not-valid' })).statusCode, 400, 'refused attempts count too');
  const limited = await signup(app, secret, { name: 'C', email: 'c@example.com' });
  t.equal(limited.statusCode, 429);
  const body = limited.json();
  t.same(Object.keys(body).slice(0, 3), ['id', 'name', 'message']);
  t.equal(body.name, 'TooManyRequestsError');
  t.match(body.message, 'at most 2 per minute');
  t.ok(limited.headers['retry-after']);
  t.equal((await committed(app, 'users')).size, 1);
  const other = await app.inject({
    method: 'POST', url: `/invite/${secret}/signup`, headers: JSON_ONLY, remoteAddress: '10.1.2.3',
    payload: { name: 'D', email: 'd@example.com' },
  });
  t.equal(other.statusCode, 201, 'another address is not limited');
  t.equal((await validate(app, secret)).statusCode, 200, 'validation is not limited');
  const admin = await app.inject({ method: 'GET', url: TOKENS, headers: ADMIN });
  t.equal(admin.statusCode, 200);
  t.notOk(admin.headers['x-ratelimit-limit'], 'the limiter is not registered on admin routes');
});
