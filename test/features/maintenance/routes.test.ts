/** Maintenance mode's switch and state, an Admin's, as Unleash 8.2 answers (test/fixtures/maintenance). */
import t from 'tap';
import { buildApp } from '../../../src/app.js';
import type { RecordedSteps } from '../../../tools/difftest/recorded-steps.js';
import { ADMIN, buildTestApp, dropDatabase, JSON_ADMIN, send, testConfig } from '../../helpers/app.js';
import { expectRecordedSteps, fixture, PEER_ENV } from '../../helpers/samples.js';
import { asPerson, roleCookies } from '../../helpers/sessions.js';
import { createToken } from '../client-api/helpers.js';

const MEASURED = fixture('maintenance/get.json');
const TOGGLES = fixture('maintenance/toggle.json') as RecordedSteps;

t.test('GET /api/admin/maintenance: off for Admins, refused to everyone else as Unleash refuses them', async (t) => {
  const app = await buildTestApp(t);
  const { viewer, editor } = await roleCookies(app);
  const callers: Record<string, Record<string, string>> = {
    admin: ADMIN, viewer: { cookie: viewer }, editor: { cookie: editor },
    client: { authorization: await createToken(app, 'client', ['*']) },
    frontend: { authorization: await createToken(app, 'frontend', ['*']) },
    anonymous: {},
  };
  for (const [who, headers] of Object.entries(callers)) {
    const res = await app.inject({ url: '/api/admin/maintenance', headers });
    t.equal(res.statusCode, MEASURED[who].status, who);
    // Unleash names a person's refusal PermissionError; Vane NoAccessError (docs/rules.md D1).
    const refusedPerson = who === 'viewer' || who === 'editor';
    t.match(res.json(), refusedPerson ? { name: 'NoAccessError', message: /UPDATE_MAINTENANCE_MODE/ } : MEASURED[who].response, who);
  }
  t.same((await app.inject({ url: '/api/admin/maintenance', headers: ADMIN })).json(), MEASURED.admin.response, 'exactly its state');
});

t.test('the switch stores the body as sent, answers it back and records setting events, as the reference did (recorded)', async (t) => {
  const app = await buildTestApp(t, PEER_ENV);
  await expectRecordedSteps(t, app, TOGGLES.steps);
});

t.test('only an Admin turns it on; a Viewer and an Editor get 403 and change nothing', async (t) => {
  const app = await buildTestApp(t);
  const { viewer, editor } = await roleCookies(app);
  for (const cookie of [viewer, editor]) {
    const res = await app.inject({ method: 'POST', url: '/api/admin/maintenance', headers: asPerson(cookie), payload: { enabled: true } });
    t.equal(res.statusCode, 403);
    t.match(res.json(), { name: 'NoAccessError', message: /UPDATE_MAINTENANCE_MODE/ });
  }
  t.same((await send(app, 'GET', '/api/admin/maintenance')).json(), { enabled: false });
});

t.test('the setting is a commit: another instance on the database sees it within a poll, and a restart keeps it', async (t) => {
  const config = await testConfig(t, { REVISION_POLL_MS: '50' });
  const first = await buildApp(config, { logger: false });
  const second = await buildApp(config, { logger: false });
  t.teardown(async () => {
    await first.close();
    await second.close();
    await dropDatabase(config);
  });
  const switched = await send(first, 'POST', '/api/admin/maintenance', { enabled: true });
  t.equal(switched.statusCode, 204, switched.body);
  // A new name per try: the other instance accepts writes until it has read the commit (a loaded
  // CI run once created the flag there first, and the write at the end then met a 409).
  let tries = 0;
  const refusedOn = async (app: typeof first) => {
    const res = await app.inject({ method: 'POST', url: '/api/admin/projects/default/features', headers: JSON_ADMIN, payload: { name: `mm-${tries++}` } });
    if (res.statusCode !== 503 && res.statusCode !== 201) t.comment(`unexpected ${res.statusCode} ${res.body}`);
    return res.statusCode;
  };
  t.equal(await refusedOn(first), 503, 'the writing instance refuses at once');
  const deadline = Date.now() + 5_000;
  while (await refusedOn(second) !== 503 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  t.equal(await refusedOn(second), 503, 'the other instance refuses once it has read the commit');
  await first.close();
  const restarted = await buildApp(config, { logger: false });
  t.teardown(async () => await restarted.close());
  t.same((await send(restarted, 'GET', '/api/admin/maintenance')).json(), { enabled: true }, 'a restart loads it');
  t.equal(await refusedOn(restarted), 503);
  t.equal((await send(restarted, 'POST', '/api/admin/maintenance', { enabled: false })).statusCode, 204, 'the switch itself stays open');
  t.equal(await refusedOn(restarted), 201);
});
