import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { BASE, createFlag, eventsSince, lastEventId, send } from '../flags/helpers.js';
t.test('environments (S2)', async (t) => {
    const app = await buildTestApp(t);
    await t.test('fresh instance: development and production, Unleash shape', async (t) => {
        const res = await send(app, 'GET', '/api/admin/environments');
        t.equal(res.statusCode, 200);
        t.same(res.json(), {
            version: 1,
            environments: [
                { name: 'development', type: 'development', sortOrder: 2, enabled: true, protected: false, requiredApprovals: null, projectCount: 1, apiTokenCount: 0, enabledToggleCount: 0 },
                { name: 'production', type: 'production', sortOrder: 3, enabled: true, protected: false, requiredApprovals: null, projectCount: 1, apiTokenCount: 0, enabledToggleCount: 0 },
            ],
        });
    });
    await t.test('counts follow flags and tokens; get one; 404', async (t) => {
        await createFlag(app, { name: 'f1' });
        await send(app, 'POST', `${BASE}/f1/environments/production/on`);
        await send(app, 'POST', '/api/admin/api-tokens', { tokenName: 'c', type: 'client', environment: 'production' });
        const prod = await send(app, 'GET', '/api/admin/environments/production');
        t.equal(prod.statusCode, 200);
        t.match(prod.json(), { name: 'production', enabledToggleCount: 1, apiTokenCount: 1, projectCount: 1 });
        const missing = await send(app, 'GET', '/api/admin/environments/nope');
        t.equal(missing.statusCode, 404);
        t.equal(missing.json().name, 'NotFoundError');
    });
    await t.test('create: connected to every project and flag, event, 409, pattern', async (t) => {
        await send(app, 'POST', '/api/admin/projects', { id: 'other', name: 'Other' });
        const before = await lastEventId(app);
        const res = await send(app, 'POST', '/api/admin/environments', { name: 'pre.prod', type: 'staging' });
        t.equal(res.statusCode, 201);
        t.match(res.json(), { name: 'pre.prod', type: 'staging', sortOrder: 4, enabled: true, projectCount: 2 });
        t.same((await eventsSince(app, before)).map((e) => e.type), ['environment-created']);
        const flag = (await send(app, 'GET', `${BASE}/f1`)).json();
        t.same(flag.environments.map((e) => [e.name, e.enabled]), [['development', false], ['production', true], ['pre.prod', false]]);
        t.equal((await send(app, 'POST', `${BASE}/f1/environments/pre.prod/on`)).statusCode, 200, 'a dotted name works as a key');
        const config = (await app.services.flags.store.snapshotSource())[0];
        t.equal(config.environments['pre.prod'].enabled, true);
        const dup = await send(app, 'POST', '/api/admin/environments', { name: 'pre.prod', type: 'staging' });
        t.equal(dup.statusCode, 409);
        t.equal(dup.json().name, 'NameExistsError');
        const bad = await send(app, 'POST', '/api/admin/environments', { name: 'a b', type: 'x' });
        t.equal(bad.statusCode, 400);
        await createFlag(app, { name: 'f2' });
        t.same((await send(app, 'GET', `${BASE}/f2`)).json().environments.map((e) => e.name), ['development', 'production', 'pre.prod'], 'new flags get the new environment');
    });
});
//# sourceMappingURL=routes.test.js.map