/**
 * The official OpenFeature web SDK with the official OFREP web provider, unmodified, against a
 * listening Vane: over random configurations and contexts every boolean, string, number and object
 * evaluation is what the frontend API and the mapping (docs/rules.md §10) say; and a change on the
 * server reaches the provider through the event stream within a second.
 *
 * Node 20 has fetch but no EventSource: the `eventsource` package provides the browser's, as a
 * browser would, so the provider's own SSE code runs.
 */
import t from 'tap';
import { EventSource } from 'eventsource';
import { ErrorCode, OpenFeature, ProviderEvents, type Client, type EvaluationContext, type EvaluationDetails, type FlagValue, type JsonValue } from '@openfeature/web-sdk';
import { OFREPWebProvider } from '@openfeature/ofrep-web-provider';
import { buildTestApp, JSON_ADMIN } from '../../helpers/app.js';
import { createToken } from '../client-api/helpers.js';
import { clientFeatures, expectedEvaluations, Random, randomConfiguration, randomOfrepContext, type Expected, type Kind } from './helpers.js';

const DEFAULTS = { boolean: false, string: '<default>', number: -12345, object: { default: true } } as const;
type Getter = keyof typeof DEFAULTS;
const GETTER_OF: Record<Kind, Getter> = { boolean: 'boolean', string: 'string', variant: 'string', number: 'number', object: 'object' };

function details(client: Client, getter: Getter, key: string): EvaluationDetails<FlagValue> {
  switch (getter) {
    case 'boolean': return client.getBooleanDetails(key, DEFAULTS.boolean);
    case 'string': return client.getStringDetails(key, DEFAULTS.string);
    case 'number': return client.getNumberDetails(key, DEFAULTS.number);
    default: return client.getObjectDetails(key, DEFAULTS.object as JsonValue);
  }
}

/** What is wrong with one getter's answer for one flag, or undefined. */
function mismatch(got: EvaluationDetails<FlagValue>, expected: Expected, getter: Getter): string | undefined {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  if (expected.value === undefined) {
    // No variant for this context: no value, the code default, with the server's reason.
    if (!same(got.value, DEFAULTS[getter]) || got.errorCode !== undefined) return `code default expected, got ${JSON.stringify(got)}`;
  } else if (GETTER_OF[expected.kind] === getter) {
    if (!same(got.value, expected.value) || got.variant !== expected.variant || got.errorCode !== undefined) {
      return `expected ${JSON.stringify(expected)}, got ${JSON.stringify(got)}`;
    }
  } else if (got.errorCode !== ErrorCode.TYPE_MISMATCH || !same(got.value, DEFAULTS[getter])) {
    return `TYPE_MISMATCH expected for a ${expected.kind} flag, got ${JSON.stringify(got)}`;
  }
  if (got.errorCode === ErrorCode.TYPE_MISMATCH) return undefined;
  const reasonOk = expected.reason === 'MATCH' ? got.reason === 'TARGETING_MATCH' || got.reason === 'SPLIT' : got.reason === expected.reason;
  return reasonOk ? undefined : `reason ${expected.reason} expected, got ${got.reason}`;
}

