/**
 * Evaluation engine benchmark: `node dist/bench/engine.js` (after `npx tsc -p tsconfig.json`).
 *
 * Builds a realistic configuration — 100 flags in two environments, 1–4 strategies each with
 * constraints of every operator, 10 segments, strategy and environment variants, a few
 * dependencies — and a pool of varied contexts, then prints:
 *
 *   1. SDK decisions per second on one core (isEnabled, getVariant); target ≥ 2,000,000/s;
 *   2. time to produce the complete deprecated-playground JSON for 100 flags × 1 context
 *      (target ≤ 300 µs) as UTF-8 chunks, next to one big string and to the object path +
 *      JSON.stringify it replaces;
 *   3. advanced-entry JSON throughput in MB/s, written as UTF-8 chunks (evaluation included, and
 *      serialization alone).
 *
 * Everything is seeded, so runs are comparable. `node dist/bench/engine.js sdk` (or `playground`,
 * `advanced`) runs one section, e.g. under `--cpu-prof`.
 */
import {
  advancedEntryJson,
  compile,
  evaluate,
  evaluateSelection,
  evaluateToJson,
  evaluateToJsonChunks,
  getVariant,
  isEnabled,
  JsonChunkWriter,
  selectFlags,
  type ConstraintConfig,
  type FlagConfig,
  type SegmentConfig,
  type Snapshot,
  type StrategyConfig,
} from '../src/evaluation/index.js';
import { commandLine, usageError } from '../tools/cli.js';
import { seededRandom } from './random.js';

const SECTIONS = ['sdk', 'playground', 'advanced'];
const USAGE = `
Usage: node dist/bench/engine.js [sdk|playground|advanced]   (npm run bench:engine)

The evaluation engine alone, on one core: SDK decisions per second, the deprecated playground's
JSON for 100 flags × 1 context, advanced-entry JSON throughput. A section name runs that section
only (e.g. under node --cpu-prof).
`;
const { positionals } = commandLine(USAGE, { allowPositionals: true });
if (positionals.length > 1 || (positionals[0] !== undefined && !SECTIONS.includes(positionals[0]))) {
  usageError(USAGE, `unknown section: ${positionals.join(' ')}`);
}

// ---------------------------------------------------------------------------------------------
// Seeded data

const random = seededRandom(42);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const int = (min: number, max: number): number => min + Math.floor(random() * (max - min + 1));
const REGIONS = ['eu', 'us', 'apac', 'latam'];
const TENANTS = Array.from({ length: 50 }, (_, i) => `tenant-${i}`);

function constraintOf(kind: number): ConstraintConfig {
  const base = { inverted: random() < 0.15, caseInsensitive: false };
  switch (kind % 11) {
    case 0:
      return { values: Array.from({ length: 20 }, () => String(int(1, 5000))), ...base, operator: 'IN', contextName: 'userId' };
    case 1:
      return { values: [pick(REGIONS)], ...base, operator: 'NOT_IN', contextName: 'region' };
    case 2:
      return { values: ['tenant-1', 'tenant-2'], ...base, operator: 'STR_STARTS_WITH', contextName: 'tenant', caseInsensitive: true };
    case 3:
      return { values: ['@example.com'], ...base, operator: 'STR_ENDS_WITH', contextName: 'email' };
    case 4:
      return { value: String(int(1, 100)), values: [], ...base, operator: pick(['NUM_GT', 'NUM_LTE']), contextName: 'score' };
    case 5:
      return { value: '2025-06-01T00:00:00.000Z', values: [], ...base, operator: pick(['DATE_AFTER', 'DATE_BEFORE']), contextName: 'currentTime' };
    case 6:
      return { value: `${int(1, 3)}.${int(0, 9)}.0`, values: [], ...base, operator: pick(['SEMVER_GTE', 'SEMVER_LT']), contextName: 'version' };
    case 7:
      return { value: '^user-[0-9]+$', values: [], ...base, operator: 'REGEX', contextName: 'login' };
    case 8:
      return { values: ['10.0.0.0/8', '2001:db8::/32'], ...base, operator: 'IN_CIDR', contextName: 'remoteAddress' };
    case 9:
      return { values: [pick(REGIONS), pick(REGIONS)], ...base, operator: 'IN', contextName: 'region' };
    default:
      return { values: ['beta'], ...base, operator: 'STR_CONTAINS', contextName: 'plan' };
  }
}

const segments: SegmentConfig[] = Array.from({ length: 10 }, (_, i) => ({
  id: i + 1,
  name: `segment-${i + 1}`,
  constraints: Array.from({ length: int(1, 2) }, () => constraintOf(int(0, 10))),
}));

