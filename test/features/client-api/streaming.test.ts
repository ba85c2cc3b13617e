import { once } from 'node:events';
import { connect } from 'node:net';
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
    const res = await app.inject({ method: 'POST', url: `${BASE}/beta/environments/development/off`, headers: JSON_ADMIN });
    let acknowledged = performance.now();
    t.equal(res.statusCode, 200);
    await until(() => !sdk.isEnabled('beta'), 'beta off in the streaming SDK');
    t.comment(`streaming SDK had the change ${((await arrival) - acknowledged).toFixed(1)} ms after the acknowledgement`);
    arrival = updated();
    await app.inject({ method: 'POST', url: `${BASE}/beta/environments/development/on`, headers: JSON_ADMIN });
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
  await writer.database.outbox.settle();
  await reader.database.outbox.poll();
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
  // The poll the reader would run every REVISION_POLL_MS, run now: the interval itself is config.
  await reader.database.outbox.poll();
  const noticed = performance.now();
  await until(() => !sdk.isEnabled('beta'), 'beta off in the SDK streaming from the other instance');
  t.comment(`streaming SDK on the other instance had the change ${((await arrival) - noticed).toFixed(1)} ms after its revision poll`);
  t.pass('the change arrived by stream from the other instance');
});

/** A raw HTTP/1.1 SSE connection: everything received, as bytes, and a wait for a marker. */
function rawStream(base: string, token: string, headers: Record<string, string> = {}) {
  const url = new URL(base);
  const socket = connect({ host: url.hostname, port: Number(url.port) });
  let received = Buffer.alloc(0);
  const waiters: Array<() => void> = [];
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    for (const wake of waiters.splice(0)) wake();
  });
  const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  socket.write(`GET /api/client/streaming HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${token}\r\nAccept: text/event-stream\r\n${extra}\r\n`);
  return {
    socket,
    get text(): string { return received.toString('utf8'); },
    async waitFor(marker: string, ms = 5000): Promise<void> {
      const deadline = Date.now() + ms;
      while (!received.toString('utf8').includes(marker)) {
        if (Date.now() > deadline) throw new Error(`no ${JSON.stringify(marker)} within ${ms} ms; got ${JSON.stringify(received.toString('utf8').slice(0, 200))}`);
        await new Promise<void>((wake) => { waiters.push(wake); setTimeout(wake, 50); });
      }
    },
  };
}

/** The body of a chunked HTTP/1.1 response after its head, unframed. */
function unchunk(raw: string): string {
  let rest = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  let body = '';
  for (;;) {
    const eol = rest.indexOf('\r\n');
    if (eol < 0) return body;
    const size = parseInt(rest.slice(0, eol), 16);
    if (!(size > 0) || rest.length < eol + 2 + size + 2) return body;
    body += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
}

t.test('fan-out: one payload per token scope, the same chunk-framed bytes to every stream of it', async (t) => {
  const app = await buildTestApp(t);
  await seedReferenceConfiguration(app);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const scoped = await createToken(app, 'client', ['default']);
  const all = await createToken(app, 'client', ['*']);
  const streams = [rawStream(base, scoped), rawStream(base, scoped), rawStream(base, scoped), rawStream(base, all), rawStream(base, all)];
  t.teardown(() => { for (const s of streams) s.socket.destroy(); });
  for (const s of streams) await s.waitFor('event: unleash-connected');
  await until(() => app.sdkDelta.connected === 5, 'five streams registered');
  const res = await app.inject({ method: 'POST', url: `${BASE}/gamma/environments/development/on`, headers: JSON_ADMIN });
  t.equal(res.statusCode, 200);
  for (const s of streams) await s.waitFor('event: unleash-updated');
  const fanOut = app.sdkDelta.lastFanOut;
  t.ok(fanOut, 'the fan-out is recorded');
  t.equal(fanOut?.streams, 5);
  t.equal(fanOut?.payloads, 2, 'two token scopes: two serializations for five streams');
  t.ok(fanOut !== undefined && fanOut.issuedAt >= fanOut.startedAt && fanOut.startedAt >= fanOut.committedAt, 'committed ≤ started ≤ issued');
  const updates = streams.map((s) => {
    const body = unchunk(s.text);
    return body.slice(body.indexOf('event: unleash-updated'));
  });
  t.equal(new Set(updates.slice(0, 3)).size, 1, 'the streams of one scope got identical bytes');
  const event = JSON.parse(/^data: (.*)$/m.exec(updates[0]!)![1]!) as { events: Array<{ type: string; feature: { name: string; enabled: boolean } }> };
  t.same(event.events.map((e) => [e.type, e.feature.name, e.feature.enabled]), [['feature-updated', 'gamma', true]], 'the framing decodes to the event');
  const metrics = await app.inject({ method: 'GET', url: '/internal-backstage/prometheus' });
  t.match(metrics.body, /vane_sdk_stream_fanout_streams 5/);
  t.match(metrics.body, /vane_sdk_streams 5/);
});

t.test('a stream resumed with Last-Event-ID and nothing new is answered at once', async (t) => {
  const app = await buildTestApp(t);
  await seedReferenceConfiguration(app);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const token = await createToken(app, 'client');
  const first = rawStream(base, token);
  t.teardown(() => first.socket.destroy());
  await first.waitFor('event: unleash-connected');
  const id = /^id: (\d+)$/m.exec(unchunk(first.text))![1]!;
  const resumed = rawStream(base, token, { 'Last-Event-ID': id });
  t.teardown(() => resumed.socket.destroy());
  // Before: the head waited for the next event or the 15 s keep-alive, and SDKs time out first.
  await resumed.waitFor('HTTP/1.1 200', 2000);
  t.notOk(unchunk(resumed.text).includes('unleash-connected'), 'no hydration: the client is up to date');
  await app.inject({ method: 'POST', url: `${BASE}/gamma/environments/development/on`, headers: JSON_ADMIN });
  await resumed.waitFor('event: unleash-updated');
  t.pass('the resumed stream gets the next change');
});

t.test('a toggle recompiles only the toggled flag for the frontend API', async (t) => {
  const app = await buildTestApp(t);
  await seedReferenceConfiguration(app);
  const before = await app.sdkStates.get();
  await app.inject({ method: 'POST', url: `${BASE}/gamma/environments/development/on`, headers: JSON_ADMIN });
  const after = await app.sdkStates.get();
  t.not(after.build, before.build);
  t.equal(after.compiled.flags.get('alpha'), before.compiled.flags.get('alpha'), 'an unchanged flag keeps its compiled form');
  t.equal(after.compiled.flags.get('beta'), before.compiled.flags.get('beta'));
  t.not(after.compiled.flags.get('gamma'), before.compiled.flags.get('gamma'), 'the toggled flag is compiled again');
  t.same(after.compiled.ordered.map((f) => f.name), before.compiled.ordered.map((f) => f.name), 'same order');
  t.equal(after.compiled.segments.size, before.compiled.segments.size);
  await app.inject({ method: 'DELETE', url: `${BASE}/gamma`, headers: JSON_ADMIN });
  const archived = await app.sdkStates.get();
  t.notOk(archived.compiled.flags.has('gamma'), 'an archived flag leaves the compiled snapshot');
});
