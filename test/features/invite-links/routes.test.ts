import t from 'tap';
import { ADMIN, JSON_ADMIN, buildTestApp, committed } from '../../helpers/app.js';
import { oneMonthAfter } from '../../../src/features/invite-links/service.js';

const TOKENS = '/api/admin/invite-link/tokens';
const KEYS = ['secret', 'name', 'url', 'expiresAt', 'enabled', 'createdAt', 'createdBy', 'role', 'users'];
const FAR = '2030-01-01T00:00:00.000Z';

const SCHEMA_MESSAGE =
  'Request validation failed: your request body or params contain invalid data. Refer to the `details` list for more information.';

t.test('invite links: admin routes', async (t) => {
  const app = await buildTestApp(t);
  const create = (payload: unknown, headers: Record<string, string> = JSON_ADMIN) =>
    app.inject({ method: 'POST', url: TOKENS, headers, payload: payload as object });
  const count = async () => (await committed(app, 'public_signup_tokens')).size;

  let secret = '';
  await t.test('create → 201, Location, key order, 32-hex secret, url, Viewer role, users []', async (t) => {
    const before = Date.now();
    const res = await create({ name: 't1', expiresAt: FAR });
    const after = Date.now();
    t.equal(res.statusCode, 201);
    const body = res.json();
    t.same(Object.keys(body), KEYS);
    t.match(body.secret, /^[0-9a-f]{32}$/);
    t.equal(res.headers.location, `tokens/${body.secret}`);
    t.equal(body.name, 't1');
    t.equal(body.url, `http://localhost:4242/new-user?invite=${body.secret}`);
    t.equal(body.enabled, true);
    t.equal(body.createdBy, 'admin', 'the admin token\'s name');
    t.same(body.role, { id: 3, name: 'Viewer', type: 'root' });
    t.same(Object.keys(body.role), ['id', 'name', 'type']);
    t.same(body.users, []);
    const createdAt = Date.parse(body.createdAt);
    t.ok(createdAt >= before && createdAt <= after);
    t.equal(body.createdAt, new Date(createdAt).toISOString(), 'ISO with milliseconds and Z');
    t.equal(body.expiresAt, oneMonthAfter(new Date(createdAt)).toISOString(), '2030 is capped at now + 1 calendar month');
    secret = body.secret;
  });

  await t.test('the secret is random per token; names may repeat', async (t) => {
    const again = await create({ name: 't1', expiresAt: FAR });
    t.equal(again.statusCode, 201);
    t.not(again.json().secret, secret);
  });

  await t.test('an expiry before the cap is kept; a zone-less one is read as UTC', async (t) => {
    const soon = new Date(Date.now() + 3 * 86_400_000);
    const zoneless = soon.toISOString().replace('Z', '').replace('T', ' ');
    const res = await create({ name: 'soon', expiresAt: zoneless });
    t.equal(res.statusCode, 201);
    t.equal(res.json().expiresAt, soon.toISOString());
    const offset = await create({ name: 'offset', expiresAt: '2020-06-01T12:00:00+02:00' });
    t.equal(offset.json().expiresAt, '2020-06-01T10:00:00.000Z');
  });

  await t.test('a past expiresAt is stored, and the token reports enabled: false (D3)', async (t) => {
    const res = await create({ name: 'old', expiresAt: '2020-01-01T00:00:00Z' });
    t.equal(res.statusCode, 201);
    t.equal(res.json().expiresAt, '2020-01-01T00:00:00.000Z');
    t.equal(res.json().enabled, false);
    const got = await app.inject({ method: 'GET', url: `${TOKENS}/${res.json().secret}`, headers: ADMIN });
    t.equal(got.json().enabled, false);
  });

  await t.test('schema errors → 400 ValidationError with exact details; nothing stored', async (t) => {
    const stored = await count();
    const cases: Array<[unknown, Array<Record<string, string>>]> = [
      [{ expiresAt: FAR }, [{ path: '/body/name', message: 'The `/body/name` property is required. It was not present on the data you sent.' }]],
      [{ name: 't2' }, [{ path: '/body/expiresAt', message: 'The `/body/expiresAt` property is required. It was not present on the data you sent.' }]],
      [{ name: 't3', expiresAt: 'not-a-date' }, [{ message: 'The `/body/expiresAt` property must match format "date-time". You sent "not-a-date".', path: '/body/expiresAt' }]],
      [{ name: 't3', expiresAt: '2030-02-30T00:00:00Z' }, [{ message: 'The `/body/expiresAt` property must match format "date-time". You sent "2030-02-30T00:00:00Z".', path: '/body/expiresAt' }]],
      [{ name: 't4', expiresAt: FAR, extra: 1 }, [{ path: '/body/extra', message: 'The `/body` object of the request body does not allow additional properties. Your request included the `/body/extra` property.' }]],
      [[1], [{ message: 'The `/body` property must be object. You sent [1].', path: '/body' }]],
    ];
    for (const [payload, details] of cases) {
      const res = await create(payload);
      t.equal(res.statusCode, 400, JSON.stringify(payload));
      const body = res.json();
      t.same(Object.keys(body), ['id', 'name', 'message', 'details']);
      t.equal(body.name, 'ValidationError');
      t.equal(body.message, SCHEMA_MESSAGE);
      t.strictSame(body.details, details);
      // Unleash orders "required"/"additional property" details {path, message}, others {message, path}.
      t.same(body.details.map((d: object) => Object.keys(d)), details.map((d) => Object.keys(d)), 'detail key order');
    }
    t.equal(await count(), stored, 'no token stored by a refused request');
  });

  await t.test('name is coerced like Unleash (number → string)', async (t) => {
    const res = await create({ name: 42, expiresAt: FAR });
    t.equal(res.statusCode, 201);
    t.equal(res.json().name, '42');
  });

  await t.test('wrong content type → 415, malformed JSON → 400', async (t) => {
    const res = await app.inject({ method: 'POST', url: TOKENS, headers: { ...ADMIN, 'content-type': 'text/plain' }, payload: 'x' });
    t.equal(res.statusCode, 415);
    t.equal(res.json().name, 'ContentTypeError');
    const bad = await app.inject({ method: 'POST', url: TOKENS, headers: JSON_ADMIN, payload: '{"name":' });
    t.equal(bad.statusCode, 400);
  });

  await t.test('401 without a header or with an unknown token; 403 with a client token; nothing stored', async (t) => {
    const stored = await count();
    const none = await create({ name: 't5', expiresAt: FAR }, { 'content-type': 'application/json' });
    t.equal(none.statusCode, 401);
    t.equal(none.json().name, 'AuthenticationRequired');
    t.equal(none.json().path, '/auth/simple/login');
    const wrong = await create({ name: 't5', expiresAt: FAR }, { authorization: '*:*.nope', 'content-type': 'application/json' });
    t.equal(wrong.statusCode, 401);
    t.equal(wrong.json().name, 'UnauthorizedError');
    const client = await app.inject({
      method: 'POST', url: '/api/admin/api-tokens', headers: JSON_ADMIN,
      payload: { tokenName: 'peer-client', type: 'client', environment: 'development' },
    });
    t.equal(client.statusCode, 201);
    const clientHeaders = { authorization: client.json().secret, 'content-type': 'application/json' };
    const forbidden = await create({ name: 't6', expiresAt: FAR }, clientHeaders);
    t.equal(forbidden.statusCode, 403);
    t.equal(forbidden.json().name, 'NoAccessError');
    t.equal(forbidden.json().message, 'invalid token: expected a different token type for this endpoint');
    t.match(forbidden.json().id, /^[0-9a-f-]{36}$/);
    for (const url of [TOKENS, `${TOKENS}/${secret}`, '/api/admin/user-admin']) {
      t.equal((await app.inject({ method: 'GET', url })).statusCode, 401, url);
      t.equal((await app.inject({ method: 'GET', url, headers: { authorization: client.json().secret } })).statusCode, 403, url);
    }
    const put = await app.inject({ method: 'PUT', url: `${TOKENS}/${secret}`, headers: clientHeaders, payload: { enabled: false } });
    t.equal(put.statusCode, 403);
    t.equal(await count(), stored);
  });

  await t.test('list → {tokens} in creation order, same shape as creation', async (t) => {
    const res = await app.inject({ method: 'GET', url: TOKENS, headers: ADMIN });
    t.equal(res.statusCode, 200);
    const { tokens } = res.json();
    t.same(Object.keys(res.json()), ['tokens']);
    t.same(tokens.map((tk: { name: string }) => tk.name), ['t1', 't1', 'soon', 'offset', 'old', '42']);
    t.equal(tokens[0].secret, secret);
    for (const token of tokens) t.same(Object.keys(token), KEYS);
    const times = tokens.map((tk: { createdAt: string }) => Date.parse(tk.createdAt));
    t.same(times, [...times].sort((a, b) => a - b));
  });

  await t.test('get one; unknown → 404', async (t) => {
    const res = await app.inject({ method: 'GET', url: `${TOKENS}/${secret}`, headers: ADMIN });
    t.equal(res.statusCode, 200);
    t.same(Object.keys(res.json()), KEYS);
    t.equal(res.json().secret, secret);
    const missing = await app.inject({ method: 'GET', url: `${TOKENS}/nope`, headers: ADMIN });
    t.equal(missing.statusCode, 404);
    t.equal(missing.json().name, 'NotFoundError');
    t.equal(missing.json().message, 'Could not find public signup token.');
  });

  await t.test('update: rename, disable, change expiry (not capped); full token back', async (t) => {
    const put = (payload: unknown, token = secret) =>
      app.inject({ method: 'PUT', url: `${TOKENS}/${token}`, headers: JSON_ADMIN, payload: payload as object });
    const renamed = await put({ name: 'renamed' });
    t.equal(renamed.statusCode, 200);
    t.same(Object.keys(renamed.json()), KEYS);
    t.equal(renamed.json().name, 'renamed');
    t.equal(renamed.json().enabled, true);

    const disabled = await put({ enabled: false });
    t.equal(disabled.json().enabled, false);
    t.equal(disabled.json().name, 'renamed');

    const far = await put({ expiresAt: '2031-05-06T07:08:09Z', enabled: true });
    t.equal(far.statusCode, 200);
    t.equal(far.json().expiresAt, '2031-05-06T07:08:09.000Z', 'no cap on update');
    t.equal(far.json().enabled, true);
    const got = await app.inject({ method: 'GET', url: `${TOKENS}/${secret}`, headers: ADMIN });
    t.same(got.json(), far.json(), 'the change is stored');

    const unknown = await put({ enabled: false }, 'nope');
    t.equal(unknown.statusCode, 404);
    t.equal(unknown.json().message, 'Could not find public signup token.');

    const none = await put({});
    t.equal(none.statusCode, 400);
    t.equal(none.json().name, 'ValidationError');
    const emptyBody = await app.inject({ method: 'PUT', url: `${TOKENS}/${secret}`, headers: JSON_ADMIN });
    t.equal(emptyBody.statusCode, 400);
    const extra = await put({ enabled: false, role: 1 });
    t.equal(extra.statusCode, 400);
    t.equal(extra.json().details[0].path, '/body/role');
    const badDate = await put({ expiresAt: 'soon' });
    t.equal(badDate.statusCode, 400);
    t.equal(badDate.json().details[0].path, '/body/expiresAt');
    const badEnabled = await put({ enabled: 'maybe' });
    t.equal(badEnabled.statusCode, 400);
    const after = await app.inject({ method: 'GET', url: `${TOKENS}/${secret}`, headers: ADMIN });
    t.same(after.json(), far.json(), 'refused updates change nothing');
  });

  await t.test('events: created (data = response) and updated ({secret, enabled?, expiresAt?, name?})', async (t) => {
    await app.database.outbox.flushed(); // events are appended after the response
    const events = await app.database.db.collection('events').find({ type: /^public-signup-token/ }).sort({ id: 1 }).toArray();
    const created = events.filter((e) => e.type === 'public-signup-token-created');
    t.equal(created.length, 6);
    const first = created[0]!;
    t.same(Object.keys(first.data), KEYS);
    t.equal(first.data.secret, secret);
    t.equal(first.data.name, 't1');
    t.same(first.data.role, { id: 3, name: 'Viewer', type: 'root' });
    t.same(first.data.users, []);
    t.equal(first.createdBy, 'admin');
    t.equal(first.createdByUserId, -42);
    t.equal(first.preData, null);
    t.equal(first.featureName, null);
    t.equal(first.project, null);
    t.equal(first.environment, null);
    t.notOk('groupId' in first, 'not transactional');
    t.equal(first.createdAt.toISOString(), first.data.createdAt, 'event time = creation time');
    const updated = events.filter((e) => e.type === 'public-signup-token-updated');
    t.same(updated.map((e) => e.data), [
      { secret, name: 'renamed' },
      { secret, enabled: false },
      { secret, enabled: true, expiresAt: '2031-05-06T07:08:09.000Z' },
    ]);
    t.ok(updated.every((e) => e.createdBy === 'admin' && e.createdByUserId === -42 && e.preData === null));
  });
});

t.test('url follows BASE_URL, a base with a path keeps it', async (t) => {
  for (const [base, prefix] of [
    ['https://x.io/unleash', 'https://x.io/unleash/new-user?invite='],
    ['https://x.io/unleash/', 'https://x.io/unleash/new-user?invite='],
    ['https://x.io:443/a/../b', 'https://x.io/b/new-user?invite='],
  ] as const) {
    const app = await buildTestApp(t, { BASE_URL: base });
    const res = await app.inject({ method: 'POST', url: TOKENS, headers: JSON_ADMIN, payload: { name: 'p', expiresAt: FAR } });
    t.equal(res.statusCode, 201);
    t.equal(res.json().url, `${prefix}${res.json().secret}`, base);
  }
});
