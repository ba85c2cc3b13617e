/**
 * Webhook deliveries, to a real HTTP receiver on loopback (allowed by ADDON_ALLOW_PRIVATE_URLS):
 * what is sent and listed as the reference sends and lists it (test/fixtures/addons/deliveries.json,
 * tools/difftest/record-webhooks.ts), the filters, order, retries after a 500 and a timeout, a
 * receiver down while writers write, two instances on one database, and the refusal of private
 * addresses by default.
 */
import t, { type Test } from 'tap';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { ADMIN, buildTestApp, dropDatabase, JSON_ADMIN, send, testConfig } from '../../helpers/app.js';
import { fixture, PEER_ENV } from '../../helpers/samples.js';
import { eventually } from '../../helpers/wait.js';
import { normaliseDelivery, SCENARIO_WRITES, scenarioAddons, startReceiver, type Received, type Receiver } from '../../../tools/difftest/webhooks.js';

interface Recorded {
  received: Array<{ path: string; headers: Record<string, string>; body: string }>;
  integrationEvents: Array<Array<Record<string, unknown>>>;
}
const recorded = fixture('addons/deliveries.json') as Recorded;

const FAST = {
  ADDON_ALLOW_PRIVATE_URLS: 'true', ADDON_DELIVERY_TIMEOUT_MS: '400', ADDON_DELIVERY_BACKOFF_MS: '100', ADDON_DELIVERY_MAX_BACKOFF_MS: '800',
};

async function receiverFor(t: Test): Promise<Receiver> {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  return receiver;
}

async function createAddon(app: FastifyInstance, body: Record<string, unknown>): Promise<number> {
  const res = await send(app, 'POST', '/api/admin/addons', body);
  if (res.statusCode !== 201) throw new Error(res.body);
  return res.json().id as number;
}

async function deliveryLog(app: FastifyInstance, id: number, headers: Record<string, string> = ADMIN): Promise<Array<Record<string, unknown>>> {
  return (await app.inject({ method: 'GET', url: `/api/admin/addons/${id}/events?limit=100`, headers })).json().integrationEvents;
}

function withoutId(entries: Array<Record<string, unknown>>): unknown[] {
  return entries.map(({ id: _id, ...rest }) => rest);
}

async function createFlag(app: FastifyInstance, name: string): Promise<number> {
  const started = performance.now();
  const res = await send(app, 'POST', '/api/admin/projects/default/features', { name });
  if (res.statusCode !== 201) throw new Error(res.body);
  return performance.now() - started;
}

/** The names of the flags whose feature-created a path received, in order. */
function createdFlags(received: Received[], path: string): string[] {
  return received.filter((r) => r.path === path).map((r) => (JSON.parse(r.body) as { featureName: string }).featureName);
}

