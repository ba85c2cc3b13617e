/**
 * What the OFREP tests compare with: the frontend API's answer for the same token and the mapped
 * context, read through docs/rules.md §10 as stated here, independently of src/features/ofrep.
 */
import type { FastifyInstance } from 'fastify';
import { ADMIN_TOKEN } from '../../helpers/app.js';
import { applyConfiguration, generateConfiguration, generateConstraint, Random, type AdminRequest } from '../../../tools/difftest/config.js';
import { generateContext } from '../../../tools/difftest/contexts.js';
import { kindOf, mappedContext, ofrepContext, valueOf, type ClientFeature, type Kind, type Payload, type Toggle } from '../../../tools/difftest/ofrep.js';

export { kindOf, mappedContext, type Kind };

/** What a provider should report for one flag and context. */
export interface Expected {
  kind: Kind;
  /** Undefined: the flag has variants and the context got none, so the code default applies. */
  value: unknown;
  variant: string | undefined;
  /** MATCH: TARGETING_MATCH or SPLIT. */
  reason: 'DISABLED' | 'DEFAULT' | 'MATCH';
}

/** The client API's view of the flags (a client token of the same scope): what decides each flag's kind. */
export async function clientFeatures(app: FastifyInstance, clientToken: string): Promise<Map<string, ClientFeature>> {
  const res = await app.inject({ method: 'GET', url: '/api/client/features', headers: { authorization: clientToken } });
  return new Map((res.json().features as ClientFeature[]).map((feature) => [feature.name, feature]));
}

/** Every flag the frontend API lists for the mapped context, as OFREP should report it. */
export async function expectedEvaluations(
  app: FastifyInstance, frontendToken: string, features: ReadonlyMap<string, ClientFeature>, context: Record<string, unknown>,
): Promise<Map<string, Expected>> {
  const res = await app.inject({
    method: 'POST', url: '/api/frontend/all', headers: { authorization: frontendToken, 'content-type': 'application/json' },
    payload: { context: mappedContext(context) },
  });
  const expected = new Map<string, Expected>();
  for (const toggle of res.json().toggles as Toggle[]) {
    const feature = features.get(toggle.name)!;
    const kind = kindOf(feature);
    const reason = !feature.enabled ? 'DISABLED' : !toggle.enabled ? 'DEFAULT' : 'MATCH';
    if (kind === 'boolean') expected.set(toggle.name, { kind, value: toggle.enabled, variant: undefined, reason });
    else if (!toggle.variant.enabled) expected.set(toggle.name, { kind, value: undefined, variant: undefined, reason });
    else expected.set(toggle.name, { kind, value: valueOf(kind, toggle.variant), variant: toggle.variant.name, reason });
  }
  return expected;
}

/**
 * Flags whose variants all carry one kind of payload (number, JSON, string, CSV), or none, so every
 * value type occurs; the difftest configuration mixes payload kinds within a flag.
 */
function kindFlags(random: Random, count: number): AdminRequest[] {
  const requests: AdminRequest[] = [];
  const payloads: Record<string, () => Payload | undefined> = {
    number: () => ({ type: 'number', value: String(random.pick([0, 1.5, 42, -7, 1000])) }),
    json: () => ({ type: 'json', value: JSON.stringify(random.chance(0.8) ? { tier: random.pick(['a', 'b']), n: random.int(0, 9) } : [1, 2]) }),
    string: () => ({ type: 'string', value: random.pick(['red', 'blue', 'on']) }),
    csv: () => ({ type: 'csv', value: 'a,b' }),
    none: () => undefined,
  };
  for (let i = 0; i < count; i++) {
    const kind = random.pick(Object.keys(payloads));
    const name = `kind-${kind}-${i}`;
    const base = `/api/admin/projects/default/features/${name}/environments/development`;
    const variants = (n: number) => Array.from({ length: n }, (_, v) => {
      const payload = payloads[kind]!();
      return { name: `v${v}`, weight: Math.floor(1000 / n), weightType: 'variable', stickiness: 'default', ...(payload ? { payload } : {}) };
    });
    requests.push({ method: 'POST', path: '/api/admin/projects/default/features', body: { name } });
    if (random.chance(0.6)) {
      requests.push({ method: 'POST', path: `${base}/strategies`, body: {
        name: 'flexibleRollout', parameters: { rollout: String(random.pick([50, 100])), stickiness: 'default', groupId: name },
        constraints: random.chance(0.5) ? [generateConstraint(random)] : [], ...(random.chance(0.5) ? { variants: variants(random.int(1, 3)) } : {}),
      } });
    }
    if (random.chance(0.7)) requests.push({ method: 'PUT', path: `${base}/variants`, body: variants(random.int(1, 3)) });
    if (random.chance(0.8)) requests.push({ method: 'POST', path: `${base}/on` });
  }
  return requests;
}

/** A random configuration (difftest's, plus `kindFlags`) applied to a listening server. */
export async function randomConfiguration(base: string, seed: number): Promise<void> {
  const requests = [...generateConfiguration(seed, { flags: 24 }), ...kindFlags(new Random(seed), 14)];
  const statuses = await applyConfiguration(base, ADMIN_TOKEN, requests);
  // Some of difftest's requests are refused on purpose (archiving a parent is a 403); none may fail on the server.
  const failed = statuses.map((status, i) => [status, requests[i]!] as const).filter(([status]) => status >= 500);
  if (failed.length > 0) throw new Error(`configuration: ${JSON.stringify(failed.slice(0, 3))}`);
}

/**
 * An OpenFeature context from difftest's random ones (numbers, booleans, objects, arrays among the
 * values): its userId sometimes moved to targetingKey, sometimes beside a targetingKey it overrides.
 */
export function randomOfrepContext(random: Random): Record<string, unknown> {
  return ofrepContext(random, generateContext(random));
}

export { Random };
