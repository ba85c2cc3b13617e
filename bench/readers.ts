/**
 * What a reader pays for a new revision, in-process and without a database:
 * `npm run bench:readers -- --flags 2000,5000 [--writes 15] [--cold]`.
 *
 * Per size, a configuration shaped like bench/seed.ts's (strategies, constraints, segments,
 * variants, dependencies; built in memory), then per write (one flag's strategy changed, as a
 * write makes a new object for that flag only) the median CPU time of each per-revision step a
 * reader pays before answering:
 *
 * - playground: the main thread's snapshot build (SnapshotCache) and a pool thread's copy of it
 *   (CompiledSnapshotCache: a thread that held the previous revision, and one that held none);
 * - SDK state: the main thread's build (SdkStateCache), the client API's body for one scope
 *   (and its gzip form, as the route serves it),
 *   the frontend API's first answer, the shipped form and a thread's copy of it (WorkerStates);
 *
 * each beside a steady read. Measures steps, not requests: bench/scale.ts measures those.
 */
import type { Outbox } from '../src/db/outbox/index.js';
import type { SegmentConfig, StrategyConfig } from '../src/evaluation/index.js';
import { featuresDocument, resolveQuery } from '../src/features/client-api/features.js';
import { ClientFeaturesService } from '../src/features/client-api/service.js';
import { SdkStateCache } from '../src/features/client-api/state.js';
import { frontendContext, frontendToggles, scopeFlags } from '../src/features/frontend-api/evaluate.js';
import { shippedState, wholeShippedState } from '../src/features/frontend-api/shipped-state.js';
import type { FlagData } from '../src/features/flags/read-model.js';
import { storeSnapshotSource } from '../src/features/playground/source.js';
import { SnapshotCache } from '../src/features/playground/snapshot.js';
import { CompiledSnapshotCache } from '../workers/compiled-cache.js';
import { WorkerStates } from '../workers/sdk-state.js';
import { commandLine } from '../tools/cli.js';
import { OPERATORS } from './seed.js';

const { values: args } = commandLine(`
Usage: node dist/bench/readers.js [--flags 2000,5000] [--writes 15] [--cold]   (npm run bench:readers -- …)

The CPU of each per-revision step a reader pays after a one-flag write, in-process and without a
database: the playground snapshot and a pool thread's copy, the SDK state, the client API's body,
the frontend API's first answer, the state shipped to the threads.

  --flags LIST   configuration sizes, comma-separated (default 2000,5000)
  --writes N     writes per size; each step's median is reported (default 15)
  --cold         also time a thread that holds no copy (a full parse and compile)
`, {
  options: {
    flags: { type: 'string', default: '2000,5000' },
    writes: { type: 'string', default: '15' },
    /** Also time a thread that holds no copy (a full parse and compile: seconds at 5 000 flags). */
    cold: { type: 'boolean', default: false },
  },
});

const constraint = (i: number) => ({ values: [], ...OPERATORS[i % OPERATORS.length]! });

function strategy(i: number, k: number, name: string): StrategyConfig {
  const kind = (i + k) % 3;
  const id = `${name}-s${k}-${i}`;
  if (kind === 0) {
    return {
      id, name: 'flexibleRollout', title: null, disabled: false, sortOrder: k,
      parameters: { rollout: String(20 + ((i * 7 + k * 13) % 80)), stickiness: 'default', groupId: name },
      constraints: [constraint(i + k), constraint(i + k + 5)],
      segments: i % 4 === 0 ? [1 + (i % 5)] : [],
      variants: i % 2 === 0
        ? [
            { name: 'red', weight: 500, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: 'r' } },
            { name: 'blue', weight: 500, weightType: 'variable', stickiness: 'default' },
          ]
        : [],
    };
  }
  if (kind === 1) return { id, name: 'default', title: null, disabled: false, sortOrder: k, parameters: {}, constraints: [constraint(i + k + 2)], segments: [], variants: [] };
  return { id, name: 'remoteAddress', title: null, disabled: false, sortOrder: k, parameters: { IPs: '10.0.0.0/8, 192.168.1.1' }, constraints: [], segments: [], variants: [] };
}

function flag(i: number): FlagData {
  const name = `bench.flag.${String(i).padStart(3, '0')}`;
  const environments: FlagData['environments'] = {};
  for (const env of ['development', 'production']) {
    environments[env] = {
      enabled: true,
      strategies: Array.from({ length: 1 + (i % 3) }, (_, k) => strategy(i, k, name)),
      variants: i % 5 === 0
        ? [
            { name: 'a', weight: 340, weightType: 'variable', stickiness: 'default', overrides: [{ contextName: 'userId', values: ['1'] }] },
            { name: 'b', weight: 330, weightType: 'variable', stickiness: 'default', payload: { type: 'json', value: '{"x":1}' } },
            { name: 'c', weight: 100, weightType: 'fix', stickiness: 'default' },
          ]
        : [],
    };
  }
  const createdAt = new Date(Date.UTC(2025, 0, 1) + i * 1000);
  return {
    _id: name, name, project: 'default', description: `bench flag ${i}`, type: 'release', impressionData: false, stale: false,
    archived: false, archivedAt: null, createdAt, createdBy: { id: 1, name: 'admin' }, tags: [],
    lifecycle: { stage: 'initial', enteredStageAt: createdAt },
    dependencies: i % 10 === 9 ? [{ feature: `bench.flag.${String(i - 1).padStart(3, '0')}`, enabled: true }] : [],
    environments,
    strategyIds: Object.values(environments).flatMap((e) => e.strategies.map((s) => s.id)),
  };
}

