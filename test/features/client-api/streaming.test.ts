import { once } from 'node:events';
import t from 'tap';
import { InMemStorageProvider, Unleash } from 'unleash-client';
import { buildApp } from '../../../src/app.js';
import { buildTestApp, dropDatabase, JSON_ADMIN, testConfig } from '../../helpers/app.js';
import { createToken, seedReferenceConfiguration } from './helpers.js';

const BASE = '/api/admin/projects/default/features';

/** Resolves when `check` holds, polling every 10 ms (the assertion is on the outcome, not the time). */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`never happened: ${what}`);
}

t.test('streaming and delta, as the Node SDK consumes them', async (t) => {
  const app = await buildTestApp(t);
  await seedReferenceConfiguration(app);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const token = await createToken(app, 'client');
  const sdkOptions = {
    url: `${base}/api/`, customHeaders: { Authorization: token }, disableMetrics: true,
    skipInstanceCountWarning: true,
  };

  await t.test('delta: hydration, then the events since the ETag, then 304', async (t) => {
    const first = await app.inject({ method: 'GET', url: '/api/client/delta', headers: { authorization: token } });
    t.equal(first.statusCode, 200);
    const hydration = first.json().events[0];
    t.equal(hydration.type, 'hydration');
    t.same(hydration.features.map((f: { name: string }) => f.name).sort(), ['alpha', 'beta', 'gamma']);
    t.same(hydration.segments.map((s: { id: number }) => s.id), [1, 2]);
    const etag = first.headers.etag as string;
    t.equal(etag, `"${hydration.eventId}"`);
    t.equal((await app.inject({ method: 'GET', url: '/api/client/delta', headers: { authorization: token, 'if-none-match': etag } })).statusCode, 304);
    await app.inject({ method: 'POST', url: `${BASE}/gamma/environments/development/on`, headers: JSON_ADMIN });
    const next = await app.inject({ method: 'GET', url: '/api/client/delta', headers: { authorization: token, 'if-none-match': etag } });
    t.equal(next.statusCode, 200);
    t.same(next.json().events.map((e: { type: string; feature?: { name: string; enabled: boolean } }) => [e.type, e.feature?.name, e.feature?.enabled]), [['feature-updated', 'gamma', true]]);
    t.not(next.headers.etag, etag);
    const unknown = await app.inject({ method: 'GET', url: '/api/client/delta', headers: { authorization: token, 'if-none-match': '"12345"' } });
    t.equal(unknown.json().events[0].type, 'hydration', 'an id this instance does not know gets a full hydration');
  });

  await t.test('delta honours namePrefix and project like /api/client/features', async (t) => {
    const first = await app.inject({ method: 'GET', url: '/api/client/delta?namePrefix=ga', headers: { authorization: token } });
    t.same(first.json().events[0].features.map((f: { name: string }) => f.name), ['gamma']);
    const kept = await app.inject({ method: 'GET', url: '/api/client/delta?project=elsewhere', headers: { authorization: token } });
    t.equal(kept.json().events[0].features.length, 3, 'the token\'s projects win over the query\'s');
    const allProjects = await createToken(app, 'client', ['*']);
    const none = await app.inject({ method: 'GET', url: '/api/client/delta?project=elsewhere', headers: { authorization: allProjects } });
    t.same(none.json().events[0].features, [], 'an all-projects token keeps the query project');
    const etag = first.headers.etag as string;
    await app.inject({ method: 'POST', url: `${BASE}/alpha/environments/development/on`, headers: JSON_ADMIN });
    const outside = await app.inject({ method: 'GET', url: '/api/client/delta?namePrefix=ga', headers: { authorization: token, 'if-none-match': etag } });
    t.equal(outside.statusCode, 304, 'a change outside the prefix is not sent (nor sent as removed)');
    await app.inject({ method: 'POST', url: `${BASE}/alpha/environments/development/off`, headers: JSON_ADMIN });
  });

  await t.test('Node SDK in delta polling mode', async (t) => {
    const sdk = new Unleash({ ...sdkOptions, storageProvider: new InMemStorageProvider(), appName: 'delta-sdk', refreshInterval: 50, experimentalMode: { type: 'polling', format: 'delta' } });
    t.teardown(() => sdk.destroy());
    sdk.on('error', () => undefined);
    await once(sdk, 'synchronized');
    t.equal(sdk.isEnabled('beta'), true);
    await app.inject({ method: 'POST', url: `${BASE}/beta/environments/development/off`, headers: JSON_ADMIN });
    await until(() => !sdk.isEnabled('beta'), 'beta off in the delta SDK');
    t.pass('the change arrived by delta');
    await app.inject({ method: 'POST', url: `${BASE}/beta/environments/development/on`, headers: JSON_ADMIN });
  });

  await t.test('Node SDK in streaming mode sees a change without polling', async (t) => {
    const sdk = new Unleash({ ...sdkOptions, storageProvider: new InMemStorageProvider(), appName: 'stream-sdk', refreshInterval: 600_000, experimentalMode: { type: 'streaming' } });
    t.teardown(() => sdk.destroy());
    sdk.on('error', () => undefined);
    sdk.on('warn', () => undefined);
    await once(sdk, 'synchronized');
    await until(() => sdk.isEnabled('beta') && app.sdkDelta.connected === 1, 'hydrated over one stream');
    // Measured, not asserted: from the write's acknowledgement to the SDK's repository holding it.
    const updated = () => new Promise<number>((resolve) => sdk.once('changed', () => resolve(performance.now())));
    let arrival = updated();
    let res = await app.inject({ method: 'POST', url: `${BASE}/beta/environments/development/off`, headers: JSON_ADMIN });
    let acknowledged = performance.now();
    t.equal(res.statusCode, 200);
    await until(() => !sdk.isEnabled('beta'), 'beta off in the streaming SDK');
    t.comment(`streaming SDK had the change ${((await arrival) - acknowledged).toFixed(1)} ms after the acknowledgement`);
    arrival = updated();
    res = await app.inject({ method: 'POST', url: `${BASE}/beta/environments/development/on`, headers: JSON_ADMIN });
    acknowledged = performance.now();
    await until(() => sdk.isEnabled('beta'), 'beta on again');
    t.comment(`streaming SDK had the change ${((await arrival) - acknowledged).toFixed(1)} ms after the acknowledgement`);
    t.pass('changes arrived by stream');
  });
});

