/**
 * The official OpenFeature server SDK with the official OFREP server provider (@openfeature/
 * ofrep-provider 0.1.3, the newest published), unmodified: one request per evaluation to
 * `/ofrep/v1/evaluate/flags/{key}`, over a random configuration and random contexts, compared with
 * the frontend API and the mapping (docs/rules.md §10).
 *
 * That provider predates OFREP's code-default answer (a success without `value`, ADR-0006): it
 * reports such an answer as a GENERAL error, still with the caller's default value, which is what
 * a newer provider returns without the error. Checked here as it is.
 */
import t from 'tap';
import { ErrorCode, OpenFeature, type Client, type EvaluationContext, type EvaluationDetails, type FlagValue, type JsonValue } from '@openfeature/server-sdk';
import { OFREPProvider } from '@openfeature/ofrep-provider';
import { buildTestApp } from '../../helpers/app.js';
import { createToken } from '../client-api/helpers.js';
import { clientFeatures, expectedEvaluations, Random, randomConfiguration, randomOfrepContext, type Expected, type Kind } from './helpers.js';

const DEFAULTS = { boolean: true, string: '<default>', number: -1, object: { default: 1 } } as const;
type Getter = keyof typeof DEFAULTS;
const GETTER_OF: Record<Kind, Getter> = { boolean: 'boolean', string: 'string', variant: 'string', number: 'number', object: 'object' };

async function details(client: Client, getter: Getter, key: string, context: EvaluationContext): Promise<EvaluationDetails<FlagValue>> {
  switch (getter) {
    case 'boolean': return client.getBooleanDetails(key, DEFAULTS.boolean, context);
    case 'string': return client.getStringDetails(key, DEFAULTS.string, context);
    case 'number': return client.getNumberDetails(key, DEFAULTS.number, context);
    default: return client.getObjectDetails(key, DEFAULTS.object as JsonValue, context);
  }
}

function mismatch(got: EvaluationDetails<FlagValue>, expected: Expected, getter: Getter): string | undefined {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  if (expected.value === undefined) return same(got.value, DEFAULTS[getter]) ? undefined : `the default expected, got ${JSON.stringify(got)}`;
  if (GETTER_OF[expected.kind] !== getter) {
    return got.errorCode === ErrorCode.TYPE_MISMATCH && same(got.value, DEFAULTS[getter]) ? undefined : `TYPE_MISMATCH expected, got ${JSON.stringify(got)}`;
  }
  if (!same(got.value, expected.value) || got.variant !== expected.variant || got.errorCode !== undefined) {
    return `expected ${JSON.stringify(expected)}, got ${JSON.stringify(got)}`;
  }
  const reasonOk = expected.reason === 'MATCH' ? got.reason === 'TARGETING_MATCH' || got.reason === 'SPLIT' : got.reason === expected.reason;
  return reasonOk ? undefined : `reason ${expected.reason} expected, got ${got.reason}`;
}

t.test('OpenFeature server SDK + OFREP provider', async (t) => {
  const app = await buildTestApp(t);
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(() => OpenFeature.close());
  await randomConfiguration(url, 4242);
  const frontend = await createToken(app, 'frontend', ['*']);
  const features = await clientFeatures(app, await createToken(app, 'client', ['*']));
  await OpenFeature.setProviderAndWait(new OFREPProvider({ baseUrl: url, headers: [['X-API-Key', frontend]] }));
  const client = OpenFeature.getClient();
  const random = new Random(4242);

  await t.test('every getter of every flag for 6 random contexts', async (t) => {
    let evaluations = 0;
    for (let i = 0; i < 6; i++) {
      const context: EvaluationContext = JSON.parse(JSON.stringify(randomOfrepContext(random)));
      const expected = await expectedEvaluations(app, frontend, features, context);
      const wrong: string[] = [];
      for (const [key, want] of expected) {
        for (const getter of Object.keys(DEFAULTS) as Getter[]) {
          evaluations++;
          const problem = mismatch(await details(client, getter, key, context), want, getter);
          if (problem) wrong.push(`${key} ${getter}: ${problem}`);
        }
      }
      t.same(wrong, [], `context ${i} ${JSON.stringify(context)}`);
    }
    t.ok(evaluations >= 6 * 20 * 4, `${evaluations} evaluations, one request each`);
  });

  await t.test('FLAG_NOT_FOUND and the errors the provider maps', async (t) => {
    const missing = await client.getBooleanDetails('no-such-flag', true, { targetingKey: 'u' });
    t.equal(missing.errorCode, 'FLAG_NOT_FOUND');
    t.equal(missing.value, true);
    const admin = new OFREPProvider({ baseUrl: url, headers: [['Authorization', 'Bearer nope']] });
    await OpenFeature.setProviderAndWait('unknown-token', admin);
    const refused = await OpenFeature.getClient('unknown-token').getBooleanDetails('kind-none-0', true, {});
    t.equal(refused.value, true, 'an unknown token: the default');
    t.equal(refused.reason, 'ERROR');
  });
});
