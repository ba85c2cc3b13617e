/**
 * Seeds a realistic configuration (100 flags unless told otherwise) through the admin API — the same requests work
 * against Vane and against the Unleash reference server, so both are measured on one setup.
 *
 * Per flag, in `development` and `production`: 1–3 strategies (flexibleRollout, default,
 * remoteAddress, userWithId-free — Unleash 8 cannot create the legacy types), constraints cycling
 * through every operator, one of 5 segments on some strategies, strategy variants on some,
 * environment variants on every fifth flag, and every tenth flag depends on its predecessor.
 */
import { seededRandom } from './random.js';

export const OPERATORS: Array<{ operator: string; contextName: string; values?: string[]; value?: string; caseInsensitive?: boolean; inverted?: boolean }> = [
  { operator: 'IN', contextName: 'userId', values: ['1', '2', '3', '123', '77'] },
  { operator: 'NOT_IN', contextName: 'region', values: ['antarctica'] },
  { operator: 'STR_CONTAINS', contextName: 'email', values: ['@example'], caseInsensitive: true },
  { operator: 'STR_STARTS_WITH', contextName: 'userId', values: ['1', '4'] },
  { operator: 'STR_ENDS_WITH', contextName: 'email', values: ['.com', '.org'] },
  { operator: 'NUM_GT', contextName: 'age', value: '18' },
  { operator: 'NUM_LTE', contextName: 'age', value: '65' },
  { operator: 'NUM_EQ', contextName: 'plan', value: '3' },
  { operator: 'DATE_AFTER', contextName: 'currentTime', value: '2020-01-01T00:00:00.000Z' },
  { operator: 'DATE_BEFORE', contextName: 'currentTime', value: '2099-01-01T00:00:00.000Z' },
  { operator: 'SEMVER_GT', contextName: 'version', value: '1.2.3' },
  { operator: 'SEMVER_LT', contextName: 'version', value: '9.0.0' },
  { operator: 'SEMVER_EQ', contextName: 'version', value: '2.0.0', inverted: true },
  { operator: 'SEMVER_GTE', contextName: 'version', value: '1.0.0' },
  { operator: 'SEMVER_LTE', contextName: 'version', value: '5.0.0' },
  { operator: 'REGEX', contextName: 'email', value: '^[a-z]+@example\\.(com|org)$' },
  { operator: 'NUM_GTE', contextName: 'age', value: '21' },
  { operator: 'NUM_LT', contextName: 'age', value: '99' },
];

export interface Target {
  name: string;
  url: string;
  token: string;
}

/**
 * One admin request; a 503 (a server refusing while its database is slow to answer, as on a
 * loaded machine) is sent again up to 5 times, a second apart: a 503 means nothing was written.
 */