t.test('a write on another instance reaches a streaming SDK once its revision is noticed', async (t) => {
  const config = await testConfig(t, { REVISION_POLL_MS: '60000' });
  const writer = await buildApp(config, { logger: false });
  const reader = await buildApp(config, { logger: false });
  t.teardown(async () => {
    await reader.close();
    await writer.close();
    await dropDatabase(config);
  });
  await seedReferenceConfiguration(writer);
  const token = await createToken(writer, 'client');
  await writer.database.outbox.published();
  await reader.database.outbox.pollRevisions();
  const base = await reader.listen({ port: 0, host: '127.0.0.1' });
  const sdk = new Unleash({
    url: `${base}/api/`, customHeaders: { Authorization: token }, disableMetrics: true,
    skipInstanceCountWarning: true, storageProvider: new InMemStorageProvider(), appName: 'remote-stream-sdk',
    refreshInterval: 600_000, experimentalMode: { type: 'streaming' },
  });
  t.teardown(() => sdk.destroy());
  sdk.on('error', () => undefined);
  sdk.on('warn', () => undefined);
  await once(sdk, 'synchronized');
  await until(() => sdk.isEnabled('beta') && reader.sdkDelta.connected === 1, 'hydrated over one stream on the reader');
  const arrival = new Promise<number>((resolve) => sdk.once('changed', () => resolve(performance.now())));
  await writer.inject({ method: 'POST', url: `${BASE}/beta/environments/development/off`, headers: JSON_ADMIN });
  await writer.database.outbox.published();
  // The poll the reader would run every REVISION_POLL_MS, run now: the interval itself is config.
  await reader.database.outbox.pollRevisions();
  const noticed = performance.now();
  await until(() => !sdk.isEnabled('beta'), 'beta off in the SDK streaming from the other instance');
  t.comment(`streaming SDK on the other instance had the change ${((await arrival) - noticed).toFixed(1)} ms after its revision poll`);
  t.pass('the change arrived by stream from the other instance');
});