function strategyOf(flagName: string, index: number): StrategyConfig {
  const name = pick(['flexibleRollout', 'flexibleRollout', 'flexibleRollout', 'default', 'userWithId', 'remoteAddress']);
  const parameters: Record<string, string> =
    name === 'flexibleRollout'
      ? { groupId: flagName, rollout: String(pick([10, 25, 50, 100])), stickiness: pick(['default', 'userId', 'tenant']) }
      : name === 'userWithId'
        ? { userIds: Array.from({ length: 10 }, () => String(int(1, 5000))).join(',') }
        : name === 'remoteAddress'
          ? { IPs: '10.1.0.0/16, 192.168.1.1' }
          : {};
  const withVariants = random() < 0.3;
  return {
    id: `${flagName}-s${index}`,
    name,
    title: random() < 0.5 ? `Rollout ${index}` : null,
    disabled: random() < 0.05,
    sortOrder: index,
    parameters,
    constraints: Array.from({ length: int(0, 4) }, () => constraintOf(int(0, 10))),
    variants: withVariants
      ? ['control', 'treatment'].map((variant) => ({
          name: variant,
          weight: 500,
          weightType: 'variable' as const,
          stickiness: 'default',
          payload: { type: 'json', value: `{"variant":"${variant}"}` },
        }))
      : [],
    segments: random() < 0.3 ? [int(1, 10)] : [],
  };
}

function flagOf(i: number, names: string[]): FlagConfig {
  const name = names[i]!;
  const environment = () => ({
    enabled: random() < 0.8,
    strategies: Array.from({ length: int(1, 4) }, (_, s) => strategyOf(name, s)),
    variants:
      random() < 0.4
        ? [
            { name: 'a', weight: 334, weightType: 'variable' as const, stickiness: 'default' },
            { name: 'b', weight: 333, weightType: 'variable' as const, stickiness: 'default', payload: { type: 'string', value: 'b' } },
            { name: 'c', weight: 333, weightType: 'fix' as const, stickiness: 'default' },
          ]
        : [],
  });
  return {
    name,
    project: pick(['default', 'default', 'checkout']),
    createdAt: new Date(Date.UTC(2025, 0, 1) + i * 3600_000).toISOString(),
    environments: { development: environment(), production: environment() },
    dependencies: i > 10 && random() < 0.1 ? [{ feature: names[int(0, 9)]!, enabled: true }] : [],
  };
}

const names = Array.from({ length: 100 }, (_, i) => `team.feature-${i}`);
const snapshot: Snapshot = { flags: names.map((_, i) => flagOf(i, names)), segments };

const contexts = Array.from({ length: 1000 }, () => ({
  appName: 'web',
  userId: String(int(1, 5000)),
  sessionId: `s-${int(1, 1e6)}`,
  remoteAddress: random() < 0.5 ? `10.1.${int(0, 255)}.${int(0, 255)}` : `172.16.0.${int(1, 254)}`,
  currentTime: random() < 0.5 ? '2025-09-01T12:00:00.000Z' : undefined,
  properties: {
    region: pick(REGIONS),
    tenant: pick(TENANTS),
    email: `u${int(1, 999)}@${pick(['example.com', 'corp.io'])}`,
    score: String(int(0, 120)),
    version: `${int(1, 3)}.${int(0, 9)}.${int(0, 9)}`,
    login: pick(['user-17', 'admin', 'user-x']),
    plan: pick(['free', 'beta-pro', 'pro']),
  },
}));

// ---------------------------------------------------------------------------------------------
// Measurement helpers

