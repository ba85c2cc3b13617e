import t from 'tap';
import { ADMIN, buildTestApp, send } from '../../helpers/app.js';

t.test('GET /api/admin/environments/project/:p: every environment as the project sees it', async (t) => {
  const app = await buildTestApp(t);
  await send(app, 'POST', '/api/admin/projects/default/features', { name: 'on-in-dev' });
  await send(app, 'POST', '/api/admin/projects/default/features/on-in-dev/environments/development/on');
  await send(app, 'POST', '/api/admin/api-tokens', { tokenName: 'all', type: 'client', environment: 'development', projects: ['*'] });
  await send(app, 'POST', '/api/admin/api-tokens', { tokenName: 'mine', type: 'client', environment: 'development', projects: ['default'] });
  await send(app, 'POST', '/api/admin/projects', { id: 'other', name: 'Other' });
  await send(app, 'POST', '/api/admin/api-tokens', { tokenName: 'theirs', type: 'client', environment: 'production', projects: ['other'] });

  const env = (name: string, sortOrder: number, tokens: number, on: number, visible: boolean) => ({
    name, type: name, sortOrder, enabled: true, protected: false, requiredApprovals: null,
    projectApiTokenCount: tokens, projectEnabledToggleCount: on, visible,
  });
  const res = await app.inject({ url: '/api/admin/environments/project/default', headers: ADMIN });
  t.equal(res.statusCode, 200);
  t.equal(res.body, JSON.stringify({ version: 1, environments: [env('development', 2, 2, 1, true), env('production', 3, 0, 0, true)] }), 'key order as Unleash');
  const unknown = await app.inject({ url: '/api/admin/environments/project/nope', headers: ADMIN });
  t.same(unknown.json().environments.map((e: { visible: boolean }) => e.visible), [false, false], 'an unknown project sees none (as Unleash answers)');
});

t.test('parent variants, feature types and the tags of one type', async (t) => {
  const app = await buildTestApp(t);
  await send(app, 'POST', '/api/admin/projects/default/features', { name: 'parent' });
  const variant = (name: string) => ({ name, weight: 500, weightType: 'variable', stickiness: 'default' });
  await send(app, 'PUT', '/api/admin/projects/default/features/parent/environments/development/variants', [variant('zeta'), variant('alpha')]);
  await send(app, 'PUT', '/api/admin/projects/default/features/parent/environments/production/variants', [variant('blue'), variant('alpha')]);
  const names = await app.inject({ url: '/api/admin/projects/default/features/parent/parent-variants', headers: ADMIN });
  t.same(names.json(), ['alpha', 'blue', 'zeta'], 'every environment\'s, once, sorted');
  t.same((await app.inject({ url: '/api/admin/projects/default/features/nope/parent-variants', headers: ADMIN })).json(), []);

  const types = (await app.inject({ url: '/api/admin/feature-types', headers: ADMIN })).json();
  t.same(types.types.map((type: { id: string; lifetimeDays: number | null }) => [type.id, type.lifetimeDays]), [
    ['release', 40], ['experiment', 40], ['operational', 7], ['kill-switch', null], ['permission', null], ['sunset', 90],
  ]);

  await send(app, 'POST', '/api/admin/tag-types', { name: 'team', color: '#ff0000' });
  await send(app, 'POST', '/api/admin/tags', { type: 'team', value: 'checkout' });
  await send(app, 'POST', '/api/admin/tags', { type: 'simple', value: 'beta' });
  t.equal((await app.inject({ url: '/api/admin/tags/team', headers: ADMIN })).body, '{"version":1,"tags":[{"type":"team","value":"checkout"}]}');
  t.same((await app.inject({ url: '/api/admin/tags/nope', headers: ADMIN })).json(), { version: 1, tags: [] });
  const tagTypes = (await app.inject({ url: '/api/admin/tag-types', headers: ADMIN })).json().tagTypes;
  t.same(tagTypes.map((type: { name: string; color: string | null }) => [type.name, type.color]), [['simple', '#FFFFFF'], ['team', '#ff0000']]);
});

t.test('environments turned off and on, and reordered; nothing recorded (as Unleash)', async (t) => {
  const app = await buildTestApp(t);
  const before = (await app.inject({ url: '/api/admin/search/events?limit=1', headers: ADMIN })).json().total as number;
  t.equal((await send(app, 'POST', '/api/admin/environments/production/off')).statusCode, 204);
  t.equal((await send(app, 'GET', '/api/admin/environments/production')).json().enabled, false);
  t.equal((await send(app, 'POST', '/api/admin/environments/production/off')).statusCode, 204, 'again');
  t.equal((await send(app, 'POST', '/api/admin/environments/production/on')).statusCode, 204);
  const missing = await send(app, 'POST', '/api/admin/environments/nope/on');
  t.equal(missing.statusCode, 404);
  t.equal(missing.json().message, 'Could not find environment nope');
  t.equal((await send(app, 'PUT', '/api/admin/environments/sort-order', { production: 1, development: 5, nope: 3 })).statusCode, 200);
  t.same((await send(app, 'GET', '/api/admin/environments')).json().environments.map((e: { name: string; sortOrder: number }) => [e.name, e.sortOrder]),
    [['production', 1], ['development', 5]], 'listed by their new order');
  await app.database.outbox.flushed();
  t.equal((await app.inject({ url: '/api/admin/search/events?limit=1', headers: ADMIN })).json().total, before, 'no event');
});
