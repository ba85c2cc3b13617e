import t from 'tap';
import { buildTestApp, send } from '../../helpers/app.js';
import { asPerson, roleCookies } from '../../helpers/sessions.js';
import { expectRecordedSteps, fixture, PEER_ENV } from '../../helpers/samples.js';
import type { RecordedSteps } from '../../../tools/difftest/recorded-steps.js';

const steps = (fixture('project-environments/reference.json') as RecordedSteps).steps;
/** A flag of a project without environments: Unleash shows one environment of nulls, Vane none. */
const NO_ENVIRONMENTS = 24;
/** A default strategy for an environment not connected: Unleash 500, Vane 404 (D10, the next test). */
const UNCONNECTED = 18;

t.test('project environments as Unleash 8.2 answers them: connect, disconnect, default strategy (recorded)', async (t) => {
  t.match(steps[NO_ENVIRONMENTS], { method: 'GET', response: { environments: [{ name: null }] } });
  t.match(steps[UNCONNECTED], { path: /default-strategy$/, status: 500 });
  const app = await buildTestApp(t, PEER_ENV);
  await expectRecordedSteps(t, app, steps.filter((_step, index) => index !== NO_ENVIRONMENTS && index !== UNCONNECTED));
});

t.test('a flag of a project without environments has none; a default strategy needs a connected environment', async (t) => {
  const app = await buildTestApp(t);
  t.equal((await send(app, 'POST', '/api/admin/projects/default/features', { name: 'pe.none' })).statusCode, 201);
  for (const env of ['development', 'production']) t.equal((await send(app, 'DELETE', `/api/admin/projects/default/environments/${env}`)).statusCode, 200);
  t.same((await send(app, 'GET', '/api/admin/projects/default/features/pe.none')).json().environments, []);
  const res = await send(app, 'POST', '/api/admin/projects/default/environments/development/default-strategy', { name: 'flexibleRollout' });
  t.equal(res.statusCode, 404);
  t.match(res.json().message, /not connected/);
  t.equal((await send(app, 'POST', '/api/admin/projects/nope/environments/development/default-strategy', { name: 'flexibleRollout' })).statusCode, 404);
});

t.test('project environments: Editors may change them, Viewers may not', async (t) => {
  const app = await buildTestApp(t);
  const { viewer, editor } = await roleCookies(app);
  const url = '/api/admin/projects/default/environments/production';
  t.equal((await app.inject({ method: 'DELETE', url, headers: asPerson(viewer) })).statusCode, 403);
  t.equal((await app.inject({ method: 'DELETE', url, headers: asPerson(editor) })).statusCode, 200);
});

t.test('a default strategy without parameters gets a flexible rollout\'s defaults when a flag is turned on (differential tester, seed 5)', async (t) => {
  const app = await buildTestApp(t);
  const preset = { name: 'flexibleRollout', title: 't', constraints: [{ contextName: 'userId', operator: 'IN', values: ['1'] }] };
  t.equal((await send(app, 'POST', '/api/admin/projects/default/environments/development/default-strategy', preset)).statusCode, 200);
  await send(app, 'POST', '/api/admin/projects/default/features', { name: 'preset' });
  t.equal((await send(app, 'POST', '/api/admin/projects/default/features/preset/environments/development/on')).statusCode, 200);
  const [strategy] = (await send(app, 'GET', '/api/admin/projects/default/features/preset/environments/development/strategies')).json();
  t.match(strategy, { name: 'flexibleRollout', title: 't', parameters: { groupId: 'preset', rollout: '100', stickiness: 'default' }, constraints: [{ contextName: 'userId' }] });
});