t.test('OpenFeature web SDK + OFREP web provider', async (t) => {
  const app = await buildTestApp(t);
  const base = (await app.listen({ port: 0, host: '127.0.0.1' })).replace('[::1]', '127.0.0.1');
  t.teardown(() => OpenFeature.close());

  for (const [seed, projects] of [[27, ['*']], [2701, ['default']]] as const) {
    await t.test(`random configuration ${seed}, token for ${projects.join()}: every getter of every flag for 12 random contexts`, async (t) => {
      const db = await buildTestApp(t);
      const url = await db.listen({ port: 0, host: '127.0.0.1' });
      await randomConfiguration(url, seed);
      const frontend = await createToken(db, 'frontend', [...projects]);
      const features = await clientFeatures(db, await createToken(db, 'client', [...projects]));
      const provider = new OFREPWebProvider({ baseUrl: url, headers: [['Authorization', `Bearer ${frontend}`]], cacheMode: 'disabled', changeDetection: 'none' });
      const domain = `seed-${seed}`;
      await OpenFeature.setProviderAndWait(domain, provider);
      const client = OpenFeature.getClient(domain);
      const random = new Random(seed);
      const kinds = new Set<Kind>();
      let evaluations = 0;
      for (let i = 0; i < 12; i++) {
        // As JSON: what the provider sends (the SDK's context type has no `unknown`).
        const context: EvaluationContext = JSON.parse(JSON.stringify(randomOfrepContext(random)));
        await OpenFeature.setContext(domain, context);
        const expected = await expectedEvaluations(db, frontend, features, context);
        t.same(Object.keys(provider.flagCache).sort(), [...expected.keys()].sort(), `context ${i}: the same flags as /api/frontend/all`);
        const wrong: string[] = [];
        for (const [key, want] of expected) {
          kinds.add(want.kind);
          for (const getter of Object.keys(DEFAULTS) as Getter[]) {
            evaluations++;
            const problem = mismatch(details(client, getter, key), want, getter);
            if (problem) wrong.push(`${key} ${getter}: ${problem}`);
          }
        }
        t.same(wrong, [], `context ${i} ${JSON.stringify(context)}`);
      }
      t.ok(evaluations >= 12 * 20 * 4, `${evaluations} evaluations`);
      t.same([...kinds].sort(), ['boolean', 'number', 'object', 'string', 'variant'], 'every value type occurred');
      const missing = client.getBooleanDetails('no-such-flag', true);
      t.equal(missing.errorCode, 'FLAG_NOT_FOUND');
      t.equal(missing.value, true);
    });
  }

  await t.test('a change on the server reaches the provider through the event stream within 1 s', async (t) => {
    (globalThis as { EventSource?: unknown }).EventSource = EventSource;
    t.teardown(() => { delete (globalThis as { EventSource?: unknown }).EventSource; });
    const flags = '/api/admin/projects/default/features';
    for (const path of [flags, `${flags}/live/environments/development/strategies`]) {
      const res = await app.inject({ method: 'POST', url: path, headers: JSON_ADMIN, payload: path === flags ? { name: 'live' } : { name: 'default', parameters: {} } });
      t.ok(res.statusCode < 300, path);
    }
    const frontend = await createToken(app, 'frontend');
    const provider = new OFREPWebProvider({ baseUrl: base, headers: [['X-API-Key', frontend]], cacheMode: 'disabled' });
    await OpenFeature.setContext('live', { targetingKey: 'u1' });
    await OpenFeature.setProviderAndWait('live', provider);
    const client = OpenFeature.getClient('live');
    t.equal(client.getBooleanValue('live', true), false, 'off at first');
    const connected = Date.now();
    while (app.ofrep.streams.connected === 0 && Date.now() - connected < 5000) await new Promise((r) => setTimeout(r, 10));
    t.equal(app.ofrep.streams.connected, 1, 'the provider opened the event stream from eventStreams');

    for (const [turn, want] of [['on', true], ['off', false]] as const) {
      const changed = new Promise<number>((resolve) => {
        const handler = () => {
          if (client.getBooleanValue('live', !want) !== want) return;
          client.removeHandler(ProviderEvents.ConfigurationChanged, handler);
          resolve(Date.now());
        };
        client.addHandler(ProviderEvents.ConfigurationChanged, handler);
      });
      const started = Date.now();
      const res = await app.inject({ method: 'POST', url: `${flags}/live/environments/development/${turn}`, headers: JSON_ADMIN });
      t.equal(res.statusCode, 200);
      const arrived = await Promise.race([changed, new Promise<number>((r) => setTimeout(() => r(Infinity), 3000))]);
      t.ok(arrived - started < 1000, `turned ${turn}: the provider had it after ${arrived - started} ms`);
    }
    await OpenFeature.clearProviders();
  });
});
