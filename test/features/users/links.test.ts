/**
 * Welcome and reset links, deletion and inactivity, through the routes: what the recorded answers
 * (admin.test.ts) cannot show, since their tokens are random.
 */
import t from 'tap';
import { ADMIN, JSON_ADMIN, buildTestApp, send } from '../../helpers/app.js';
import { ORIGIN, STRONG, changeUser, login, sessionCookie } from '../../helpers/sessions.js';

const JSON_ONLY = { 'content-type': 'application/json' };
const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;

t.test('a created user sets a password through the welcome link, once', async (t) => {
  const app = await buildTestApp(t);
  const created = await send(app, 'POST', '/api/admin/user-admin', { email: 'Ann@Example.com', name: 'Ann', rootRole: 'Editor' });
  t.equal(created.statusCode, 201);
  t.equal(created.headers.location, String(created.json().id));
  const { inviteLink, rootRole, emailSent } = created.json();
  t.match(inviteLink, /^http:\/\/localhost:4242\/new-user\?token=[\w-]{43}$/);
  t.same([rootRole, emailSent], ['Editor', false], 'the role as sent; no e-mail');
  const token = tokenOf(inviteLink);

  const who = await app.inject({ url: `/auth/reset/validate?token=${token}` });
  t.equal(who.statusCode, 200);
  t.same(who.json(), {
    token, createdBy: 'admin', email: 'ann@example.com', name: 'Ann', id: created.json().id,
    role: { id: 2, description: who.json().role.description, type: 'root', name: 'Editor' },
  });
  const list = (await app.inject({ url: '/api/admin/user-admin', headers: ADMIN })).json().users;
  t.equal(list[0].inviteLink, inviteLink, 'the admin\'s list shows the live link');

  const weak = await app.inject({ method: 'POST', url: '/auth/reset/password', headers: JSON_ONLY, payload: { token, password: 'weak' } });
  t.equal(weak.json().name, 'OwaspValidationError');
  const set = await app.inject({ method: 'POST', url: '/auth/reset/password', headers: JSON_ONLY, payload: { token, password: STRONG } });
  t.equal(set.statusCode, 200);
  t.ok(await login(app, 'ann@example.com', STRONG), 'the password works');
  const again = await app.inject({ method: 'POST', url: '/auth/reset/password', headers: JSON_ONLY, payload: { token, password: 'Another-Pass-7' } });
  t.same([again.statusCode, again.json().name], [401, 'InvalidTokenError'], 'the link is spent');
  t.equal((await app.inject({ url: '/api/admin/user-admin', headers: ADMIN })).json().users[0].inviteLink, '');
});

t.test('a reset link: one a minute per person, not an earlier password, every session ends', async (t) => {
  const app = await buildTestApp(t);
  const id = (await send(app, 'POST', '/api/admin/user-admin', { email: 'bo@example.com', rootRole: 3, password: STRONG })).json().id;
  const cookie = await login(app, 'bo@example.com', STRONG);
  const first = await send(app, 'POST', '/api/admin/user-admin/reset-password', { id: 'BO@example.com' });
  t.match(first.json().resetPasswordUrl, /^http:\/\/localhost:4242\/reset-password\?token=/);
  const second = await send(app, 'POST', '/api/admin/user-admin/reset-password', { id: 'bo@example.com' });
  t.same([second.statusCode, second.json().name], [429, 'RateLimitError']);
  const token = tokenOf(first.json().resetPasswordUrl);
  const reused = await app.inject({ method: 'POST', url: '/auth/reset/password', headers: JSON_ONLY, payload: { token, password: STRONG } });
  t.same([reused.statusCode, reused.json().name], [400, 'PasswordPreviouslyUsedError']);
  const reset = await app.inject({ method: 'POST', url: '/auth/reset/password', headers: JSON_ONLY, payload: { token, password: 'Brand-New-Pass-3' } });
  t.equal(reset.statusCode, 200);
  t.equal((await app.inject({ url: '/api/admin/user', headers: { cookie } })).statusCode, 401, 'the old session ended');
  t.ok(await login(app, 'bo@example.com', 'Brand-New-Pass-3'));

  // An admin's change: any password, the links end, every session ends.
  const cookie2 = await login(app, 'bo@example.com', 'Brand-New-Pass-3');
  const link = tokenOf((await app.inject({ url: '/api/admin/user-admin', headers: ADMIN })).json().users[0].inviteLink || 'http://x/?token=none');
  t.equal(link, 'none', 'a used link is not listed');
  const changed = await send(app, 'POST', `/api/admin/user-admin/${id}/change-password`, { password: 'Brand-New-Pass-3' });
  t.equal(changed.statusCode, 200, 'an admin may set the same password again');
  t.equal((await app.inject({ url: '/api/admin/user', headers: { cookie: cookie2 } })).statusCode, 401);
  t.equal((await send(app, 'POST', '/api/admin/user-admin/999/change-password', { password: STRONG })).statusCode, 404, 'D10: no such user');
});

