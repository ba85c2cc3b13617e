import t from 'tap';
import { buildTestApp, send } from '../../helpers/app.js';
import { asPerson, roleCookies } from '../../helpers/sessions.js';
import { expectRecordedSteps, fixture, PEER_ENV } from '../../helpers/samples.js';
import type { RecordedSteps } from '../../../tools/difftest/recorded-steps.js';

const BASE = '/api/admin/projects/default/features';

t.test('a flag\'s lifecycle list and completion as Unleash 8.2 answers them (recorded)', async (t) => {
  const app = await buildTestApp(t, PEER_ENV);
  // The reference had this tag from an earlier recording (its tagging recorded no tag-created).
  const tag = await app.inject({
    method: 'POST', url: '/api/admin/tags', payload: JSON.stringify({ type: 'simple', value: 'lc-tag' }),
    headers: { authorization: PEER_ENV.INIT_ADMIN_API_TOKENS, 'content-type': 'application/json' },
  });
  t.equal(tag.statusCode, 201);
  await expectRecordedSteps(t, app, (fixture('flag-lifecycle/reference.json') as RecordedSteps).steps.map(({ settleMs: _s, ...step }) => step));
});

t.test('SDK metrics enter pre-live and live once each; a completed flag stays completed; the search shows the stage', async (t) => {
  const app = await buildTestApp(t);
  t.equal((await send(app, 'POST', BASE, { name: 'lc.metrics' })).statusCode, 201);
  t.equal((await send(app, 'POST', `${BASE}/lc.metrics/environments/production/on`)).statusCode, 200);
  t.equal((await send(app, 'POST', `${BASE}/lc.metrics/lifecycle/complete`, { status: 'kept' })).statusCode, 200);
  const token = (await send(app, 'POST', '/api/admin/api-tokens', { tokenName: 'lc-sdk', type: 'client', environment: 'production' })).json().secret as string;
  const report = {
    appName: 'lc-app', instanceId: 'i1',
    bucket: { start: new Date(Date.now() - 1000).toISOString(), stop: new Date().toISOString(), toggles: { 'lc.metrics': { yes: 1, no: 0 } } },
  };
  const sent = await app.inject({ method: 'POST', url: '/api/client/metrics', headers: { authorization: token, 'content-type': 'application/json' }, payload: JSON.stringify(report) });
  t.ok(sent.statusCode < 300, `metrics accepted (${sent.statusCode})`);
  let stages: string[] = [];
  for (let i = 0; i < 50 && stages.length < 4; i++) {
    stages = (await send(app, 'GET', `${BASE}/lc.metrics/lifecycle`)).json().map((s: { stage: string }) => s.stage);
    if (stages.length < 4) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  t.same(stages, ['initial', 'completed', 'pre-live', 'live']);
  t.same((await send(app, 'GET', `${BASE}/lc.metrics`)).json().lifecycle.stage, 'completed');
});

t.test('who may: Viewers read, Editors complete; client tokens are refused', async (t) => {
  const app = await buildTestApp(t);
  const { viewer, editor } = await roleCookies(app);
  t.equal((await send(app, 'POST', BASE, { name: 'lc.who' })).statusCode, 201);
  t.equal((await app.inject({ method: 'GET', url: `${BASE}/lc.who/lifecycle`, headers: { cookie: viewer } })).statusCode, 200);
  for (const [suffix, payload] of [['complete', { status: 'kept' }], ['uncomplete', undefined]] as const) {
    const url = `${BASE}/lc.who/lifecycle/${suffix}`;
    const body = payload === undefined ? {} : { payload: JSON.stringify(payload) };
    t.equal((await app.inject({ method: 'POST', url, headers: asPerson(viewer), ...body })).statusCode, 403, suffix);
    t.equal((await app.inject({ method: 'POST', url, headers: asPerson(editor), ...body })).statusCode, 200, suffix);
  }
});
