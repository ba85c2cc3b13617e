/**
 * Where the frontend API should evaluate (on the worker pool or the main thread, whichever
 * the benchmark shows is faster): `npm run build && node dist/bench/frontend-dispatch.js`.
 *
 * The frontend API's server is bound by its main thread (bench/sdk.ts F1/F2), so what counts is
 * the main thread's busy time per answer (performance.eventLoopUtilization), measured both ways on
 * bench/seed.ts's 100-flag configuration with 400 rotating contexts, 16 requests in flight:
 *
 *   main    frontendToggles on the main thread;
 *   pool    the same call on a 2-thread Piscina pool (the playground's), the main thread only
 *           sending the context and receiving the body, as the route would.
 *
 * Moving the work to the pool pays off only if the round trip costs the main thread less than the
 * evaluation it moves away.
 */
import { Piscina } from 'piscina';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import { compile, type ConstraintConfig, type FlagConfig, type SegmentConfig, type StrategyConfig } from '../src/evaluation/index.js';
import { frontendContext, frontendToggles, type FrontendAnswer, type FrontendSource } from '../src/features/frontend-api/evaluate.js';
import { commandLine } from '../tools/cli.js';
import { frontendContexts as contexts, OPERATORS } from './seed.js';

const SCOPE = { projects: ['default'], environment: 'development' };

/** bench/seed.ts's configuration as the engine stores it (the same flags, strategies and segments). */
function seededState(): FrontendSource {
  const constraint = (i: number): ConstraintConfig => ({ values: [], inverted: false, caseInsensitive: false, ...OPERATORS[i % OPERATORS.length]! });
  const segments: SegmentConfig[] = Array.from({ length: 5 }, (_, s) => ({ id: s + 1, name: `segment-${s}`, constraints: [constraint(s * 3), constraint(s * 3 + 1)] }));
  const flags: FlagConfig[] = [];
  for (let i = 0; i < 100; i++) {
    const name = `bench.flag.${String(i).padStart(3, '0')}`;
    const strategies: StrategyConfig[] = [];
    for (let k = 0; k < 1 + (i % 3); k++) {
      const kind = (i + k) % 3;
      const id = `${i}-${k}`;
      strategies.push(kind === 0
        ? {
            id, name: 'flexibleRollout', parameters: { rollout: String(20 + ((i * 7 + k * 13) % 80)), stickiness: 'default', groupId: name },
            constraints: [constraint(i + k), constraint(i + k + 5)], segments: i % 4 === 0 ? [(i % 5) + 1] : [],
            variants: i % 2 === 0
              ? [{ name: 'red', weight: 500, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: 'r' } }, { name: 'blue', weight: 500, weightType: 'variable', stickiness: 'default' }]
              : [],
          }
        : kind === 1
          ? { id, name: 'default', parameters: {}, constraints: [constraint(i + k + 2)] }
          : { id, name: 'remoteAddress', parameters: { IPs: '10.0.0.0/8, 192.168.1.1' }, constraints: [] });
    }
    const variants = i % 5 === 0
      ? [
          { name: 'a', weight: 340, weightType: 'variable' as const, stickiness: 'default', overrides: [{ contextName: 'userId', values: ['1'] }] },
          { name: 'b', weight: 330, weightType: 'variable' as const, stickiness: 'default', payload: { type: 'json', value: '{"x":1}' } },
          { name: 'c', weight: 100, weightType: 'fix' as const, stickiness: 'default' },
        ]
      : [];
    flags.push({
      name, project: 'default', createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      environments: { development: { enabled: true, strategies, variants } },
      dependencies: i % 10 === 9 ? [{ feature: `bench.flag.${String(i - 1).padStart(3, '0')}`, enabled: true }] : [],
    });
  }
  const compiled = compile({ flags, segments });
  return { compiled, memo: new Map(), flags: flags.map((flag) => ({ name: flag.name, project: flag.project, impressionData: false })) };
}

let workerState: FrontendSource | undefined;

/** The worker's task: the route's call, on the worker's own copy of the state. */
export default function evaluateInWorker(context: Record<string, unknown>): FrontendAnswer {
  workerState ??= seededState();
  return frontendToggles(workerState, SCOPE, frontendContext(context, '127.0.0.1'), false);
}

/** The batched task: every context queued in one turn of the main thread's loop, answered together. */
export function evaluateBatchInWorker(batch: Array<Record<string, unknown>>): FrontendAnswer[] {
  return batch.map(evaluateInWorker);
}

/**
 * Queues contexts and sends each turn's queue to the pool as one task: one message per batch
 * instead of one per answer (16 requests in flight arrive in the same few turns).
 */
function batching(pool: Piscina): (context: Record<string, unknown>) => Promise<FrontendAnswer> {
  let queue: Array<{ context: Record<string, unknown>; done: (answer: FrontendAnswer) => void; fail: (err: unknown) => void }> = [];
  const flush = () => {
    const batch = queue;
    queue = [];
    pool.run(batch.map((entry) => entry.context), { name: 'evaluateBatchInWorker' }).then(
      (answers: FrontendAnswer[]) => batch.forEach((entry, i) => entry.done(answers[i]!)),
      (err: unknown) => batch.forEach((entry) => entry.fail(err)),
    );
  };
  return (context) => new Promise((done, fail) => {
    if (queue.length === 0) setImmediate(flush);
    queue.push({ context, done, fail });
  });
}

async function measure(label: string, answer: (context: Record<string, unknown>) => Promise<FrontendAnswer> | FrontendAnswer): Promise<void> {
  const all = contexts();
  let next = 0;
  const run = async (count: number) => {
    const end = next + count;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < end) await answer(all[next++ % all.length]!);
    }));
  };
  await run(2000); // warm-up
  for (let round = 0; round < 3; round++) {
    const count = 20_000;
    const before = performance.eventLoopUtilization();
    const started = performance.now();
    await run(count);
    const busy = performance.eventLoopUtilization(before);
    const seconds = (performance.now() - started) / 1000;
    console.log(`${label}: main thread busy ${((busy.active * 1000) / count).toFixed(1)} µs per answer, ${(count / seconds).toFixed(0)} answers/s`);
  }
}

if (isMainThread && process.argv[1] === fileURLToPath(import.meta.url)) {
  commandLine(`
Usage: node dist/bench/frontend-dispatch.js   (npm run bench:frontend-dispatch)

The main thread's busy time per frontend API answer, evaluated on the main thread, on a 2-thread
pool, and on the pool batched per loop turn (bench/seed.ts's 100 flags, 400 rotating contexts).
No options.
`, {});
  const state = seededState();
  // An await per answer, as the route has.
  await measure('main', async (context) => frontendToggles(state, SCOPE, frontendContext(context, '127.0.0.1'), false));
  const pool = new Piscina({ filename: fileURLToPath(import.meta.url), minThreads: 2, maxThreads: 2 });
  await measure('pool', (context): Promise<FrontendAnswer> => pool.run(context));
  await measure('pool, batched per loop turn', batching(pool));
  await pool.destroy();
}