t.test('sent and listed as Unleash 8.2 sends and lists them: body, template, headers, filters, states (recorded)', async (t) => {
  // The reference's admin token name: the events name their creator as the reference's do.
  const app = await buildTestApp(t, { ...PEER_ENV, ...FAST, ADDON_DELIVERY_ATTEMPTS: '3' });
  const as = { authorization: PEER_ENV.INIT_ADMIN_API_TOKENS };
  const receiver = await receiverFor(t);
  const ids = [];
  for (const addon of scenarioAddons(receiver.url)) {
    ids.push((await app.inject({ method: 'POST', url: '/api/admin/addons', headers: { ...as, 'content-type': 'application/json' }, payload: addon })).json().id as number);
  }
  const flag = 'hook-vane';
  for (const [method, path, body] of SCENARIO_WRITES) {
    const payload = body === undefined ? undefined : JSON.stringify(body).replace('{flag}', flag);
    const headers = payload === undefined ? as : { ...as, 'content-type': 'application/json' };
    t.ok((await app.inject({ method: method as never, url: path.replace('{flag}', flag), headers, ...(payload === undefined ? {} : { payload }) })).statusCode < 300, path);
  }
  // The reference tried /fail once; Vane three times (docs/rules.md §11.3).
  t.ok(await eventually(() => receiver.received.length >= recorded.received.length + 2, 15_000), 'every request arrived');
  const toUnleash = (r: Received) => ({ path: r.path, headers: r.headers, body: normaliseDelivery(r.body, flag) });
  for (const path of new Set(recorded.received.map((r) => r.path))) {
    const expected = recorded.received.filter((r) => r.path === path);
    t.same(receiver.received.filter((r) => r.path === path).slice(0, expected.length).map(toUnleash), expected, `${path}: what was sent`);
  }
  t.same(receiver.received.filter((r) => ['/other-project', '/production', '/disabled'].includes(r.path)), [], 'the filters and the disabled one hold');
  for (const [index, id] of ids.entries()) {
    const listed = (normaliseDelivery(await deliveryLog(app, id, as), flag) as Array<Record<string, unknown>>)
      .map((entry) => JSON.parse(JSON.stringify(entry).replaceAll(receiver.url, '{receiver}')) as Record<string, unknown>);
    const expected = recorded.integrationEvents[index]!;
    if (JSON.stringify(scenarioAddons('')[index]).includes('/fail')) {
      t.equal(listed.length, 3, 'a 500 is tried three times, each attempt listed');
      t.same(withoutId(listed.slice(-1)), withoutId(expected), 'the first attempt is listed as Unleash lists its one');
    } else {
      t.same(withoutId(listed), withoutId(expected), `configuration ${index}: the delivery log`);
    }
  }
});

t.test('in order per configuration; retried after a 500 and after a timeout, each attempt listed', async (t) => {
  const app = await buildTestApp(t, { ...FAST, ADDON_DELIVERY_ATTEMPTS: '5' });
  const receiver = await receiverFor(t);
  let calls = 0;
  // The first request answers 500, the second never answers (timed out at 400 ms), the rest 200.
  receiver.answer = () => (++calls === 1 ? 500 : calls === 2 ? 'hang' : 200);
  const id = await createAddon(app, { provider: 'webhook', enabled: true, parameters: { url: `${receiver.url}/ordered` }, events: ['feature-created'] });
  const names = Array.from({ length: 6 }, (_, i) => `ordered-${i}`);
  for (const name of names) await createFlag(app, name);
  t.ok(await eventually(() => new Set(createdFlags(receiver.received, '/ordered')).size === names.length, 15_000), 'all delivered');
  t.same(createdFlags(receiver.received, '/ordered'), [names[0], names[0], names[0], ...names.slice(1)], 'the first event three times, then each once, in order');
  // An attempt is listed once its answer is in, which may be after the receiver saw the request.
  let log = await deliveryLog(app, id);
  t.ok(await eventually(async () => (log = await deliveryLog(app, id)).length === names.length + 2), 'each attempt listed');
  t.same(log.slice(-3).reverse().map((e) => [e.state, e.stateDetails]), [
    ['failed', 'Webhook request failed with status code: 500.'],
    ['failed', 'Webhook request failed: no answer within 400 ms.'],
    ['success', 'Webhook request was successful with status code: 200.'],
  ]);
});