/** The flag with one strategy's rollout changed: a new object, as the store makes per write. */
function written(data: FlagData, n: number): FlagData {
  const env = data.environments.development!;
  const [first, ...rest] = env.strategies;
  const changed = { ...first!, parameters: { ...first!.parameters, rollout: String(n % 100) } };
  return { ...data, environments: { ...data.environments, development: { ...env, strategies: [changed, ...rest] } } };
}

const median = (ms: number[]) => [...ms].sort((a, b) => a - b)[Math.floor(ms.length / 2)]!;

/** CPU time rather than wall-clock: on a shared machine a step's wall-clock time varies tenfold with the others' load. */
async function time<T>(into: number[], fn: () => T | Promise<T>): Promise<T> {
  const started = process.cpuUsage();
  const value = await fn();
  const used = process.cpuUsage(started);
  into.push((used.user + used.system) / 1000);
  return value;
}

async function run(size: number, writes: number): Promise<void> {
  let flags = Array.from({ length: size }, (_, i) => flag(i));
  const segments: SegmentConfig[] = Array.from({ length: 5 }, (_, s) => ({ id: s + 1, name: `bench-segment-${s}`, constraints: [constraint(s * 3), constraint(s * 3 + 1)] }));
  const outbox = { onCommitted: () => undefined, lastEventId: 1 } as unknown as Outbox;
  const snapshots = new SnapshotCache(storeSnapshotSource(
    { snapshotSource: () => Promise.resolve(flags) },
    { list: () => Promise.resolve(segments.map((s) => ({ ...s, description: null, project: null, createdAt: new Date(0), createdBy: 'admin' }))), get: () => Promise.resolve(null) },
  ), outbox);
  const states = new SdkStateCache({ flags: () => Promise.resolve(flags), segments: () => Promise.resolve(segments) }, outbox);
  const clientApi = new ClientFeaturesService(states);
  const follower = new CompiledSnapshotCache();
  const workerStates = new WorkerStates();
  const scope = { projects: ['*'], environment: 'development' };
  const query = resolveQuery(scope, {}, false);
  const context = frontendContext({ userId: '123', sessionId: 's1' }, '10.1.2.3');
  const steps: Record<string, number[]> = {};
  const step = (name: string) => (steps[name] ??= []);

  follower.compiled((await snapshots.get()).ref);
  workerStates.source(shippedState(await states.get()));
  for (let n = 0; n < writes + 2; n++) {
    const i = (n * 37) % size;
    flags = flags.map((f, k) => (k === i ? written(f, n) : f));
    snapshots.invalidate();
    states.invalidate();
    const snapshot = await time(step('playground: main-thread snapshot'), () => snapshots.get());
    await time(step('playground: thread holding the previous revision'), () => follower.compiled(snapshot.ref));
    if (args.cold) await time(step('playground: thread holding none'), () => new CompiledSnapshotCache().compiled(snapshot.ref));
    const state = await time(step('sdk: main-thread state'), () => states.get());
    await time(step('client: body after a write'), () => featuresDocument(state.flags, state.segments, query, state.revisionId));
    await time(step('client: body, steady (cached per state; its build once more)'), () => featuresDocument(state.flags, state.segments, query, state.revisionId));
    // What /api/client/features answers an SDK sending accept-encoding: gzip (every official one).
    await time(step('client: gzip body after a write'), () => clientApi.compressed(clientApi.features(state, scope, {}, undefined)));
    await time(step('frontend: first answer, its scope\'s flags'), () => scopeFlags(state, scope));
    await time(step('frontend: first answer, the rest'), () => frontendToggles(state, scope, context, false));
    await time(step('frontend: steady answer'), () => frontendToggles(state, scope, context, false));
    const shipped = await time(step('frontend: shipped form'), () => shippedState(state));
    await time(step('frontend: thread holding the previous build'), () => workerStates.source(shipped));
    if (args.cold) await time(step('frontend: thread holding none'), () => new WorkerStates().source(shipped));
    const whole = await time(step('frontend: a full copy (a chain\'s new base)'), () => wholeShippedState(state));
    if (args.cold) await time(step('frontend: thread taking a full copy in'), () => new WorkerStates().source(whole));
  }
  console.log(`\n${size} flags (median of ${writes} writes, CPU ms of the process)`);
  for (const [name, ms] of Object.entries(steps)) console.log(`  ${name.padEnd(62)} ${median(ms.slice(2)).toFixed(2).padStart(9)}`);
}

for (const size of args.flags.split(',').map(Number)) await run(size, Number(args.writes));
