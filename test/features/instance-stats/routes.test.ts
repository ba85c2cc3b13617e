import { createHash } from 'node:crypto';
import t from 'tap';
import { buildTestApp, send } from '../../helpers/app.js';
import { fixture } from '../../helpers/samples.js';
import { changeUser, roleCookies } from '../../helpers/sessions.js';

/** What Unleash 8.2 answered on the shared reference (test/fixtures/instance-stats/statistics.json). */
const recorded = fixture('instance-stats/statistics.json');
const STATS = '/api/admin/instance-admin/statistics';
const F = '/api/admin/projects/default/features';

/** Each value's JSON type, objects by key, arrays by their first item: the recorded `shape`. */
function shape(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value !== 'object' || value === null) return typeof value;
  if (Array.isArray(value)) return value.slice(0, 1).map(shape);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v)]));
}

t.test('GET /api/admin/instance-admin/statistics: Unleash\'s keys, types and fixed answers', async (t) => {
  const app = await buildTestApp(t);
  const res = await send(app, 'GET', STATS);
  t.equal(res.statusCode, 200);
  const stats = res.json();
  t.same(Object.keys(stats), recorded.keys, 'keys in Unleash\'s order');
  const { apiTokens: _a, edgeInstanceUsage: _e, ...typed } = shape(stats) as Record<string, unknown>;
  const { apiTokens: _ra, edgeInstanceUsage: _re, ...recordedTyped } = recorded.shape;
  t.same(typed, recordedTyped, 'every value of Unleash\'s type');
  for (const [key, value] of Object.entries(recorded.constants)) t.same(stats[key], value, key);
  t.same(stats.clientApps.map((a: { range: string }) => a.range), recorded.clientAppsRanges);

  const months = Object.keys(stats.edgeInstanceUsage);
  t.equal(months.length, recorded.edgeInstanceUsageKeys.length);
  t.equal(months[0], new Date().toISOString().slice(0, 7), 'this month first, then the 11 before');
  t.ok(Object.values(stats.edgeInstanceUsage).every((v) => v === 0));

  t.match(stats, { users: 0, licensedUsers: 0, featureToggles: 0, archivedFeatureToggles: 0, projects: 1, environments: 2, strategies: 4, segments: 0 });
  t.equal(stats.contextFields, (await send(app, 'GET', '/api/admin/context')).json().length);
  t.same(Object.keys(stats.apiTokens), ['admin'], 'only the types that have tokens');
  const ui = (await send(app, 'GET', '/api/admin/ui-config')).json();
  t.equal(stats.instanceId, ui.versionInfo.instanceId, 'the id the UI\'s version information carries');
  t.equal(stats.sum, createHash('sha256').update(
    `${stats.instanceId}${stats.users}${stats.featureToggles}${stats.projects}${stats.roles}${stats.groups}${stats.environments}${stats.segments}`,
  ).digest('hex'));
  t.ok(Math.abs(Date.parse(stats.timestamp) - Date.now()) < 60_000);
});

