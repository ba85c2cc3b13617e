import t from 'tap';
import { ADMIN, buildTestApp, JSON_ADMIN } from '../../helpers/app.js';
import { BASE, createFlag } from './helpers.js';

interface ListedEnvironment { name: string; enabled: boolean; lastSeenAt: string | null }
interface Listed { name: string; environments: ListedEnvironment[] }

t.test('the project flag list: its JSON is kept per revision and last-seen change, never stale', async (t) => {
  const app = await buildTestApp(t);
  for (const name of ['list.a', 'list.b', 'list.c']) t.equal((await createFlag(app, { name })).statusCode, 201);
  const get = () => app.inject({ method: 'GET', url: BASE, headers: ADMIN });
  const environment = (body: { features: Listed[] }, flag: string, env: string) =>
    body.features.find((f) => f.name === flag)!.environments.find((e) => e.name === env)!;

  const first = await get();
  t.equal(first.statusCode, 200);
  t.equal(first.headers['content-type'], 'application/json; charset=utf-8');
  t.equal(Number(first.headers['content-length']), Buffer.byteLength(first.body), 'content-length of the bytes sent');
  t.same(first.json().features.map((f: Listed) => f.name), ['list.a', 'list.b', 'list.c']);
  t.same(Object.keys(first.json().features[0].environments[0]),
    ['name', 'enabled', 'type', 'sortOrder', 'variantCount', 'lastSeenAt', 'hasStrategies', 'hasEnabledStrategies'], 'the schema\'s key order');
  t.equal((await get()).body, first.body, 'the same bytes again');
  const service = app.services.flags;
  t.equal(await service.list('default'), await service.list('default'), 'one list object while nothing changes (what the route keeps its JSON by)');

  // A write: a new revision, a new list.
  const on = await app.inject({ method: 'POST', url: `${BASE}/list.b/environments/development/on`, headers: JSON_ADMIN });
  t.equal(on.statusCode, 200);
  t.equal(environment((await get()).json(), 'list.b', 'development').enabled, true, 'the write is in the next list');

  // A metrics report: no revision, but a last-seen time.
  const before = await service.list('default');
  const seenAt = new Date();
  app.clientMetrics.record('production', 'svc', seenAt, { 'list.c': { yes: 1, no: 0 } }, seenAt);
  const after = await get();
  t.equal(environment(after.json(), 'list.c', 'production').lastSeenAt, seenAt.toISOString(), 'the report is in the next list');
  t.equal(environment(after.json(), 'list.a', 'production').lastSeenAt, null);
  t.not(await service.list('default'), before, 'a new list object');
  t.equal((await get()).body, after.body, 'kept again until the next change');

  // Another instance's report, read by the poll.
  const { MetricsService } = await import('../../../src/features/metrics/service.js');
  const { MetricsStore } = await import('../../../src/features/metrics/store.js');
  const other = new MetricsService(new MetricsStore(app.database.outbox));
  const otherSeenAt = new Date(Date.now() + 1000);
  other.record('development', 'far-app', otherSeenAt, { 'list.a': { yes: 2, no: 0 } }, otherSeenAt);
  await other.flush();
  await app.clientMetrics.refresh();
  t.equal(environment((await get()).json(), 'list.a', 'development').lastSeenAt, otherSeenAt.toISOString(), 'another instance\'s report too');

  // A project of its own keeps its own list.
  const other404 = await app.inject({ method: 'GET', url: '/api/admin/projects/nope/features', headers: ADMIN });
  t.equal(other404.statusCode, 404);
  t.equal(other404.json().name, 'NotFoundError');
});
