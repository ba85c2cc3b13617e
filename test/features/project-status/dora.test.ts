import t from 'tap';
import { buildTestApp, send } from '../../helpers/app.js';
import { fixture } from '../../helpers/samples.js';
import { roleCookies } from '../../helpers/sessions.js';
import { doraMetrics } from '../../../src/features/project-status/dora.js';
import type { FlagData } from '../../../src/features/flags/read-model.js';

/** What Unleash 8.2 answered for four flags made alike (test/fixtures/project-status/dora.json). */
const recorded = fixture('project-status/dora.json');
const F = '/api/admin/projects/default/features';

t.test('GET /api/admin/projects/:projectId/dora', async (t) => {
  const app = await buildTestApp(t);
  for (const [name, type] of [['C-dora-rel', 'release'], ['C-dora-dev', 'release'], ['C-dora-exp', 'experiment'], ['C-dora-arch', 'release']]) {
    t.equal((await send(app, 'POST', F, { name, type })).statusCode, 201);
  }
  for (const [name, env] of [['C-dora-rel', 'production'], ['C-dora-dev', 'development'], ['C-dora-exp', 'production'], ['C-dora-arch', 'production']]) {
    t.equal((await send(app, 'POST', `${F}/${name}/environments/${env}/on`)).statusCode, 200);
  }
  t.equal((await send(app, 'DELETE', `${F}/C-dora-arch`)).statusCode, 202);

  const res = await send(app, 'GET', '/api/admin/projects/default/dora');
  t.equal(res.statusCode, 200);
  t.same(Object.keys(res.json()), recorded.keys);
  t.same(Object.keys(res.json().features[0]), recorded.featureKeys);
  const strip = (name: string) => name.replace(/-c\d+$/, '');
  t.same(res.json().features, recorded.mine.map((f: { name: string }) => ({ ...f, name: strip(f.name) })),
    'release flags turned on in production, archived ones included, by name');
  t.equal(res.json().projectAverage, 0.1, 'all on their first day: 0 rounds up to 0.1');
  t.same((await send(app, 'GET', '/api/admin/projects/nope/dora')).json(), recorded.unknownProject);

  const { viewer } = await roleCookies(app);
  t.equal((await app.inject({ method: 'GET', url: '/api/admin/projects/default/dora', headers: { cookie: viewer } })).statusCode, 200);
  const client = (await send(app, 'POST', '/api/admin/api-tokens', { tokenName: 'c', type: 'client', environment: 'development' })).json().secret;
  t.equal((await app.inject({ method: 'GET', url: '/api/admin/projects/default/dora', headers: { authorization: client } })).statusCode, 403);
});

t.test('lead time arithmetic: floored days from creation to the first production enable after it', async (t) => {
  const day = 86_400_000;
  const created = new Date('2026-01-01T00:00:00Z');
  const flag = (name: string, type = 'release') => ({ name, type, createdAt: created }) as FlagData;
  const at = (days: number) => new Date(created.getTime() + days * day);
  const types = new Map([['production', 'production'], ['prod-2', 'production'], ['development', 'development']]);
  const result = doraMetrics([flag('b'), flag('a'), flag('c')], [
    { featureName: 'a', environment: 'development', createdAt: at(1) },
    { featureName: 'a', environment: 'prod-2', createdAt: at(3.9) },
    { featureName: 'a', environment: 'production', createdAt: at(5) },
    { featureName: 'b', environment: 'production', createdAt: at(-1) },
    { featureName: 'b', environment: 'production', createdAt: at(2) },
    { featureName: 'gone', environment: 'production', createdAt: at(2) },
  ], types);
  t.same(result, { features: [{ name: 'a', timeToProduction: 3 }, { name: 'b', timeToProduction: 2 }], projectAverage: 2.5 });
  t.same(doraMetrics([flag('a')], [], types), { features: [], projectAverage: 0 });
});
