/** A flag's lifecycle follows the SDKs' reports, as Unleash 8.2's feature-lifecycle service moves it. */
import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { ADMIN, buildTestApp, send } from '../../helpers/app.js';
import { eventually } from '../../helpers/wait.js';
import { createToken } from '../client-api/helpers.js';

const BASE = '/api/admin/projects/default/features';

async function stageOf(app: FastifyInstance, name: string): Promise<string> {
  return (await app.inject({ url: `${BASE}/${name}`, headers: ADMIN })).json().lifecycle.stage as string;
}

t.test('initial, then pre-live on any report, live on a report from production while on there', async (t) => {
  const app = await buildTestApp(t);
  for (const name of ['quiet', 'dev-only', 'prod-off', 'prod-on']) await send(app, 'POST', BASE, { name });
  await send(app, 'POST', `${BASE}/prod-on/environments/production/on`);
  t.equal(await stageOf(app, 'prod-on'), 'initial', 'turning on alone changes no stage');

  const report = async (environment: string, names: string[]) => {
    const token = await createToken(app, 'client', ['default'], environment);
    const toggles = Object.fromEntries(names.map((name) => [name, { yes: 1, no: 0 }]));
    const res = await app.inject({
      method: 'POST', url: '/api/client/metrics', headers: { authorization: token, 'content-type': 'application/json' },
      payload: { appName: 'shop', instanceId: 'i1', bucket: { start: new Date().toISOString(), stop: new Date().toISOString(), toggles } },
    });
    t.equal(res.statusCode, 202);
  };
  await report('development', ['dev-only']);
  await report('production', ['prod-off', 'prod-on']);
  t.ok(await eventually(async () => (await stageOf(app, 'prod-on')) === 'live', 5000), 'written after the report');
  t.ok(await eventually(async () => (await stageOf(app, 'dev-only')) === 'pre-live', 5000));
  t.equal(await stageOf(app, 'quiet'), 'initial');
  t.equal(await stageOf(app, 'dev-only'), 'pre-live');
  t.equal(await stageOf(app, 'prod-off'), 'pre-live', 'production, but off there');
  t.equal(await stageOf(app, 'prod-on'), 'live');
  t.same((await app.inject({ url: '/api/admin/lifecycle/count', headers: ADMIN })).json(), { initial: 1, preLive: 2, live: 1, completed: 0, archived: 0 });

  await report('development', ['prod-on']);
  await new Promise((resolve) => setTimeout(resolve, 200));
  t.equal(await stageOf(app, 'prod-on'), 'live', 'never back');
});

t.test('reviving a flag starts its lifecycle again, a flag that was never archived too (measured on Unleash 8.2)', async (t) => {
  const app = await buildTestApp(t);
  await send(app, 'POST', BASE, { name: 'done' });
  t.equal((await send(app, 'POST', `${BASE}/done/lifecycle/complete`, { status: 'discarded' })).statusCode, 200);
  t.equal(await stageOf(app, 'done'), 'completed');
  const before = Date.now();
  t.equal((await send(app, 'POST', '/api/admin/archive/revive/done')).statusCode, 200);
  const stages = (await app.inject({ url: `${BASE}/done/lifecycle`, headers: ADMIN })).json<Array<{ stage: string; enteredStageAt: string }>>();
  t.same(stages.map((s) => s.stage), ['initial'], 'the completed stage is gone');
  t.ok(Date.parse(stages[0]!.enteredStageAt) >= before - 1, 'initial entered at the revive');
});

t.test('a report naming more flags than one commit holds moves every one of them, in few commits', async (t) => {
  const app = await buildTestApp(t);
  const names = Array.from({ length: 150 }, (_, i) => `many.${i}`);
  for (const name of names) await send(app, 'POST', BASE, { name });
  const token = await createToken(app, 'client', ['default'], 'development');
  const sdkBefore = await app.sdkStates.get();
  const before = await app.database.db.collection('commits').countDocuments({});
  const toggles = Object.fromEntries(names.map((name) => [name, { yes: 1, no: 0 }]));
  const res = await app.inject({
    method: 'POST', url: '/api/client/metrics', headers: { authorization: token, 'content-type': 'application/json' },
    payload: { appName: 'shop', instanceId: 'i1', bucket: { start: new Date().toISOString(), stop: new Date().toISOString(), toggles } },
  });
  t.equal(res.statusCode, 202);
  t.ok(await eventually(async () => (await app.inject({ url: '/api/admin/lifecycle/count', headers: ADMIN })).json().preLive === 150, 10_000), 'all 150 pre-live');
  for (const name of ['many.0', 'many.15', 'many.16', 'many.149']) t.equal(await stageOf(app, name), 'pre-live', name);
  const written = (await app.database.db.collection('commits').countDocuments({})) - before;
  t.equal(written, 10, 'commits of at most 16 flags: nine of 16, one of 6');
  const sdkAfter = await app.sdkStates.get();
  t.not(sdkAfter.build, sdkBefore.build, 'the SDK state was rebuilt for the commits');
  t.ok(sdkAfter.flags.length === 150 && sdkAfter.flags.every((flag, i) => flag === sdkBefore.flags[i]), 'with the same flags: a lifecycle is nothing an SDK or an evaluation reads');
  t.same(sdkAfter.changes, { flags: [], removedFlags: [], segments: [], removedSegments: [], order: undefined }, 'nothing to compile or ship');
});