function timeLoop(iterations: number, body: (i: number) => void): number {
  const started = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) body(i);
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** Median of `rounds` timings of `body`, in microseconds. */
function medianMicros(rounds: number, body: (i: number) => void): number {
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = process.hrtime.bigint();
    body(i);
    samples.push(Number(process.hrtime.bigint() - started) / 1e3);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

const format = (n: number): string => Math.round(n).toLocaleString('en-US');

// ---------------------------------------------------------------------------------------------

const compileStarted = process.hrtime.bigint();
const compiled = compile(snapshot);
const compileMs = Number(process.hrtime.bigint() - compileStarted) / 1e6;
const snapshotBytes = Buffer.byteLength(JSON.stringify(snapshot));
console.log(`configuration: ${names.length} flags, ${segments.length} segments, ${format(snapshotBytes / 1024)} KiB JSON; compile ${compileMs.toFixed(1)} ms`);

const only = positionals[0];
const runs = (section: string): boolean => only === undefined || only === section;

// 1. SDK decisions. Warm up first so the numbers are the optimized code's.
if (runs('sdk')) {
  const N = 3_000_000;
  let enabledCount = 0;
  timeLoop(500_000, (i) => {
    if (isEnabled(compiled, 'production', names[i % 100]!, contexts[i % 1000])) enabledCount++;
  });
  enabledCount = 0;
  const decideSeconds = timeLoop(N, (i) => {
    if (isEnabled(compiled, 'production', names[i % 100]!, contexts[(i * 7) % 1000])) enabledCount++;
  });
  console.log(
  `SDK isEnabled:   ${format(N / decideSeconds)} evaluations/s on one core (target ≥ 2,000,000) — ${((enabledCount / N) * 100).toFixed(0)} % enabled`,
  );
  let variantCount = 0;
  timeLoop(300_000, (i) => {
    if (getVariant(compiled, 'production', names[i % 100]!, contexts[i % 1000]).enabled) variantCount++;
  });
  const variantSeconds = timeLoop(N, (i) => {
    if (getVariant(compiled, 'production', names[i % 100]!, contexts[(i * 7) % 1000]).enabled) variantCount++;
  });
  console.log(`SDK getVariant:  ${format(N / variantSeconds)} evaluations/s on one core — ${((variantCount / (300_000 + N)) * 100).toFixed(0)} % with a variant`);
}

// 2. Deprecated playground JSON, 100 flags × 1 context. Buffer.byteLength flattens the rope, as
// writing the response would.
const selection = selectFlags(compiled);
let sink = 0;
if (runs('playground')) {
  for (let i = 0; i < 2000; i++) sink += evaluateToJson(compiled, 'development', contexts[i % 1000]).length;
  const fastMicros = medianMicros(3000, (i) => {
    sink += Buffer.byteLength(evaluateToJson(compiled, 'development', contexts[i % 1000]));
  });
  for (let i = 0; i < 300; i++) sink += JSON.stringify(evaluate(compiled, 'development', contexts[i % 1000])).length;
  const slowMicros = medianMicros(1000, (i) => {
    sink += Buffer.byteLength(JSON.stringify(evaluate(compiled, 'development', contexts[i % 1000])));
  });
  const evaluateMicros = medianMicros(3000, (i) => {
    for (const evaluation of evaluateSelection(compiled, selection, 'development', contexts[i % 1000])) {
      if (evaluation.isEnabled) sink++;
    }
  });
  const ropeMicros = medianMicros(3000, (i) => {
    sink += evaluateToJson(compiled, 'development', contexts[i % 1000]).length;
  });
  const chunkMicros = medianMicros(3000, (i) => {
    for (const chunk of evaluateToJsonChunks(compiled, 'development', contexts[i % 1000])) sink += chunk.length;
  });
  const flattenMicros = medianMicros(3000, (i) => {
    const json = evaluateToJson(compiled, 'development', contexts[i % 1000]);
    sink += Number(json); // NaN; flattens the rope
  });
  const playgroundBytes = Buffer.byteLength(evaluateToJson(compiled, 'development', contexts[0]));
  console.log(
  `playground JSON: ${chunkMicros.toFixed(0)} µs for 100 flags × 1 context as UTF-8 chunks (target ≤ 300; ` +
    `${format(playgroundBytes / 1024)} KiB); of which evaluation ${evaluateMicros.toFixed(0)} µs`,
  );
  console.log(
  `  as one string: ${ropeMicros.toFixed(0)} µs as a rope, ${flattenMicros.toFixed(0)} µs flat, ` +
    `${fastMicros.toFixed(0)} µs flat + UTF-8 length; objects + JSON.stringify: ${slowMicros.toFixed(0)} µs`,
  );
}

// 3. Advanced entries: every flag for a batch of combinations, with evaluation and without.
if (runs('advanced')) {
  const combinations = contexts.slice(0, 100).map((context) => {
    const { properties, currentTime: _ignored, ...top } = context;
    return { ...top, ...properties };
  });
  const combinationJson = combinations.map((combination) => JSON.stringify(combination));
  let bytes = 0;
  const advancedSeconds = timeLoop(50, () => {
    const writer = new JsonChunkWriter();
    for (let c = 0; c < combinations.length; c++) {
      for (const evaluation of evaluateSelection(compiled, selection, 'production', combinations[c])) {
        writer.write(advancedEntryJson(evaluation, combinationJson[c]!));
      }
    }
    bytes += writer.byteLength;
  });
  const evaluated = combinations.map((combination) => evaluateSelection(compiled, selection, 'production', combination));
  for (const batch of evaluated) for (const evaluation of batch) void evaluation.isEnabled; // finalize outside the timing
  let serializedBytes = 0;
  const serializeSeconds = timeLoop(50, () => {
    const writer = new JsonChunkWriter();
    for (let c = 0; c < evaluated.length; c++) {
      for (const evaluation of evaluated[c]!) writer.write(advancedEntryJson(evaluation, combinationJson[c]!));
    }
    serializedBytes += writer.byteLength;
  });
  const entries = 50 * combinations.length * names.length;
  console.log(
  `advanced entries: ${(bytes / advancedSeconds / 1e6).toFixed(0)} MB/s evaluated + serialized ` +
    `(${format(entries / advancedSeconds)} entries/s); serialization alone ${(serializedBytes / serializeSeconds / 1e6).toFixed(0)} MB/s`,
  );
}
if (sink < 0) console.log(sink);