t.test('a receiver down for 12 s while writers write: every event delivered once it is back, writes as fast as before', async (t) => {
  const app = await buildTestApp(t, { ...FAST, ADDON_DELIVERY_ATTEMPTS: '100' });
  let receiver = await startReceiver();
  const port = Number(new URL(receiver.url).port);
  // Warm-up writes first (an app's first requests are slower): not delivered, made before the configuration.
  for (let i = 0; i < 10; i++) await createFlag(app, `warm-${i}`);
  await createAddon(app, { provider: 'webhook', enabled: true, parameters: { url: `${receiver.url}/down` }, events: ['feature-created'] });
  const latency = async (prefix: string, count: number, spreadMs: number) => {
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      times.push(await createFlag(app, `${prefix}-${i}`));
      await new Promise((r) => setTimeout(r, spreadMs));
    }
    return times.sort((a, b) => a - b);
  };
  const before = await latency('up', 20, 50);
  t.ok(await eventually(() => createdFlags(receiver.received, '/down').length === 20, 10_000), 'delivered while up');
  await receiver.close();
  const outageStarted = Date.now();
  const during = await latency('down', 40, 250);
  await new Promise((r) => setTimeout(r, Math.max(0, 12_000 - (Date.now() - outageStarted))));
  const earlier = receiver.received;
  receiver = await startReceiver(port);
  t.teardown(() => receiver.close());
  t.ok(await eventually(() => createdFlags(receiver.received, '/down').length >= 40, 20_000), 'delivered once back');
  const names = [...createdFlags(earlier, '/down'), ...createdFlags(receiver.received, '/down')];
  t.same(names, [...Array.from({ length: 20 }, (_, i) => `up-${i}`), ...Array.from({ length: 40 }, (_, i) => `down-${i}`)], 'each once, in order');
  const p = (xs: number[], q: number) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
  t.comment(`write latency (ms) receiver up p50 ${p(before, 0.5).toFixed(1)} p90 ${p(before, 0.9).toFixed(1)}; `
    + `receiver down p50 ${p(during, 0.5).toFixed(1)} p90 ${p(during, 0.9).toFixed(1)} max ${during[during.length - 1]!.toFixed(1)}`);
  t.ok(p(during, 0.5) < p(before, 0.5) * 2 + 20, 'the median write is not slowed by the receiver being down');
});

t.test('two instances on one database: each event delivered once, by one of them; the other takes over when it stops', async (t) => {
  const config = await testConfig(t, { ...FAST, REVISION_POLL_MS: '50' });
  const apps = [await buildApp(config, { logger: false }), await buildApp(config, { logger: false })];
  t.teardown(async () => {
    for (const app of apps) await app.close().catch(() => undefined);
    await dropDatabase(config);
  });
  const receiver = await receiverFor(t);
  await createAddon(apps[0]!, { provider: 'webhook', enabled: true, parameters: { url: `${receiver.url}/shared` }, events: ['feature-created'] });
  for (let i = 0; i < 10; i++) await createFlag(apps[i % 2]!, `shared-${i}`);
  t.ok(await eventually(() => createdFlags(receiver.received, '/shared').length >= 10, 15_000), 'delivered');
  await new Promise((r) => setTimeout(r, 1000));
  t.same(createdFlags(receiver.received, '/shared'), Array.from({ length: 10 }, (_, i) => `shared-${i}`), 'each once, in order');
  // One stops (holding the lease or not): the other delivers what comes next, from where deliveries were.
  await apps[0]!.close();
  for (let i = 10; i < 13; i++) await createFlag(apps[1]!, `shared-${i}`);
  t.ok(await eventually(() => createdFlags(receiver.received, '/shared').length >= 13, 25_000), 'delivered by the other');
  // A restart goes on from the delivery log's position.
  await apps[1]!.close();
  const restarted = await buildApp(config, { logger: false });
  apps.push(restarted);
  for (let i = 13; i < 16; i++) await createFlag(restarted, `shared-${i}`);
  t.ok(await eventually(() => createdFlags(receiver.received, '/shared').length >= 16, 25_000), 'delivered after a restart');
  await new Promise((r) => setTimeout(r, 1000));
  t.same(createdFlags(receiver.received, '/shared'), Array.from({ length: 16 }, (_, i) => `shared-${i}`), 'nothing twice, nothing skipped');
});

t.test('private and loopback addresses are refused by default, when saved', async (t) => {
  const app = await buildTestApp(t);
  const cases: Array<[string, string]> = [['http://127.0.0.1:9/x', '127.0.0.1'], ['http://10.0.0.1/x', '10.0.0.1'], ['http://[::1]/x', '::1']];
  for (const [url, address] of cases) {
    const res = await app.inject({
      method: 'POST', url: '/api/admin/addons', headers: JSON_ADMIN, payload: { provider: 'webhook', enabled: true, parameters: { url }, events: [] },
    });
    t.equal(res.statusCode, 400, url);
    t.same(res.json().details, [{ message: `URL resolves to a non-public address: ${address}` }], url);
  }
});
