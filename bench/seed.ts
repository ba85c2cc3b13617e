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
/**
 * `fetch`, sent once more when the connection it reused was already closed: a server restarted on
 * the same port (a fresh reference) leaves fetch's pool a kept-alive socket to the old process,
 * and the first request on it fails with `other side closed` before anything was sent.
 */
export async function fetchAgainOnStaleSocket(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    const code = (err as { cause?: { code?: string } }).cause?.code;
    if (code !== 'UND_ERR_SOCKET') throw err;
    return await fetch(url, init);
  }
}

export async function call(target: Target, method: string, path: string, body?: unknown): Promise<unknown> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetchAgainOnStaleSocket(target.url + path, {
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
  const segmentIds = (await seedSegments(target, prefix)).map((s) => s.id);
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

/** A strategy of the seed as the admin API's create body takes it. */
interface SeedStrategy {
  name: string;
  parameters: Record<string, string>;
  constraints: ReturnType<typeof constraint>[];
  segments?: number[];
  variants?: Array<Record<string, unknown>>;
}

/** One flag of the seed as data: what `seedFlag` sends request by request and `importSeed` imports in batches. */
interface SeedFlag {
  name: string;
  description: string;
  /** By environment (`development`, `production`): its strategies in order and its variants; every environment is on. */
  environments: Record<string, { strategies: SeedStrategy[]; variants?: Array<Record<string, unknown>> }>;
  /** Every tenth flag depends on its predecessor (enabled). */
  parent?: string;
}

const SEED_ENVIRONMENTS = ['development', 'production'];

function seedFlagDefinition(i: number, prefix: string, segmentIds: number[]): SeedFlag {
  const name = seedFlagName(i, prefix);
  const environments = Object.fromEntries(SEED_ENVIRONMENTS.map((environment) => {
    const strategies: SeedStrategy[] = [];
    for (let k = 0; k < 1 + (i % 3); k++) {
      const kind = (i + k) % 3;
      strategies.push(
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
            : { name: 'remoteAddress', parameters: { IPs: '10.0.0.0/8, 192.168.1.1' }, constraints: [] },
      );
    }
    const variants = i % 5 === 0
      ? [
          { name: 'a', weight: 340, weightType: 'variable', stickiness: 'default', overrides: [{ contextName: 'userId', values: ['1'] }] },
          { name: 'b', weight: 330, weightType: 'variable', stickiness: 'default', payload: { type: 'json', value: '{"x":1}' } },
          { name: 'c', weight: 100, weightType: 'fix', stickiness: 'default' },
        ]
      : undefined;
    return [environment, { strategies, ...(variants ? { variants } : {}) }];
  }));
  return { name, description: `bench flag ${i}`, environments, ...(i % 10 === 9 ? { parent: seedFlagName(i - 1, prefix) } : {}) };
}

/** One flag of the seed with its strategies, variants and environments turned on. */
async function seedFlag(target: Target, prefix: string, i: number, segmentIds: number[]): Promise<void> {
  const flag = seedFlagDefinition(i, prefix, segmentIds);
  await call(target, 'POST', '/api/admin/projects/default/features', { name: flag.name, description: flag.description });
  for (const [environment, { strategies, variants }] of Object.entries(flag.environments)) {
    const base = `/api/admin/projects/default/features/${flag.name}/environments/${environment}`;
    for (const strategy of strategies) await call(target, 'POST', `${base}/strategies`, strategy);
    if (variants) await call(target, 'PUT', `${base}/variants`, variants);
    await call(target, 'POST', `${base}/on`);
  }
}

/** The seed's five segments (the import refers to segments by name: they must exist first). */
export async function seedSegments(target: Target, prefix: string): Promise<Array<{ id: number; name: string }>> {
  const segments: Array<{ id: number; name: string }> = [];
  for (let s = 0; s < 5; s++) {
    const name = `${prefix}-segment-${s}`;
    const segment = (await call(target, 'POST', '/api/admin/segments', { name, constraints: [constraint(s * 3), constraint(s * 3 + 1)] })) as { id: number };
    segments.push({ id: segment.id, name });
  }
  return segments;
}

/** Flags per import request (bench/scale.ts's reference load: 250 flags took ~1 s per environment at 5 000). */
const IMPORT_BATCH = 250;

/** The user Unleash creates on a fresh database; a bench's Vane is started with one of its own (strong password). */
export const REFERENCE_ADMIN = { username: 'admin', password: 'unleash4all' };

/**
 * The same target with a personal access token of `login`'s person instead of the admin token:
 * the batch import and export refuse admin tokens (Unleash 8.2, and Vane as it does).
 */
export async function withPersonalToken(target: Target, login = REFERENCE_ADMIN): Promise<Target> {
  const res = await fetchAgainOnStaleSocket(`${target.url}/auth/simple/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(login),
  });
  const cookie = res.headers.get('set-cookie')?.split(';')[0];
  // The whole answer first: the session is stored as it ends (asked before that, the token request got a 401).
  await res.text();
  if (res.status !== 200 || !cookie) throw new Error(`${target.name}: admin login → ${res.status}`);
  const tokenRes = await fetch(`${target.url}/api/admin/user/tokens`, {
    method: 'POST', headers: { cookie, 'content-type': 'application/json', origin: target.url },
    body: JSON.stringify({ description: `bench ${Date.now()} ${Math.random()}`, expiresAt: '2099-01-01T00:00:00.000Z' }),
  });
  if (tokenRes.status !== 201) throw new Error(`${target.name}: personal access token → ${tokenRes.status} ${await tokenRes.text()}`);
  return { ...target, token: ((await tokenRes.json()) as { secret: string }).secret };
}

/**
 * The same configuration as `seed`, loaded through the batch import
 * (`POST /api/admin/features-batch/import`, one request per environment per batch of flags).
 * Why: loaded one change per request, the reference slows to ~27 flags a minute past 3 000 flags,
 * so it never reached 5 000 in a bench run. The segments are created through the API first (the
 * import refers to them by name).
 */
export async function importSeed(target: Target, prefix = SEED_PREFIX, options: { flags?: number; login?: typeof REFERENCE_ADMIN } = {}): Promise<void> {
  const flags = options.flags ?? FLAG_COUNT;
  const importer = await withPersonalToken(target, options.login);
  const segments = await seedSegments(target, prefix);
  const segmentIds = segments.map((s) => s.id);
  for (let first = 0; first < flags; first += IMPORT_BATCH) {
    const batch = Array.from({ length: Math.min(IMPORT_BATCH, flags - first) }, (_, k) => seedFlagDefinition(first + k, prefix, segmentIds));
    for (const environment of SEED_ENVIRONMENTS) {
      const featureStrategies = batch.flatMap((flag) => flag.environments[environment]!.strategies
        .map((strategy, sortOrder) => ({ featureName: flag.name, sortOrder, segments: [], variants: [], ...strategy })));
      const data = {
        features: batch.map((flag) => ({ name: flag.name, description: flag.description, type: 'release', project: 'default' })),
        featureStrategies,
        featureEnvironments: batch.map((flag) => ({
          name: flag.name, featureName: flag.name, environment, enabled: true,
          variants: flag.environments[environment]!.variants ?? [],
        })),
        segments: segments.filter((segment) => featureStrategies.some((s) => s.segments.includes(segment.id))),
        dependencies: batch.filter((flag) => flag.parent).map((flag) => ({ feature: flag.name, dependencies: [{ feature: flag.parent!, enabled: true }] })),
        featureTags: [],
        tagTypes: [],
        contextFields: [],
      };
      await call(importer, 'POST', '/api/admin/features-batch/import', { project: 'default', environment, data });
    }
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
