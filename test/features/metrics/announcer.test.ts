/**
 * `application-created` as Unleash 8.2 records it (measured on the reference: its announce job, one
 * event per new application, by the system user, the application as it then is), once per
 * application with two instances announcing on one database at once.
 */
import t from 'tap';
import { buildApp } from '../../../src/app.js';
import { ADMIN, JSON_ADMIN, dropDatabase, send, testConfig } from '../../helpers/app.js';
import { eventually } from '../../helpers/wait.js';
import { createToken } from '../client-api/helpers.js';

interface Announced { type: string; createdBy: string; createdByUserId: number; data: Record<string, unknown> }

t.test('new applications are announced once, by the system user, by whichever instance runs first', async (t) => {
  // Both instances run the job every 50 ms: their runs overlap again and again.
  const config = await testConfig(t, { APPLICATION_ANNOUNCE_MS: '50' });
  const [one, two] = [await buildApp(config, { logger: false }), await buildApp(config, { logger: false })];
  t.teardown(async () => {
    await one.close();
    await two.close();
    await dropDatabase(config);
  });
  const token = await createToken(one, 'client');
  const register = await one.inject({
    method: 'POST', url: '/api/client/register', headers: { authorization: token, 'content-type': 'application/json' },
    payload: { appName: 'shop', instanceId: 'i1', strategies: ['default', 'flexibleRollout'], started: new Date().toISOString(), interval: 10000 },
  });
  t.equal(register.statusCode, 202);
  const made = await two.inject({
    method: 'POST', url: '/api/admin/metrics/applications/made', headers: JSON_ADMIN,
    payload: { description: 'by hand', url: 'https://made.example.com', color: 'red', icon: 'bug' },
  });
  t.equal(made.statusCode, 202);

  const announcedOn = async (app: typeof one) =>
    (await app.inject({ url: '/api/admin/search/events?type=IS:application-created', headers: ADMIN })).json<{ events: Announced[] }>().events;
  t.ok(await eventually(async () => (await announcedOn(one)).length >= 2, 10_000), 'both announced');
  await new Promise((resolve) => setTimeout(resolve, 500)); // ten more runs on each instance
  for (const app of [one, two]) {
    const events = (await announcedOn(app)).sort((a, b) => String(a.data.appName).localeCompare(String(b.data.appName)));
    t.same(events.map((e) => [e.data.appName, e.createdBy, e.createdByUserId]), [['made', 'unleash_system_user', -1337], ['shop', 'unleash_system_user', -1337]], 'once each');
    t.same(Object.keys(events[0]!.data), ['appName', 'createdAt', 'updatedAt', 'description', 'strategies', 'createdBy', 'url', 'color', 'icon'], 'keys in Unleash\'s order');
    t.match(events[0]!.data, { description: 'by hand', url: 'https://made.example.com', color: 'red', icon: 'bug', strategies: [], createdBy: null });
    t.match(events[1]!.data, { description: null, strategies: ['default', 'flexibleRollout'], createdBy: null, url: null });
  }

  // Deleted and seen again: a new application, announced again.
  t.equal((await send(one, 'DELETE', '/api/admin/metrics/applications/made')).statusCode, 200);
  t.equal((await two.inject({ method: 'POST', url: '/api/admin/metrics/applications/made', headers: JSON_ADMIN, payload: { description: 'again' } })).statusCode, 202);
  t.ok(await eventually(async () => (await announcedOn(two)).some((e) => e.data.description === 'again'), 10_000), 'announced again');
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.equal((await announcedOn(one)).length, 3);
});
