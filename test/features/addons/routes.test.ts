import t from 'tap';
import { buildTestApp, send } from '../../helpers/app.js';
import { expectRecordedSteps, fixture, PEER_ENV } from '../../helpers/samples.js';
import type { RecordedSteps } from '../../../tools/difftest/recorded-steps.js';

const recorded = fixture('addons/reference.json') as RecordedSteps;

t.test('addon configurations as Unleash 8.2 answers them: CRUD, validation and events (recorded)', async (t) => {
  const app = await buildTestApp(t, PEER_ENV);
  await expectRecordedSteps(t, app, recorded.steps);
});

t.test('a URL Vane cannot parse, and an id that is no integer, are 400s naming them (D10; Unleash answers 500)', async (t) => {
  const app = await buildTestApp(t);
  const bad = await send(app, 'POST', '/api/admin/addons', { provider: 'webhook', enabled: true, parameters: { url: 'not a url' }, events: [] });
  t.equal(bad.statusCode, 400);
  t.same(bad.json().details, [{ message: 'Invalid URL' }]);
  t.equal((await app.inject({ method: 'GET', url: '/api/admin/addons/abc', headers: { authorization: '*:*.test-admin-token' } })).statusCode, 400);
  const log = await app.inject({ method: 'GET', url: '/api/admin/addons/1.5/events', headers: { authorization: '*:*.test-admin-token' } });
  t.equal(log.statusCode, 400);
  t.equal(log.json().message, 'Request validation failed: your request body or params contain invalid data: Invalid integration configuration id');
});

t.test('a deleted configuration\'s id is not given again (Unleash\'s serial)', async (t) => {
  const app = await buildTestApp(t);
  const body = { provider: 'webhook', enabled: true, parameters: { url: 'http://93.184.216.34/' }, events: [] };
  const first = (await send(app, 'POST', '/api/admin/addons', body)).json().id as number;
  t.equal((await send(app, 'DELETE', `/api/admin/addons/${first}`)).statusCode, 200);
  t.equal((await send(app, 'POST', '/api/admin/addons', body)).json().id, first + 1);
});
