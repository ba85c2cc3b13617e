import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { eventsSince, lastEventId, send } from '../flags/helpers.js';
t.test('strategy types', async (t) => {
    const app = await buildTestApp(t);
    await t.test('list: the four built-ins in order', async (t) => {
        const res = await send(app, 'GET', '/api/admin/strategies');
        t.equal(res.statusCode, 200);
        t.same(res.json().strategies.map((s) => s.name), ['default', 'applicationHostname', 'remoteAddress', 'flexibleRollout']);
        t.same(Object.keys(res.json().strategies[0]), ['displayName', 'name', 'editable', 'description', 'parameters', 'deprecated']);
        const one = await send(app, 'GET', '/api/admin/strategies/flexibleRollout');
        t.equal(one.statusCode, 200);
        t.equal(one.json().parameters.length, 3);
        t.equal((await send(app, 'GET', '/api/admin/strategies/nope')).statusCode, 404);
    });
    await t.test('create a custom type: 201, event, 409', async (t) => {
        const before = await lastEventId(app);
        const res = await send(app, 'POST', '/api/admin/strategies', {
            name: 'userWithId', description: 'Users by id', parameters: [{ name: 'userIds', type: 'list', required: true }],
        });
        t.equal(res.statusCode, 201);
        t.match(res.json(), { name: 'userWithId', editable: true, parameters: [{ name: 'userIds', type: 'list', description: '', required: true }] });
        const events = await eventsSince(app, before);
        t.same(events.map((e) => [e.type, e.data.name]), [['strategy-created', 'userWithId']]);
        t.equal((await send(app, 'POST', '/api/admin/strategies', { name: 'userWithId' })).statusCode, 409);
        t.equal((await send(app, 'POST', '/api/admin/strategies', { name: 'bad name' })).statusCode, 400);
    });
});
//# sourceMappingURL=routes.test.js.map