export async function call(target: Target, method: string, path: string, body?: unknown): Promise<unknown> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(target.url + path, {
      method,
      headers: { authorization: target.token, 'content-type': 'application/json', accept: 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (res.status === 503 && attempt < 5) {
      await new Promise((r) => setTimeout(r, 1000));
      continue;
    }
    if (res.status >= 300) throw new Error(`${target.name} ${method} ${path} → ${res.status} ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : undefined;
  }
}

const constraint = (i: number) => {
  const c = OPERATORS[i % OPERATORS.length]!;
  return { values: [], ...c };
};

export const SEED_PREFIX = 'bench';
export const FLAG_COUNT = 100;

export interface SeedOptions {
  /** Flags to create (FLAG_COUNT by default). */
  flags?: number;
  /**
   * Flags built at once: each flag's requests stay in order, different flags run side by side.
   * 1 (the default) sends every request in order, as the other benches always did; above 1 the
   * dependencies are added once every flag exists (a parent may be built after its child).
   */
  concurrency?: number;
}

/**
 * Builds the bench configuration: 5 segments, then `flags` flags (their strategies, variants and
 * environments), every tenth depending on its predecessor.
 */
export async function seed(target: Target, prefix = SEED_PREFIX, options: SeedOptions = {}): Promise<void> {
  const flags = options.flags ?? FLAG_COUNT;
  const concurrency = Math.max(1, options.concurrency ?? 1);
  const segmentIds: number[] = [];
  for (let s = 0; s < 5; s++) {
    const segment = (await call(target, 'POST', '/api/admin/segments', {
      name: `${prefix}-segment-${s}`,
      constraints: [constraint(s * 3), constraint(s * 3 + 1)],
    })) as { id: number };
    segmentIds.push(segment.id);
  }
  const dependency = async (i: number) => {
    if (i % 10 !== 9) return;
    await call(target, 'POST', `/api/admin/projects/default/features/${seedFlagName(i, prefix)}/dependencies`, { feature: seedFlagName(i - 1, prefix), enabled: true });
  };
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < flags; i = next++) {
      await seedFlag(target, prefix, i, segmentIds);
      if (concurrency === 1) await dependency(i);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  if (concurrency > 1) {
    next = 0;
    const dependencies = async () => {
      for (let i = next++; i < flags; i = next++) await dependency(i);
    };
    await Promise.all(Array.from({ length: concurrency }, dependencies));
  }
}

/** The name of the seed's flag number `i` (at least three digits). */
export function seedFlagName(i: number, prefix = SEED_PREFIX): string {
  return `${prefix}.flag.${String(i).padStart(3, '0')}`;
}

/** One flag of the seed with its strategies, variants and environments turned on. */
async function seedFlag(target: Target, prefix: string, i: number, segmentIds: number[]): Promise<void> {
  const name = seedFlagName(i, prefix);
  await call(target, 'POST', '/api/admin/projects/default/features', { name, description: `bench flag ${i}` });
  for (const environment of ['development', 'production']) {
    const base = `/api/admin/projects/default/features/${name}/environments/${environment}`;
    const strategies = 1 + (i % 3);
    for (let k = 0; k < strategies; k++) {
      const kind = (i + k) % 3;
      const body =
        kind === 0
          ? {
              name: 'flexibleRollout',
              parameters: { rollout: String(20 + ((i * 7 + k * 13) % 80)), stickiness: 'default', groupId: name },
              constraints: [constraint(i + k), constraint(i + k + 5)],
              segments: i % 4 === 0 ? [segmentIds[i % 5]!] : [],
              variants: i % 2 === 0
                ? [
                    { name: 'red', weight: 500, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: 'r' } },
                    { name: 'blue', weight: 500, weightType: 'variable', stickiness: 'default' },
                  ]
                : [],
            }
          : kind === 1
            ? { name: 'default', parameters: {}, constraints: [constraint(i + k + 2)] }
            : { name: 'remoteAddress', parameters: { IPs: '10.0.0.0/8, 192.168.1.1' }, constraints: [] };
      await call(target, 'POST', `${base}/strategies`, body);
    }
    if (i % 5 === 0) {
      await call(target, 'PUT', `${base}/variants`, [
        { name: 'a', weight: 340, weightType: 'variable', stickiness: 'default', overrides: [{ contextName: 'userId', values: ['1'] }] },
        { name: 'b', weight: 330, weightType: 'variable', stickiness: 'default', payload: { type: 'json', value: '{"x":1}' } },
        { name: 'c', weight: 100, weightType: 'fix', stickiness: 'default' },
      ]);
    }
    await call(target, 'POST', `${base}/on`);
  }
}

/** 400 frontend contexts, the same on both servers and in every run (seeded): bench/sdk.ts F1/F2, bench/frontend-dispatch.ts. */
export function frontendContexts(): Array<Record<string, unknown>> {
  const random = seededRandom(15);
  const regions = ['eu', 'us', 'apac', 'antarctica'];
  return Array.from({ length: 400 }, (_, i) => ({
    userId: String(Math.floor(random() * 1000)),
    sessionId: `s-${i}`,
    properties: { region: regions[i % 4]!, email: `u${i}@example.com`, age: String(Math.floor(random() * 90)), version: `${i % 5}.${i % 3}.0`, plan: String(i % 5) },
  }));
}

export async function firstFlagName(prefix = SEED_PREFIX): Promise<string> {
  return seedFlagName(0, prefix);
}
