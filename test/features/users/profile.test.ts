import { readFileSync } from 'node:fs';
import t from 'tap';
import { ADMIN, JSON_ADMIN, buildTestApp } from '../../helpers/app.js';
import { asPerson, login, STRONG, userWithRole } from '../../helpers/sessions.js';

type Body = Record<string, unknown>;
interface Recorded { request: { body?: Body }; response: { status: number; body: Body | null } }
const read = (name: string) => JSON.parse(readFileSync(new URL(`../../../../test/fixtures/users/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;
const PROFILE = read('profile.json') as { adminProfile: Body; viewerProfile: Body; adminTokenProfile: Recorded; rootRoles: Body[]; viewerRoles: Recorded };
const PASSWORD = read('change-password.json') as Record<string, Recorded>;

const ADMIN_PASSWORD = 'First-Admin-Pass-1';
const CHANGE = '/api/admin/user/change-password';

/** The reference's error body as Vane answers it (D1: BadDataError is ValidationError), without the per-answer id. */
function expectedError(body: Body | null): Body {
  const { id: _id, ...rest } = body ?? {};
  return { ...rest, name: rest.name === 'BadDataError' ? 'ValidationError' : rest.name };
}
const withoutId = (body: Body): Body => {
  const { id: _id, ...rest } = body;
  return rest;
};

t.test('profile and roles', async (t) => {
  const app = await buildTestApp(t, { INIT_ADMIN_USER: 'admin', INIT_ADMIN_PASSWORD: ADMIN_PASSWORD });
  await userWithRole(app, 'viewer', 3);
  await userWithRole(app, 'editor', 2);
  const admin = await login(app, 'admin', ADMIN_PASSWORD);
  const viewer = await login(app, 'viewer', STRONG);
  const editor = await login(app, 'editor', STRONG);
  const profile = async (cookie: string) => (await app.inject({ method: 'GET', url: '/api/admin/user/profile', headers: { cookie } }));

  await t.test('for each root role, as the reference answers', async (t) => {
    const a = await profile(admin);
    t.equal(a.statusCode, 200);
    t.equal(a.body, JSON.stringify(PROFILE.adminProfile), 'admin: byte for byte');
    t.equal((await profile(viewer)).body, JSON.stringify(PROFILE.viewerProfile), 'invited viewer: byte for byte');
    t.same((await profile(editor)).json().rootRole, PROFILE.rootRoles[1], 'editor');
  });

  await t.test('the admin token has no user', async (t) => {
    const res = await app.inject({ method: 'GET', url: '/api/admin/user/profile', headers: ADMIN });
    t.equal(res.statusCode, 400);
    t.same(withoutId(res.json()), expectedError(PROFILE.adminTokenProfile.response.body));
    t.equal((await app.inject({ method: 'GET', url: '/api/admin/user/roles?projectId=default', headers: ADMIN })).statusCode, 400);
  });

  await t.test('roles in a project', async (t) => {
    const res = await app.inject({ method: 'GET', url: '/api/admin/user/roles?projectId=default', headers: { cookie: viewer } });
    t.equal(res.body, JSON.stringify(PROFILE.viewerRoles.response.body));
    const other = await app.inject({ method: 'GET', url: '/api/admin/user/roles?projectId=nope', headers: { cookie: admin } });
    t.same(other.json().roles, [{ ...PROFILE.rootRoles[0], project: 'default' }]);
    const none = await app.inject({ method: 'GET', url: '/api/admin/user/roles', headers: { cookie: viewer } });
    t.equal(none.statusCode, 400);
    t.equal(none.body, '', 'no body, as Unleash');
  });

  await t.test('GET /api/admin/user carries the keys the UI reads', async (t) => {
    for (const headers of [{ cookie: viewer }, ADMIN]) {
      const body = (await app.inject({ method: 'GET', url: '/api/admin/user', headers })).json();
      t.same(Object.keys(body), ['user', 'permissions', 'feedback', 'splash', 'sessionExpiresAt']);
      t.same([body.feedback, body.splash], [[], {}]);
    }
  });
});

t.test('change-password', async (t) => {
  const app = await buildTestApp(t);
  await userWithRole(app, 'viewer', 3);
  const first = await login(app, 'viewer', STRONG);
  const second = await login(app, 'viewer', STRONG);
  const change = async (body: Body | undefined, cookie = first) =>
    await app.inject({ method: 'POST', url: CHANGE, headers: asPerson(cookie), ...(body ? { payload: body } : {}) });

  await t.test('refused as the reference refuses, in its order', async (t) => {
    for (const name of ['missingPassword', 'onlyPassword', 'noOldPassword', 'confirmDiffers', 'weak', 'weakWithWrongOld', 'wrongOld', 'emptyOld', 'extraProperty']) {
      const recorded = PASSWORD[name]!;
      const body = { ...recorded.request.body };
      if (name === 'extraProperty') body.oldPassword = STRONG;
      const res = await change(body);
      t.equal(res.statusCode, recorded.response.status, name);
      if (recorded.response.body === null) t.equal(res.body, '', `${name}: no body`);
      else t.same(withoutId(res.json()), expectedError(recorded.response.body), name);
    }
  });

  await t.test('changed: no event, this session kept, the others ended', async (t) => {
    const lastEvent = app.database.outbox.lastEventId;
    const res = await change(PASSWORD.changed!.request.body);
    t.equal(res.statusCode, 200);
    t.equal(res.body, '');
    t.equal(app.database.outbox.lastEventId, lastEvent, 'no event');
    t.equal((await app.inject({ method: 'GET', url: '/api/admin/user', headers: { cookie: first } })).statusCode, 200, 'this session');
    const other = await app.inject({ method: 'GET', url: '/api/admin/user', headers: { cookie: second } });
    t.equal(other.statusCode, 401, 'the other session');
    await t.rejects(login(app, 'viewer', STRONG), 'the old password no longer signs in');
    t.ok(await login(app, 'viewer', 'Correct-Horse-10'));
  });

  await t.test('the current and the previous passwords are refused', async (t) => {
    for (const name of ['previousPassword', 'currentPassword', 'previousWithWrongOld']) {
      const recorded = PASSWORD[name]!;
      const res = await change(recorded.request.body);
      t.equal(res.statusCode, recorded.response.status, name);
      t.same(withoutId(res.json()), expectedError(recorded.response.body), name);
    }
  });

  await t.test('by a personal access token: every session ends', async (t) => {
    const created = await app.inject({
      method: 'POST', url: '/api/admin/user/tokens', headers: asPerson(first), payload: { description: 'pw', expiresAt: '2099-01-01T00:00:00.000Z' },
    });
    const pat = created.json().secret as string;
    const res = await app.inject({
      method: 'POST', url: CHANGE, headers: { authorization: pat, 'content-type': 'application/json' },
      payload: { password: 'Correct-Horse-13', confirmPassword: 'Correct-Horse-13', oldPassword: 'Correct-Horse-10' },
    });
    t.equal(res.statusCode, 200, res.body);
    t.equal((await app.inject({ method: 'GET', url: '/api/admin/user', headers: { cookie: first } })).statusCode, 401, 'the session');
    t.equal((await app.inject({ method: 'GET', url: '/api/admin/user', headers: { authorization: pat } })).statusCode, 200, 'the PAT');
  });

  await t.test('the admin token has no password', async (t) => {
    const res = await app.inject({ method: 'POST', url: CHANGE, headers: JSON_ADMIN, payload: { password: 'Correct-Horse-14', confirmPassword: 'Correct-Horse-14', oldPassword: 'x' } });
    t.equal(res.statusCode, 400);
    t.equal(res.json().details[0].message, 'User id is missing in request user object');
  });
});
