import t from 'tap';
import { ADMIN, buildTestApp } from '../../helpers/app.js';
import { createToken, seedReferenceConfiguration } from '../client-api/helpers.js';

t.test('client metrics and registration', async (t) => {
  const app = await buildTestApp(t);
  await seedReferenceConfiguration(app);
  const client = await createToken(app, 'client');
  const post = (url: string, payload: object, authorization = client) =>
    app.inject({ method: 'POST', url, headers: { authorization, 'content-type': 'application/json' }, payload });
  const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString();

  await t.test('400 naming the first missing or bad field, as Unleash 8', async (t) => {
    const cases: Array<[string, object, string]> = [
      ['/api/client/register', { instanceId: 'i1' }, '/body/appName'],
      ['/api/client/register', { appName: 'x' }, '/body/interval'],
      ['/api/client/register', { appName: 'x', interval: 1, started: hour }, '/body/strategies'],
      ['/api/client/metrics', {}, '/body/appName'],
      ['/api/client/metrics', { appName: 'svc', bucket: { start: hour, stop: hour } }, '/body/bucket/toggles'],
      ['/api/client/metrics', { appName: 'svc', bucket: { start: hour, stop: hour, toggles: { a: { yes: 'x' } } } }, '/body/bucket/toggles/a/yes'],
      ['/api/client/metrics/bulk', { metrics: [] }, '/body/applications'],
      ['/api/client/metrics/bulk', { applications: [] }, '/body/metrics'],
      ['/api/client/metrics/bulk', { applications: [{ appName: 'edge', instanceId: 'e' }], metrics: [] }, '/body/applications/0/environment'],
      ['/api/client/metrics/bulk', { applications: [], metrics: [{ featureName: 'alpha', appName: 'a' }] }, '/body/metrics/0/environment'],
    ];
    for (const [url, body, path] of cases) {
      const res = await post(url, body);
      t.equal(res.statusCode, 400, `${url} ${JSON.stringify(body)}`);
      t.equal(res.json().details[0].path, path);
    }
    t.equal((await post('/api/client/metrics', { appName: 'x' }, ADMIN.authorization)).statusCode, 403, 'admin token: wrong type');
  });

  await t.test('202; counts per flag, environment and hour; applications', async (t) => {
    const register = await post('/api/client/register', {
      appName: 'svc', instanceId: 'i1', sdkVersion: 'unleash-client-node:6.0.0', strategies: ['default'], started: hour, interval: 10000,
    });
    t.equal(register.statusCode, 202);
    t.equal(register.body, '');
    const bucket = { start: hour, stop: hour, toggles: { alpha: { yes: 5, no: 2, variants: { v1: 5 } } } };
    t.equal((await post('/api/client/metrics', { appName: 'svc', instanceId: 'i1', bucket })).statusCode, 202);
    t.equal((await post('/api/client/metrics', { appName: 'svc', instanceId: 'i1' })).statusCode, 202, 'no bucket: nothing to count');
    const bulk = await post('/api/client/metrics/bulk', {
      applications: [],
      metrics: [
        { featureName: 'alpha', appName: 'svc', environment: 'development', timestamp: hour, yes: 1, no: 1, variants: {} },
        { featureName: 'alpha', appName: 'svc', environment: 'production', timestamp: hour, yes: 100, no: 100 },
      ],
    });
    t.equal(bulk.statusCode, 202);
    const usage = await app.inject({ method: 'GET', url: '/api/admin/client-metrics/features/alpha', headers: ADMIN });
    t.same(usage.json(), {
      version: 1, maturity: 'stable', featureName: 'alpha',
      lastHourUsage: [{ environment: 'development', timestamp: hour, yes: 6, no: 3 }],
      seenApplications: ['svc'],
    });
    const apps = await app.inject({ method: 'GET', url: '/api/admin/metrics/applications', headers: ADMIN });
    t.equal(apps.json().total, 1);
    t.same(Object.keys(apps.json().applications[0]), [
      'appName', 'createdAt', 'updatedAt', 'description', 'strategies', 'createdBy', 'url', 'color', 'icon', 'project', 'environment', 'usage',
    ]);
    t.match(apps.json().applications[0], { appName: 'svc', strategies: ['default'], project: 'default', environment: 'development',
      usage: [{ project: 'default', environments: ['development'] }] });
    const seen = await app.clientMetrics.lastSeen('alpha');
    t.ok(seen.get('development') instanceof Date);
    t.notOk(seen.has('production'));
  });

  await t.test('two instances write their own buckets; reads sum them', async (t) => {
    const { MetricsService } = await import('../../../src/features/metrics/service.js');
    const { MetricsStore } = await import('../../../src/features/metrics/store.js');
    const other = new MetricsService(new MetricsStore(app.database.outbox));
    other.record('development', 'other-app', new Date(hour), { alpha: { yes: 10, no: 0 } });
    app.clientMetrics.record('development', 'svc', new Date(hour), { alpha: { yes: 1, no: 1 } });
    await Promise.all([other.flush(), app.clientMetrics.flush()]);
    // The poll the timer runs every FLUSH_MS, run now: the interval itself is config.
    await app.clientMetrics.refresh();
    const usage = (await app.inject({ method: 'GET', url: '/api/admin/client-metrics/features/alpha', headers: ADMIN })).json();
    t.same(usage.lastHourUsage, [{ environment: 'development', timestamp: hour, yes: 17, no: 4 }]);
    t.same(usage.seenApplications, ['other-app', 'svc']);
  });

  await t.test('admin reads are answered from memory: another instance\'s report, then no database behind it', async (t) => {
    const { MetricsService } = await import('../../../src/features/metrics/service.js');
    const { MetricsStore } = await import('../../../src/features/metrics/store.js');
    const store = new MetricsStore(app.database.outbox);
    const other = new MetricsService(store);
    const seenAt = new Date(Date.now() - 5000);
    other.record('production', 'far-app', new Date(hour), { beta: { yes: 3, no: 4 } }, seenAt);
    await other.flush();
    await app.clientMetrics.refresh();
    const view = async () => (await app.inject({ method: 'GET', url: '/api/admin/projects/default/features/beta', headers: ADMIN })).json();
    const production = (body: { environments: Array<{ name: string; lastSeenAt: string | null; yes: number; no: number }> }) =>
      body.environments.find((e) => e.name === 'production');
    t.match(production(await view()), { lastSeenAt: seenAt.toISOString(), yes: 3, no: 4 }, 'the poll brought the other instance\'s report');
    // Empty the metrics collections: a read that went to the database would now find nothing.
    await store.sheets.deleteMany({});
    await store.heads.deleteMany({});
    await new Promise((resolve) => setTimeout(resolve, 1100)); // past the 1 s reuse the reads had before
    t.match(production(await view()), { lastSeenAt: seenAt.toISOString(), yes: 3, no: 4 }, 'the flag view still has it: served from memory');
    const list = (await app.inject({ method: 'GET', url: '/api/admin/projects/default/features', headers: ADMIN })).json();
    const beta = list.features.find((f: { name: string }) => f.name === 'beta');
    t.equal(beta.environments.find((e: { name: string }) => e.name === 'production').lastSeenAt, seenAt.toISOString(), 'and the project flag list');
    const usage = (await app.inject({ method: 'GET', url: '/api/admin/client-metrics/features/beta', headers: ADMIN })).json();
    t.same(usage.lastHourUsage, [{ environment: 'production', timestamp: hour, yes: 3, no: 4 }], 'and the client-metrics view');
  });
});
