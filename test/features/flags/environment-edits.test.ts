import t from 'tap';
import { buildTestApp, send } from '../../helpers/app.js';
import { asPerson, roleCookies } from '../../helpers/sessions.js';
import { expectRecordedSteps, fixture, PEER_ENV } from '../../helpers/samples.js';
import type { RecordedSteps } from '../../../tools/difftest/recorded-steps.js';

const BASE = '/api/admin/projects/default/features';
const recorded = fixture('flag-environments/reference.json') as RecordedSteps;

t.test('one environment, parents, sort order and strategy patches as Unleash 8.2 answers them (recorded)', async (t) => {
  const app = await buildTestApp(t, PEER_ENV);
  // A strategy out of another flag or project: Unleash answers 403 without a body, Vane with the PUT's InvalidOperationError (D1).
  await expectRecordedSteps(t, app, recorded.steps, { emptyErrorAs: 'InvalidOperationError' });
});

t.test('who may: Viewers read, Editors and admin tokens change, client and frontend tokens get 403 (measured on the reference)', async (t) => {
  const app = await buildTestApp(t);
  const { viewer, editor } = await roleCookies(app);
  t.equal((await send(app, 'POST', BASE, { name: 'who.flag' })).statusCode, 201);
  const added = await send(app, 'POST', `${BASE}/who.flag/environments/development/strategies`, { name: 'default' });
  const strategy = `${BASE}/who.flag/environments/development/strategies/${added.json().id}`;
  const order = `${BASE}/who.flag/environments/development/strategies/set-sort-order`;
  const reads = [`${BASE}/who.flag/environments/development`, `${BASE}/who.flag/parents`];
  const writes: Array<[string, string, unknown]> = [['PATCH', strategy, [{ op: 'replace', path: '/title', value: 't' }]], ['POST', order, [{ id: added.json().id, sortOrder: 1 }]]];

  for (const url of reads) t.equal((await app.inject({ method: 'GET', url, headers: { cookie: viewer } })).statusCode, 200, url);
  for (const [method, url, payload] of writes) {
    const refused = await app.inject({ method: method as never, url, headers: asPerson(viewer), payload: JSON.stringify(payload) });
    t.equal(refused.statusCode, 403, url);
    t.equal(refused.json().message, 'You don\'t have the required permissions to perform this operation. To perform this action, you need the "UPDATE_FEATURE_STRATEGY" permission.');
    t.equal((await app.inject({ method: method as never, url, headers: asPerson(editor), payload: JSON.stringify(payload) })).statusCode, 200, url);
  }
  for (const type of ['client', 'frontend']) {
    const token = await send(app, 'POST', '/api/admin/api-tokens', { tokenName: `who-${type}`, type, environment: 'development' });
    const headers = { authorization: token.json().secret as string, 'content-type': 'application/json' };
    const calls: Array<[string, string, unknown]> = [...reads.map((url): [string, string, unknown] => ['GET', url, undefined]), ...writes];
    for (const [method, url, payload] of calls) {
      const refused = await app.inject({ method: method as never, url, headers, ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }) });
      t.equal(refused.statusCode, 403, `${type} ${url}`);
      t.equal(refused.json().message, 'invalid token: expected a different token type for this endpoint');
    }
  }
});
