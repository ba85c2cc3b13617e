import t from 'tap';
import { buildApp } from '../../../src/app.js';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { ADMIN, JSON_ADMIN, buildTestApp, dropDatabase, testConfig, committed } from '../../helpers/app.js';
import { changeUser, login, userWithRole } from '../../helpers/sessions.js';

type App = Awaited<ReturnType<typeof buildTestApp>>;

const ORIGIN = 'http://localhost:4242';
const JSON_ONLY = { 'content-type': 'application/json' };
const ADMIN_PASSWORD = 'First-Admin-Pass-1';
const STRONG = 'Correct-Horse-9';
const FLAGS = '/api/admin/projects/default/features';

const as = (cookie: string, extra: Record<string, string> = {}) => ({ cookie, ...extra });
const mutating = (cookie: string) => ({ cookie, origin: ORIGIN, 'content-type': 'application/json' });

t.test('a sign-in is the user\'s seenAt; the answer carries the one before it (Unleash 8.2, measured: null, then the first sign-in)', async (t) => {
  const app = await buildTestApp(t);
  await userWithRole(app, 'seen', 3);
  const first = await app.inject({ method: 'POST', url: '/auth/simple/login', headers: JSON_ONLY, payload: { username: 'seen', password: STRONG } });
  t.equal(first.json().seenAt, null);
  const listed = async () => ((await app.inject({ method: 'GET', url: '/api/admin/user-admin', headers: ADMIN })).json().users as Array<{ username: string; seenAt: string | null }>)
    .find((u) => u.username === 'seen')!.seenAt;
  const afterFirst = await listed();
  t.ok(afterFirst !== null && Math.abs(Date.parse(afterFirst) - Date.now()) < 10_000, 'the user list shows the sign-in');
  const second = await app.inject({ method: 'POST', url: '/auth/simple/login', headers: JSON_ONLY, payload: { username: 'seen', password: STRONG } });
  t.equal(second.json().seenAt, afterFirst);
  t.ok(Date.parse((await listed())!) >= Date.parse(afterFirst!));
});

