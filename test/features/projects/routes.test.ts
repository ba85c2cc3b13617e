import t from 'tap';
import { ADMIN, buildTestApp } from '../../helpers/app.js';
import { createFlag, eventsSince, lastEventId, send } from '../flags/helpers.js';

t.test('projects', async (t) => {
  const app = await buildTestApp(t);

  await t.test('list: the default project', async (t) => {
    const res = await send(app, 'GET', '/api/admin/projects');
    t.equal(res.statusCode, 200);
    t.equal(res.json().version, 1);
    t.match(res.json().projects, [{ id: 'default', name: 'Default', featureCount: 0 }]);
  });

  await t.test('create: 201, event, connected environments, flags can be created in it', async (t) => {
    const before = await lastEventId(app);
    const res = await send(app, 'POST', '/api/admin/projects', { id: 'team-a', name: 'Team A', description: 'A' });
    t.equal(res.statusCode, 201);
    t.match(res.json(), { id: 'team-a', name: 'Team A', description: 'A' });
    const events = await eventsSince(app, before);
    t.same(events.map((e) => [e.type, e.project]), [['project-created', 'team-a']]);
    const flag = await createFlag(app, { name: 'in.team' }, 'team-a');
    t.equal(flag.statusCode, 201);
    t.same(flag.json().environments.map((e: { name: string }) => e.name), ['development', 'production']);
    const list = (await send(app, 'GET', '/api/admin/projects')).json().projects;
    t.match(list.find((p: { id: string }) => p.id === 'team-a'), { featureCount: 1 });
  });

  await t.test('the project flag list: variantCount per environment, keys in Unleash 8.2\'s order', async (t) => {
    t.equal((await createFlag(app, { name: 'with.variants' })).statusCode, 201);
    const variants = [
      { name: 'a', weight: 500, weightType: 'variable', stickiness: 'default' },
      { name: 'b', weight: 500, weightType: 'variable', stickiness: 'default' },
    ];
    t.equal((await send(app, 'PUT', '/api/admin/projects/default/features/with.variants/environments/development/variants', variants)).statusCode, 200);
    // A strategy's variants are not counted (the reference counts the environment's only).
    t.equal((await send(app, 'POST', '/api/admin/projects/default/features/with.variants/environments/development/strategies', {
      name: 'flexibleRollout', parameters: { rollout: '100', stickiness: 'default', groupId: 'g' },
      variants: [{ name: 's1', weight: 1000, weightType: 'variable', stickiness: 'default' }],
    })).statusCode, 200);
    const list = (await send(app, 'GET', '/api/admin/projects/default/features')).json();
    const flag = list.features.find((f: { name: string }) => f.name === 'with.variants');
    // As unleash-server 8.2.0 answered for the same configuration.
    t.same(flag.environments, [
      { name: 'development', enabled: false, type: 'development', sortOrder: 2, variantCount: 2, lastSeenAt: null, hasStrategies: true, hasEnabledStrategies: true },
      { name: 'production', enabled: false, type: 'production', sortOrder: 3, variantCount: 0, lastSeenAt: null, hasStrategies: false, hasEnabledStrategies: false },
    ]);
    t.same(Object.keys(flag.environments[0]), ['name', 'enabled', 'type', 'sortOrder', 'variantCount', 'lastSeenAt', 'hasStrategies', 'hasEnabledStrategies']);
  });

  await t.test('errors: duplicate 409, bad id 400, missing name 400', async (t) => {
    t.equal((await send(app, 'POST', '/api/admin/projects', { id: 'team-a', name: 'again' })).statusCode, 409);
    t.equal((await send(app, 'POST', '/api/admin/projects', { id: 'a b', name: 'x' })).statusCode, 400);
    t.equal((await send(app, 'POST', '/api/admin/projects', { id: 'x' })).statusCode, 400);
  });
});

t.test('GET /api/admin/projects?archived: checked as a boolean, the same list either way (Unleash 8.2 OSS, measured)', async (t) => {
  const app = await buildTestApp(t);
  const list = async (query: string) => await app.inject({ method: 'GET', url: `/api/admin/projects${query}`, headers: ADMIN });
  const plain = (await list('')).json();
  t.same((await list('?archived=true')).json(), plain);
  t.same((await list('?archived=false')).json(), plain);
  const bad = await list('?archived=xyz');
  t.equal(bad.statusCode, 400);
  t.match(bad.json().details, [{ message: 'The `/query/archived` property must be boolean. You sent "xyz".', path: '/query/archived' }]);
});
