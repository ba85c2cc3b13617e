import t from 'tap';
import { ADMIN, JSON_ADMIN, buildTestApp } from '../../helpers/app.js';
t.test('GET /api/admin/user-admin', async (t) => {
    const app = await buildTestApp(t);
    const empty = await app.inject({ method: 'GET', url: '/api/admin/user-admin', headers: ADMIN });
    t.equal(empty.statusCode, 200);
    t.same(empty.json(), {
        users: [],
        rootRoles: [{ id: 1, name: 'Admin', type: 'root' }, { id: 2, name: 'Editor', type: 'root' }, { id: 3, name: 'Viewer', type: 'root' }],
    });
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
    t.same(users.map((u) => [u.id, u.email]), [[1, 'b@example.com'], [2, 'a@example.com']], 'by id');
    t.same(Object.keys(users[0]), ['id', 'name', 'email', 'username', 'imageUrl', 'loginAttempts', 'emailSent', 'rootRole', 'seenAt', 'createdAt', 'accountType']);
    t.ok(users.every((u) => u.rootRole === 3));
    t.notMatch(list.body, /scrypt|Horse|passwordHash|signupToken|usernameKey/, 'internal fields never leave the store');
});
//# sourceMappingURL=routes.test.js.map