t.test('sign-in, session cookie and the current user', async (t) => {
  const app = await buildTestApp(t, { INIT_ADMIN_USER: 'admin', INIT_ADMIN_PASSWORD: ADMIN_PASSWORD });

  await t.test('the first admin exists, and signs in by username or e-mail (any case)', async (t) => {
    const res = await app.inject({ method: 'POST', url: '/auth/simple/login', headers: JSON_ONLY, payload: { username: 'admin', password: ADMIN_PASSWORD } });
    t.equal(res.statusCode, 200, res.body);
    t.equal(res.json().username, 'admin');
    t.equal(res.json().rootRole, 1);
    t.notOk('passwordHash' in res.json());
    const raw = String(res.headers['set-cookie']);
    t.match(raw, /HttpOnly/);
    t.match(raw, /SameSite=Lax/);
    t.notMatch(raw, /Secure/, 'plain http BASE_URL: no Secure flag');
    t.match(raw, /Path=\//);
    t.ok(await login(app, 'ADMIN@localhost', ADMIN_PASSWORD));
  });

  await t.test('wrong credentials → 401 PasswordMismatch in the error shape, for a wrong password and an unknown name alike', async (t) => {
    for (const payload of [{ username: 'admin', password: 'nope-Nope-1' }, { username: 'nobody', password: ADMIN_PASSWORD }]) {
      const res = await app.inject({ method: 'POST', url: '/auth/simple/login', headers: JSON_ONLY, payload });
      t.equal(res.statusCode, 401);
      t.same(Object.keys(res.json()).slice(0, 3), ['id', 'name', 'message']);
      t.equal(res.json().name, 'PasswordMismatch');
      t.notOk(res.headers['set-cookie']);
    }
    const missing = await app.inject({ method: 'POST', url: '/auth/simple/login', headers: JSON_ONLY, payload: { username: 'admin' } });
    t.equal(missing.statusCode, 400);
    t.match(missing.json().details[0].message, /password/);
  });

  await t.test('GET /api/admin/user: the session user with role and permissions; the admin token too; nobody → 401', async (t) => {
    const cookie = await login(app, 'admin', ADMIN_PASSWORD);
    const res = await app.inject({ method: 'GET', url: '/api/admin/user', headers: as(cookie) });
    t.equal(res.statusCode, 200, res.body);
    t.match(res.json(), { user: { username: 'admin', rootRole: 1, rootRoleName: 'Admin' }, permissions: [{ permission: 'ADMIN' }] });
    const expires = Date.parse(res.json().sessionExpiresAt) - Date.now();
    t.ok(expires > 47 * 3_600_000 && expires <= 48 * 3_600_000, 'default lifetime two days');

    const token = await app.inject({ method: 'GET', url: '/api/admin/user', headers: ADMIN });
    t.equal(token.statusCode, 200);
    t.equal(token.json().user.id, -42);

    const nobody = await app.inject({ method: 'GET', url: '/api/admin/user' });
    t.equal(nobody.statusCode, 401);
    t.equal(nobody.json().name, 'AuthenticationRequired');
    const forged = await app.inject({ method: 'GET', url: '/api/admin/user', headers: as('vane-session=forged') });
    t.equal(forged.statusCode, 401);
    t.equal(forged.json().name, 'UnauthorizedError');
  });

  await t.test('logout ends the session', async (t) => {
    const cookie = await login(app, 'admin', ADMIN_PASSWORD);
    const out = await app.inject({ method: 'POST', url: '/logout', headers: as(cookie, { origin: ORIGIN }) });
    t.equal(out.statusCode, 204);
    t.match(String(out.headers['set-cookie']), /vane-session=;/);
    t.equal((await app.inject({ method: 'GET', url: '/api/admin/user', headers: as(cookie) })).statusCode, 401);
  });

  await t.test('an expired session, or one whose user was deleted, no longer signs in', async (t) => {
    const sessions = app.database.db.collection('sessions');
    const cookie = await login(app, 'admin', ADMIN_PASSWORD);
    t.equal((await app.inject({ method: 'GET', url: '/api/admin/user', headers: as(cookie) })).statusCode, 200);
    await sessions.updateMany({}, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    // A session changed in the database is seen once the instance's look-up cache lapses
    // (REVISION_POLL_MS, as for any change made elsewhere).
    await new Promise((r) => setTimeout(r, app.config.REVISION_POLL_MS + 50));
    t.equal((await app.inject({ method: 'GET', url: '/api/admin/user', headers: as(cookie) })).statusCode, 401);

    const id = await userWithRole(app, 'leaver', 3);
    const leaver = await login(app, 'leaver', STRONG);
    t.equal((await app.inject({ method: 'GET', url: '/api/admin/user', headers: as(leaver) })).statusCode, 200);
    await changeUser(app, id, () => null);
    t.equal((await app.inject({ method: 'GET', url: '/api/admin/user', headers: as(leaver) })).statusCode, 401, 'at once');
    t.equal(await sessions.countDocuments({ userId: id }), 0, "the deleted user's sessions are removed");
  });
});

t.test('root roles: Viewer reads and plays, Editor changes flags, Admin everything', async (t) => {
  const app = await buildTestApp(t, { INIT_ADMIN_USER: 'root@example.com', INIT_ADMIN_PASSWORD: ADMIN_PASSWORD });
  await userWithRole(app, 'viewer', 3);
  await userWithRole(app, 'editor', 2);
  const viewer = await login(app, 'viewer', STRONG);
  const editor = await login(app, 'editor', STRONG);
  const admin = await login(app, 'root@example.com', ADMIN_PASSWORD);

  await t.test('Viewer: reads, playground and change-request preview allowed; changes → 403 naming the permission', async (t) => {
    t.equal((await app.inject({ method: 'GET', url: '/api/admin/projects', headers: as(viewer) })).statusCode, 200);
    t.equal((await app.inject({ method: 'GET', url: FLAGS, headers: as(viewer) })).statusCode, 200);
    const play = await app.inject({
      method: 'POST', url: '/api/admin/playground/advanced', headers: mutating(viewer),
      payload: { environments: ['development'], projects: '*', context: { appName: 'x' } },
    });
    t.equal(play.statusCode, 200, play.body);
    const preview = await app.inject({
      method: 'POST', url: '/api/admin/playground/change-request/999', headers: mutating(viewer), payload: { context: { appName: 'x' } },
    });
    t.not(preview.statusCode, 403, 'the preview is a Viewer endpoint (404 for an unknown change request)');

    const create = await app.inject({ method: 'POST', url: FLAGS, headers: mutating(viewer), payload: { name: 'by-viewer' } });
    t.equal(create.statusCode, 403);
    t.equal(create.json().name, 'NoAccessError');
    t.match(create.json().message, /"CREATE_FEATURE" permission/);
    t.same(create.json().permissions, ['CREATE_FEATURE']);
    const segment = await app.inject({
      method: 'POST', url: '/api/admin/segments', headers: mutating(viewer), payload: { name: 's', constraints: [] },
    });
    t.equal(segment.statusCode, 403);
    t.equal((await app.inject({ method: 'GET', url: '/api/admin/invite-link/tokens', headers: as(viewer) })).statusCode, 403);
  });

  await t.test('Editor: flags and segments yes; invite links, tokens and environments no', async (t) => {
    const create = await app.inject({ method: 'POST', url: FLAGS, headers: mutating(editor), payload: { name: 'by-editor' } });
    t.equal(create.statusCode, 201, create.body);
    const segment = await app.inject({
      method: 'POST', url: '/api/admin/segments', headers: mutating(editor), payload: { name: 'by-editor', constraints: [] },
    });
    t.equal(segment.statusCode, 201, segment.body);
    const invite = await app.inject({
      method: 'POST', url: '/api/admin/invite-link/tokens', headers: mutating(editor),
      payload: { name: 'x', expiresAt: new Date(Date.now() + 86_400_000).toISOString() },
    });
    t.equal(invite.statusCode, 403);
    t.match(invite.json().message, /"ADMIN" permission/);
    t.equal((await app.inject({ method: 'GET', url: '/api/admin/api-tokens', headers: as(editor) })).statusCode, 403);
  });

  await t.test('Admin: invite links and tokens; events are recorded under the person', async (t) => {
    const invite = await app.inject({
      method: 'POST', url: '/api/admin/invite-link/tokens', headers: mutating(admin),
      payload: { name: 'by admin', expiresAt: new Date(Date.now() + 86_400_000).toISOString() },
    });
    t.equal(invite.statusCode, 201, invite.body);
    t.equal(invite.json().createdBy, 'root@example.com');
    t.equal((await app.inject({ method: 'GET', url: '/api/admin/api-tokens', headers: as(admin) })).statusCode, 200);
    const events = await app.inject({ method: 'GET', url: '/api/admin/search/events?type=IS:feature-created', headers: as(admin) });
    t.equal(events.statusCode, 200, events.body);
    t.equal(events.json().events[0].createdBy, 'editor');
  });

  await t.test('CSRF: a cookie-authenticated change needs this server as Origin (or Referer)', async (t) => {
    const headers = { cookie: admin, 'content-type': 'application/json' };
    const none = await app.inject({ method: 'POST', url: FLAGS, headers, payload: { name: 'csrf-1' } });
    t.equal(none.statusCode, 403);
    t.equal(none.json().name, 'CrossSiteRequestError');
    const foreign = await app.inject({ method: 'POST', url: FLAGS, headers: { ...headers, origin: 'https://evil.example' }, payload: { name: 'csrf-2' } });
    t.equal(foreign.statusCode, 403);
    t.match(foreign.json().message, /evil\.example/);
    const referer = await app.inject({ method: 'POST', url: FLAGS, headers: { ...headers, referer: `${ORIGIN}/playground` }, payload: { name: 'csrf-3' } });
    t.equal(referer.statusCode, 201, referer.body);
    const host = await app.inject({ method: 'POST', url: FLAGS, headers: { ...headers, origin: 'http://vane.internal:8080', host: 'vane.internal:8080' }, payload: { name: 'csrf-4' } });
    t.equal(host.statusCode, 201, 'the Host the request reached counts as this server');
    const crossLogin = await app.inject({
      method: 'POST', url: '/auth/simple/login', headers: { ...JSON_ONLY, origin: 'https://evil.example' },
      payload: { username: 'viewer', password: STRONG },
    });
    t.equal(crossLogin.statusCode, 403, 'no login CSRF');
    // API tokens carry no ambient credential: unchanged, no Origin needed.
    t.equal((await app.inject({ method: 'POST', url: FLAGS, headers: JSON_ADMIN, payload: { name: 'by-token' } })).statusCode, 201);
  });
});

t.test('sessions are stored in the database: valid after a restart and on another instance', async (t) => {
  const config = await testConfig(t, { INIT_ADMIN_USER: 'admin', INIT_ADMIN_PASSWORD: ADMIN_PASSWORD, SESSION_TTL_HOURS: '1' });
  const first = await buildApp(config, { logger: false });
  const second = await buildApp(config, { logger: false });
  t.teardown(async () => {
    await second.close();
    await dropDatabase(config);
  });
  const cookie = await login(first, 'admin', ADMIN_PASSWORD);
  const on = async (app: App) => (await app.inject({ method: 'GET', url: '/api/admin/user', headers: as(cookie) }));
  t.equal((await on(second)).statusCode, 200, 'another instance knows the session');
  const expires = Date.parse((await on(second)).json().sessionExpiresAt) - Date.now();
  t.ok(expires <= 3_600_000 && expires > 3_500_000, 'SESSION_TTL_HOURS=1');
  await first.close();
  const restarted = await buildApp(config, { logger: false });
  t.equal((await on(restarted)).statusCode, 200, 'valid after a restart');
  t.equal((await committed(restarted, 'users')).size, 1, 'the first admin is created once');
  await restarted.close();
});

t.test('at most LOGIN_RATE_LIMIT sign-in attempts per minute per address; Secure cookie on https', async (t) => {
  const app = await buildTestApp(t, { INIT_ADMIN_USER: 'admin', INIT_ADMIN_PASSWORD: ADMIN_PASSWORD, LOGIN_RATE_LIMIT: '3', BASE_URL: 'https://vane.example' });
  const res = await app.inject({ method: 'POST', url: '/auth/simple/login', headers: JSON_ONLY, payload: { username: 'admin', password: ADMIN_PASSWORD } });
  t.match(String(res.headers['set-cookie']), /Secure/);
  for (let i = 0; i < 2; i++) {
    t.equal((await app.inject({ method: 'POST', url: '/auth/simple/login', headers: JSON_ONLY, payload: { username: 'admin', password: 'x' } })).statusCode, 401);
  }
  const limited = await app.inject({ method: 'POST', url: '/auth/simple/login', headers: JSON_ONLY, payload: { username: 'admin', password: ADMIN_PASSWORD } });
  t.equal(limited.statusCode, 429);
  t.equal(limited.json().name, 'TooManyRequestsError');
  t.ok(limited.json().id);
  const other = await app.inject({
    method: 'POST', url: '/auth/simple/login', headers: JSON_ONLY, remoteAddress: '10.0.0.9', payload: { username: 'admin', password: ADMIN_PASSWORD },
  });
  t.equal(other.statusCode, 200, 'another address is not limited');
});

t.test('configuration: INIT_ADMIN_USER and INIT_ADMIN_PASSWORD go together; a weak password stops the start', async (t) => {
  t.throws(() => loadConfig({ INIT_ADMIN_USER: 'admin' }), ConfigError);
  const config = await testConfig(t, { INIT_ADMIN_USER: 'admin', INIT_ADMIN_PASSWORD: 'unleash4all' });
  await t.rejects(buildApp(config, { logger: false }), /INIT_ADMIN_USER\/INIT_ADMIN_PASSWORD: The password is too weak/);
  await dropDatabase(config);
});
