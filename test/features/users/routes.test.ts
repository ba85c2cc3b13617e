import t from 'tap';
import { ADMIN, JSON_ADMIN, buildTestApp } from '../../helpers/app.js';

t.test('GET /api/admin/user-admin', async (t) => {
  const app = await buildTestApp(t);

  const empty = await app.inject({ method: 'GET', url: '/api/admin/user-admin', headers: ADMIN });
  t.equal(empty.statusCode, 200);
  t.same(empty.json().users, []);
  t.same(empty.json().rootRoles.map((r: { id: number; name: string; type: string }) => [r.id, r.name, r.type]), [[1, 'Admin', 'root'], [2, 'Editor', 'root'], [3, 'Viewer', 'root']]);
  t.match(empty.json().rootRoles[2].description, /^Users with the root viewer role can only read root resources/);
  t.equal((await app.inject({ method: 'GET', url: '/api/admin/user-admin' })).statusCode, 401);

  const token = await app.inject({
    method: 'POST', url: '/api/admin/invite-link/tokens', headers: JSON_ADMIN,
    payload: { name: 'u', expiresAt: new Date(Date.now() + 86_400_000 * 3).toISOString() },
  });
  for (const email of ['b@example.com', 'a@example.com']) {
    const res = await app.inject({
      method: 'POST', url: `/invite/${token.json().secret}/signup`, headers: { 'content-type': 'application/json' },
      payload: { name: email.slice(0, 1), email, password: 'Correct-Horse-9' },
    });
    t.equal(res.statusCode, 201);
  }
  const list = await app.inject({ method: 'GET', url: '/api/admin/user-admin', headers: ADMIN });
  const { users } = list.json();
  t.same(users.map((u: { id: number; email: string }) => [u.id, u.email]), [[1, 'b@example.com'], [2, 'a@example.com']], 'by id');
  t.same(Object.keys(users[0]), [
    'accountType', 'id', 'name', 'email', 'imageUrl', 'seenAt', 'loginAttempts', 'createdAt', 'scimId', 'seatType', 'companyRole',
    'productUpdatesEmailConsent', 'rootRole', 'inviteLink',
  ], 'Unleash\'s keys and order (docs/rules.md §11.1): no username key for a user without one');
  t.ok(users.every((u: { rootRole: number }) => u.rootRole === 3));
  t.notMatch(list.body, /scrypt|Horse|passwordHash|signupToken|usernameKey/, 'internal fields never leave the store');
});