t.test('the counts move with the configuration as Unleash\'s did (no caching)', async (t) => {
  const app = await buildTestApp(t);
  const stats = async () => (await send(app, 'GET', STATS)).json();
  const before = await stats();
  for (const name of ['F-s-live', 'F-s-gone']) t.equal((await send(app, 'POST', F, { name })).statusCode, 201);
  t.equal((await send(app, 'DELETE', `${F}/F-s-gone`)).statusCode, 202);
  t.equal((await send(app, 'POST', '/api/admin/segments', { name: 'F-s-seg', constraints: [] })).statusCode, 201);
  t.equal((await send(app, 'POST', '/api/admin/context', { name: 'F-s-ctx' })).statusCode, 201);
  t.equal((await send(app, 'POST', '/api/admin/strategies', { name: 'F-s-strat', parameters: [] })).statusCode, 201);
  t.equal((await send(app, 'POST', '/api/admin/strategies/F-s-strat/deprecate')).statusCode, 200);
  for (const type of ['client', 'backend', 'backend', 'frontend']) {
    t.equal((await send(app, 'POST', '/api/admin/api-tokens', { tokenName: `F-s-${type}`, type, environment: 'development' })).statusCode, 201);
  }
  const after = await stats();
  t.match(after, {
    featureToggles: before.featureToggles + 1,
    archivedFeatureToggles: before.archivedFeatureToggles + 1,
    segments: before.segments + 1,
    contextFields: before.contextFields + 1,
    strategies: before.strategies + 1,
  }, recorded.moves);
  t.same(after.apiTokens, { client: 1, admin: 1, frontend: 1, backend: 2 }, 'client and backend apart, in Unleash\'s order');

  t.equal((await send(app, 'POST', `${F}/F-s-live/environments/development/strategies`, {
    name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'default', groupId: 'g' },
    constraints: [
      { contextName: 'appName', operator: 'IN', values: ['a', 'b', 'c'] },
      { contextName: 'appName', operator: 'NOT_IN', values: ['d'] },
    ],
  })).statusCode, 200);
  t.equal((await send(app, 'POST', `${F}/F-s-live/environments/development/strategies`, { name: 'default' })).statusCode, 200);
  t.match(await stats(), { maxEnvironmentStrategies: 2, maxConstraints: 2, maxConstraintValues: 3 }, 'over live flags\' strategies');

  const changes = (await stats()).productionChanges;
  t.equal((await send(app, 'POST', `${F}/F-s-live/environments/production/on`)).statusCode, 200);
  const moved = (await stats()).productionChanges;
  t.same(moved, { last30: changes.last30 + 2, last60: changes.last60 + 2, last90: changes.last90 + 2 },
    'enabled with no strategy: the default strategy added and the environment enabled, both naming production');
  t.equal((await send(app, 'POST', `${F}/F-s-live/environments/development/on`)).statusCode, 200);
  t.same((await stats()).productionChanges, moved, 'a development change is not a production change');

  const { viewer } = await roleCookies(app);
  const users = (await app.inject({ method: 'GET', url: STATS, headers: { cookie: viewer } })).json();
  t.match(users, { users: 2, licensedUsers: 2 });
  t.same(users.activeUsers, { last7: 2, last30: 2, last60: 2, last90: 2 }, 'both signed in');
  const day = 86_400_000;
  await changeUser(app, 1, (u) => ({ ...u, seenAt: new Date(Date.now() - 10 * day) }));
  await changeUser(app, 2, (u) => ({ ...u, seenAt: new Date(Date.now() - 45 * day) }));
  t.same((await stats()).activeUsers, { last7: 0, last30: 1, last60: 2, last90: 2 }, 'counted by seenAt, per window');

  const client = (await send(app, 'POST', '/api/admin/api-tokens', { tokenName: 'F-s-sdk', type: 'client', environment: 'development' })).json().secret;
  t.equal((await app.inject({
    method: 'POST', url: '/api/client/register', headers: { authorization: client, 'content-type': 'application/json' },
    payload: { appName: 'F-s-app', instanceId: 'i1', sdkVersion: 'unleash-node-sdk:6.0.0', strategies: ['default'], started: new Date().toISOString(), interval: 10000 },
  })).statusCode, 202);
  t.same((await stats()).clientApps, [{ range: '7d', count: 1 }, { range: '30d', count: 1 }, { range: 'allTime', count: 1 }]);
});

t.test('GET /api/admin/instance-admin/statistics/csv: json2csv\'s one row, as an attachment', async (t) => {
  const app = await buildTestApp(t);
  const res = await send(app, 'GET', `${STATS}/csv`);
  t.equal(res.statusCode, 200);
  t.equal(res.headers['content-type'], recorded.csv.contentType);
  const json = (await send(app, 'GET', STATS)).json();
  t.match(res.headers['content-disposition'], new RegExp(`^attachment; filename="unleash-${json.instanceId}-\\d{13}\\.csv"$`));
  const [header, row, ...rest] = res.body.split('\n');
  t.equal(header, recorded.csv.body.split('\n')[0], 'Unleash\'s header row');
  t.same(rest, [], 'no final newline');
  const recordedRow = recorded.csv.body.split('\n')[1] as string;
  t.match(recordedRow, /"\{""client"":\d+,""admin"":1/, 'objects as JSON with doubled quotes, as recorded');
  t.match(row, `"${json.instanceId}","8.2.0","",0,0,"{""admin"":1}","{""last7"":0,""last30"":0,""last60"":0,""last90"":0}",`);
  t.match(row, /,false,false,true,false,"\[\{""range"":""7d"",""count"":0\}/);
  t.match(row, new RegExp(`,"${json.sum}"$`));
});

t.test('permissions: every signed-in role; SDK tokens refused as Unleash refuses them', async (t) => {
  const app = await buildTestApp(t);
  const { viewer, editor } = await roleCookies(app);
  const tokens = Object.fromEntries(await Promise.all(['client', 'frontend'].map(async (type) => [type,
    (await send(app, 'POST', '/api/admin/api-tokens', { tokenName: `F-p-${type}`, type, environment: 'development' })).json().secret as string])));
  for (const url of [STATS, `${STATS}/csv`]) {
    t.equal((await app.inject({ method: 'GET', url, headers: { cookie: viewer } })).statusCode, 200, `viewer ${url}`);
    t.equal((await app.inject({ method: 'GET', url, headers: { cookie: editor } })).statusCode, 200, `editor ${url}`);
    t.equal((await app.inject({ method: 'GET', url })).statusCode, recorded.unauthenticated.status, `nobody ${url}`);
    for (const type of ['client', 'frontend']) {
      const res = await app.inject({ method: 'GET', url, headers: { authorization: tokens[type]! } });
      t.equal(res.statusCode, 403, `${type} token ${url}`);
      t.equal(res.json().message, recorded.clientToken.body.message, 'Unleash\'s message, in Vane\'s error shape');
    }
  }
});