t.test('opening a link signs the browser out; a deleted user\'s link is a 404', async (t) => {
  const app = await buildTestApp(t);
  const id = (await send(app, 'POST', '/api/admin/user-admin', { username: 'cy', rootRole: 3, password: STRONG })).json().id;
  const link = (await app.inject({ url: '/api/admin/user-admin', headers: ADMIN })).json().users[0].inviteLink as string;
  const cookie = await login(app, 'cy', STRONG);
  const opened = await app.inject({ url: `/auth/reset/validate?token=${tokenOf(link)}`, headers: { cookie } });
  t.equal(opened.statusCode, 200);
  t.notOk('email' in opened.json(), 'no e-mail, no key');
  t.equal((await app.inject({ url: '/api/admin/user', headers: { cookie } })).statusCode, 401);
  t.equal((await app.inject({ method: 'DELETE', url: `/api/admin/user-admin/${id}`, headers: ADMIN })).statusCode, 200);
  const gone = await app.inject({ url: `/auth/reset/validate?token=${tokenOf(link)}` });
  t.same([gone.statusCode, gone.json().message], [404, 'No user found']);
});

t.test('deleting a user ends its sessions and personal access tokens and never gives its id again', async (t) => {
  const app = await buildTestApp(t);
  const id = (await send(app, 'POST', '/api/admin/user-admin', { email: 'dee@example.com', rootRole: 2, password: STRONG })).json().id;
  const cookie = await login(app, 'dee@example.com', STRONG);
  const pat = await app.inject({
    method: 'POST', url: '/api/admin/user/tokens', headers: { cookie, origin: ORIGIN, ...JSON_ONLY },
    payload: { description: 'ci', expiresAt: '2099-01-01T00:00:00Z' },
  });
  const secret = pat.json().secret as string;
  t.equal((await app.inject({ url: '/api/admin/user', headers: { authorization: secret } })).statusCode, 200);
  t.equal((await app.inject({ method: 'DELETE', url: `/api/admin/user-admin/${id}`, headers: ADMIN })).statusCode, 200);
  t.equal((await app.inject({ url: '/api/admin/user', headers: { cookie } })).statusCode, 401, 'the session ended');
  t.equal((await app.inject({ url: '/api/admin/user', headers: { authorization: secret } })).statusCode, 401, 'the token no longer works');
  const failed = await app.inject({ method: 'POST', url: '/auth/simple/login', headers: JSON_ONLY, payload: { username: 'dee@example.com', password: STRONG } });
  t.equal(failed.statusCode, 401);
  const next = await send(app, 'POST', '/api/admin/user-admin', { email: 'dee@example.com', rootRole: 3 });
  t.equal(next.statusCode, 201, 'the e-mail is free again');
  t.equal(next.json().id, id + 1, 'the id is not given again');
  t.same((await app.inject({ url: '/api/admin/user-admin', headers: ADMIN })).json().users.map((u: { id: number }) => u.id), [id + 1]);
});

t.test('inactive users: neither created nor seen in 180 days, one entry per old token', async (t) => {
  const app = await buildTestApp(t);
  const old = new Date(Date.now() - 200 * 86_400_000);
  const ids: number[] = [];
  for (const email of ['old@example.com', 'seen@example.com', 'new@example.com']) {
    ids.push((await send(app, 'POST', '/api/admin/user-admin', { email, rootRole: 3 })).json().id);
  }
  await changeUser(app, ids[0]!, (u) => ({ ...u, createdAt: old }));
  await changeUser(app, ids[1]!, (u) => ({ ...u, createdAt: old, seenAt: new Date() }));
  const inactive = (await app.inject({ url: '/api/admin/user-admin/inactive', headers: ADMIN })).json();
  t.same(inactive, {
    version: 1,
    inactiveUsers: [{ id: ids[0], name: null, email: 'old@example.com', username: null, seenAt: null, createdAt: old.toISOString(), patSeenAt: null }],
  });
  const deleted = await app.inject({ method: 'POST', url: '/api/admin/user-admin/inactive/delete', headers: JSON_ADMIN, payload: { ids: [ids[0]] } });
  t.equal(deleted.statusCode, 200);
  t.same((await app.inject({ url: '/api/admin/user-admin/inactive', headers: ADMIN })).json().inactiveUsers, []);
});

t.test('rate limits: user-admin POSTs per address and minute; reset links asked for', async (t) => {
  const app = await buildTestApp(t, { USER_ADMIN_RATE_LIMIT: '3', PASSWORD_RESET_RATE_LIMIT: '1' });
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) statuses.push((await send(app, 'POST', '/api/admin/user-admin/validate-password', { password: STRONG })).statusCode);
  t.same(statuses, [200, 200, 200, 429], 'every POST under /api/admin/user-admin counts');
  const created = await send(app, 'POST', '/api/admin/user-admin', { email: 'e@example.com', rootRole: 3 });
  t.same([created.statusCode, created.json().name], [429, 'TooManyRequestsError']);
  const asked = async () => (await app.inject({ method: 'POST', url: '/auth/reset/password-email', headers: JSON_ONLY, payload: { email: 'x@example.com' } })).statusCode;
  const malformed = await app.inject({ method: 'POST', url: '/auth/reset/password-email', headers: JSON_ONLY, payload: '{"email":' });
  t.equal(malformed.statusCode, 400, 'a body that does not parse spends nothing');
  t.same([await asked(), await asked()], [404, 429]);
  t.ok(sessionCookie, 'helpers loaded');
});
