import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { eventsSince, lastEventId, send } from '../flags/helpers.js';

t.test('strategy types', async (t) => {
  const app = await buildTestApp(t);

  await t.test('list: the four built-ins in order', async (t) => {
    const res = await send(app, 'GET', '/api/admin/strategies');
    t.equal(res.statusCode, 200);
    // As a fresh Unleash 8.2 lists them (measured): order, display names, descriptions, `title` last.
    t.same(res.json().strategies.map((s: { name: string; displayName: string }) => [s.name, s.displayName]), [
      ['flexibleRollout', 'Gradual rollout'], ['default', 'Standard'], ['remoteAddress', 'IPs'], ['applicationHostname', 'Hosts'],
    ]);
    t.same(res.json().strategies[1], {
      displayName: 'Standard', name: 'default', editable: false,
      description: 'This strategy turns on / off for your entire userbase. Prefer using "Gradual rollout" strategy (100%=on, 0%=off).',
      parameters: [], deprecated: false, title: null,
    });
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

t.test('custom types as Unleash 8.2 answers and records them (measured)', async (t) => {
  const app = await buildTestApp(t);
  const before = await lastEventId(app);
  const zeta = await send(app, 'POST', '/api/admin/strategies', { name: 'zeta', title: 'Zeta T', description: 'd', parameters: [{ name: 'p', type: 'string' }] });
  t.equal(zeta.statusCode, 201);
  t.match(zeta.json(), { displayName: null, name: 'zeta', description: 'd', title: 'Zeta T' });
  t.equal((await send(app, 'POST', '/api/admin/strategies', { name: 'alpha', parameters: [] })).statusCode, 201);
  const listed = (await send(app, 'GET', '/api/admin/strategies')).json().strategies as Array<{ name: string; description: string | null }>;
  t.same(listed.map((s) => s.name).slice(4), ['alpha', 'zeta'], 'after the built-ins, by name');
  t.equal(listed[4]!.description, null, 'no description sent: null');
  t.equal((await send(app, 'PUT', '/api/admin/strategies/zeta', { name: 'zeta', title: 'Z2', parameters: [] })).statusCode, 200);
  t.match((await send(app, 'GET', '/api/admin/strategies/zeta')).json(), { description: 'd', title: 'Z2', displayName: null }, 'a description left out stays');
  const events = await eventsSince(app, before);
  t.same(events.map((e) => [e.type, e.data]), [
    ['strategy-created', { name: 'zeta', title: 'Zeta T', description: 'd', parameters: [{ name: 'p', type: 'string' }], editable: true, deprecated: false }],
    ['strategy-created', { name: 'alpha', parameters: [], editable: true, deprecated: false }],
    ['strategy-updated', { name: 'zeta', title: 'Z2', parameters: [], editable: true, deprecated: false }],
  ]);
});
