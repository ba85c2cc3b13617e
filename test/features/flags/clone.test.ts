import t from 'tap';
import { buildTestApp, send } from '../../helpers/app.js';
import { asPerson, roleCookies } from '../../helpers/sessions.js';
import { expectRecordedSteps, fixture, PEER_ENV } from '../../helpers/samples.js';
import type { RecordedSteps } from '../../../tools/difftest/recorded-steps.js';

const BASE = '/api/admin/projects/default/features';

t.test('cloning a flag as Unleash 8.2 does (recorded; its events after feature-created compared as a set)', async (t) => {
  const app = await buildTestApp(t, PEER_ENV);
  await expectRecordedSteps(t, app, (fixture('flag-clone/reference.json') as RecordedSteps).steps, { unorderedEvents: /\/clone$/ });
});

t.test('a clone is one write: its strategies have new ids and it is off everywhere; Viewers may not clone', async (t) => {
  const app = await buildTestApp(t);
  const { viewer } = await roleCookies(app);
  t.equal((await send(app, 'POST', BASE, { name: 'cl.one' })).statusCode, 201);
  const added = (await send(app, 'POST', `${BASE}/cl.one/environments/development/strategies`, { name: 'default' })).json();
  t.equal((await send(app, 'POST', `${BASE}/cl.one/environments/development/on`)).statusCode, 200);
  const refused = await app.inject({ method: 'POST', url: `${BASE}/cl.one/clone`, headers: asPerson(viewer), payload: JSON.stringify({ name: 'cl.two' }) });
  t.equal(refused.statusCode, 403);
  t.equal((await send(app, 'POST', `${BASE}/cl.one/clone`, { name: 'cl.two' })).statusCode, 201);
  const copy = (await send(app, 'GET', `${BASE}/cl.two`)).json();
  const development = copy.environments.find((e: { name: string }) => e.name === 'development');
  t.equal(development.enabled, false);
  t.equal(development.strategies.length, 1);
  t.not(development.strategies[0].id, added.id);
});
