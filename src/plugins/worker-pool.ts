import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { DEFAULT_ENTRY, entryOf, type ResultOf, type Task } from '../../workers/protocol.js';

/**
 * The Piscina pool that runs every playground evaluation, and a share of the frontend API's and
 * OFREP's. What runs on its threads is in workers/ (the task protocol: workers/protocol.ts).
 *
 * Choices (piscina 5 defaults in brackets):
 * - threads: PLAYGROUND_WORKERS, or one per core [1.5× cores]: evaluation is pure CPU, more
 *   threads than cores only adds switching; min = max so every thread stays warm with the
 *   compiled snapshot (a cold thread recompiles it, ~1–2 ms per 100 flags).
 * - idleTimeout 60 s [0]: with 0, threads churn under bursty load and lose their snapshot.
 * - maxQueue PLAYGROUND_MAX_QUEUE [Infinity]: bounded, so overload answers 503 at once
 *   (the service checks room before dispatching; this is the backstop).
 * - one task per thread at a time: tasks are synchronous CPU work.
 */
export interface PoolOptions {
  /**
   * The module the playground's tasks run (workers/playground.ts by default); tests wrap it to
   * inject faults.
   */
  filename?: string;
}

/**
 * Runs `task` on the pool, in its kind's entry point, and resolves with its result as the protocol
 * types it. `signal` aborts it (queued: removed; running: its thread is terminated and replaced).
 */
export function runTask<T extends Task>(pool: Piscina, task: T, signal?: AbortSignal): Promise<ResultOf<T>> {
  return pool.run(task, { filename: entryOf(task.kind), signal });
}

async function workerPoolPlugin(app: FastifyInstance, opts: PoolOptions): Promise<void> {
  const threads = app.config.PLAYGROUND_WORKERS || Math.max(1, availableParallelism());
  const pool = new Piscina({
    filename: opts.filename ?? DEFAULT_ENTRY,
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: 60_000,
    maxQueue: app.config.PLAYGROUND_MAX_QUEUE,
    concurrentTasksPerWorker: 1,
    // Measured: 'sync' (threads wait in Atomics.wait) 4 700 req/s on bench:playground S1; 'disabled' 4 100.
    atomics: 'sync',
  });
  pool.on('error', (err: unknown) => app.log.error({ err }, 'playground worker failed'));
  app.decorate('workerPool', pool);
  app.addHook('onClose', async () => {
    await pool.destroy();
  });
}

declare module 'fastify' {
  interface FastifyInstance {
    workerPool: Piscina;
  }
}

export default fp(workerPoolPlugin, { name: 'worker-pool' });
