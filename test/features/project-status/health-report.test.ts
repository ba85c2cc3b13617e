import t from 'tap';
import { buildTestApp, send } from '../../helpers/app.js';
import { fixture, vaneError } from '../../helpers/samples.js';
import { roleCookies } from '../../helpers/sessions.js';

/** Unleash 8.2's answer on its (shared) project `default`: keys, one untagged flag, the 404, permissions. */
const recorded = fixture('project-status/health-report.json');
const F = '/api/admin/projects/default/features';

t.test('GET /api/admin/projects/:projectId/health-report', async (t) => {
  const app = await buildTestApp(t);
  t.equal((await send(app, 'POST', F, { name: 'plain' })).statusCode, 201);
  // As the recorded flag: a strategy in each environment, off in both.
  for (const env of ['development', 'production']) t.equal((await send(app, 'POST', `${F}/plain/environments/${env}/strategies`, { name: 'default' })).statusCode, 200);
  t.equal((await send(app, 'POST', F, { name: 'tagged', type: 'experiment' })).statusCode, 201);
  t.equal((await send(app, 'POST', '/api/admin/features/tagged/tags', { type: 'simple', value: 'beta' })).statusCode, 201);
  t.equal((await send(app, 'POST', F, { name: 'old' })).statusCode, 201);
  t.equal((await send(app, 'POST', '/api/admin/projects/default/stale', { features: ['old'], stale: true })).statusCode, 202);
  t.equal((await send(app, 'POST', F, { name: 'gone' })).statusCode, 201);
  t.equal((await send(app, 'DELETE', `${F}/gone`)).statusCode, 202);

  const res = await send(app, 'GET', '/api/admin/projects/default/health-report');
  t.equal(res.statusCode, 200);
  const body = res.json();
  t.same(Object.keys(body), recorded.keys, 'keys in Unleash\'s order');
  t.same(Object.keys(body.stats), recorded.statsKeys);
  t.same(body.features.map((f: { name: string }) => f.name), ['plain', 'tagged', 'old'], 'live flags only');
  const plain = body.features[0];
  t.same(Object.keys(plain), Object.keys(recorded.example), 'an untagged flag has no tags key');
  t.same(Object.keys(plain.environments[0]), recorded.environmentKeys);
  t.same({ ...plain, name: '', createdAt: '' }, { ...recorded.example, name: '', createdAt: '' }, 'a new release flag as Unleash shows it');
  t.same(Object.keys(body.features[1]), recorded.featureKeys);
  t.same(body.features[1].tags, [{ value: 'beta', type: 'simple' }]);
  t.same([body.activeCount, body.staleCount, body.potentiallyStaleCount, body.health, body.technicalDebt], [2, 1, 0, 67, 33]);

  const unknown = await send(app, 'GET', '/api/admin/projects/nope/health-report');
  t.equal(unknown.statusCode, recorded.unknownProject.status);
  const { id, ...rest } = unknown.json();
  t.type(id, 'string');
  t.same(rest, vaneError(recorded.unknownProject.body));

  const { viewer } = await roleCookies(app);
  t.equal((await app.inject({ method: 'GET', url: '/api/admin/projects/default/health-report', headers: { cookie: viewer } })).statusCode, recorded.viewer);
  const client = (await send(app, 'POST', '/api/admin/api-tokens', { tokenName: 'c', type: 'client', environment: 'development' })).json().secret;
  t.equal((await app.inject({ method: 'GET', url: '/api/admin/projects/default/health-report', headers: { authorization: client } })).statusCode, recorded.client);
});

/** Unleash 8.2's insights on its (shared) project `default`: keys, members, the 404. */
const insights = fixture('project-status/insights.json');

t.test('GET /api/admin/projects/:projectId/insights', async (t) => {
  const app = await buildTestApp(t);
  t.equal((await send(app, 'POST', F, { name: 'live' })).statusCode, 201);
  t.equal((await send(app, 'POST', F, { name: 'old', type: 'experiment' })).statusCode, 201);
  t.equal((await send(app, 'POST', '/api/admin/projects/default/stale', { features: ['old'], stale: true })).statusCode, 202);
  t.equal((await send(app, 'POST', `${F}/live/environments/production/on`)).statusCode, 200);

  const res = await send(app, 'GET', '/api/admin/projects/default/insights');
  t.equal(res.statusCode, 200);
  const body = res.json();
  t.same(Object.keys(body), insights.keys);
  for (const [key, keys] of Object.entries(insights.nestedKeys)) t.same(Object.keys(body[key]), keys, key);
  t.same(body.featureTypeCounts, [{ type: 'experiment', count: 1 }, { type: 'release', count: 1 }]);
  t.same(body.technicalDebt, { rating: 50, activeCount: 1, potentiallyStaleCount: 0, staleCount: 1 });
  t.same(body.health, { ...body.technicalDebt, rating: 50 });
  t.same(body.leadTime, { features: [{ name: 'live', timeToProduction: 0 }], projectAverage: 0.1 });
  t.same(body.members, insights.members);
  const unknown = await send(app, 'GET', '/api/admin/projects/nope/insights');
  t.equal(unknown.statusCode, insights.unknownProject.status);
  t.same({ ...unknown.json(), id: undefined }, { ...vaneError(insights.unknownProject.body), id: undefined });
  const { viewer } = await roleCookies(app);
  t.equal((await app.inject({ method: 'GET', url: '/api/admin/projects/default/insights', headers: { cookie: viewer } })).statusCode, insights.viewer);
});
