import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { DEFAULT_ENTRY } from '../../workers/protocol.js';
import type { PoolWorkerData } from '../../workers/thread-priority.js';
import { PoolScheduler } from './pool-scheduler.js';

/**
 * The Piscina pool that runs every playground evaluation, and a share of the frontend API's and
 * OFREP's. What runs on its threads is in workers/ (the task protocol: workers/protocol.ts).
 *
 * Choices (piscina 5 defaults in brackets):
 * - threads: PLAYGROUND_WORKERS, or one per core [1.5× cores]: evaluation is pure CPU, more
 *   threads than cores only adds switching; min = max so every thread stays warm with the
 *   compiled snapshot (a cold thread recompiles it, ~1–2 ms per 100 flags).
 * - idleTimeout 60 s [0]: with 0, threads churn under bursty load and lose their snapshot.
 * - no queue of its own [Infinity]: tasks wait in the PoolScheduler (pool-scheduler.ts), by lane,
 *   and reach Piscina only when a thread is free; PLAYGROUND_MAX_QUEUE bounds that queue.
 * - one task per thread at a time: tasks are synchronous CPU work.
 * - each thread lowers its own CPU priority to PLAYGROUND_WORKER_NICE when set (workers/thread-priority.ts).
 */
export interface PoolOptions {
  /**
   * The module the playground's tasks run (workers/playground.ts by default); tests wrap it to
   * inject faults.
   */
  filename?: string;
}

async function workerPoolPlugin(app: FastifyInstance, opts: PoolOptions): Promise<void> {
  const threads = app.config.PLAYGROUND_WORKERS || Math.max(1, availableParallelism());
  const pool = new Piscina({
    filename: opts.filename ?? DEFAULT_ENTRY,
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: 60_000,
    concurrentTasksPerWorker: 1,
    workerData: { nice: app.config.PLAYGROUND_WORKER_NICE } satisfies PoolWorkerData,
    // Measured: 'sync' (threads wait in Atomics.wait) 4 700 req/s on bench:playground S1; 'disabled' 4 100.
    atomics: 'sync',
  });
  pool.on('error', (err: unknown) => app.log.error({ err }, 'playground worker failed'));
  const scheduler = new PoolScheduler(pool, {
    threads, maxWaitMs: app.config.PLAYGROUND_MAX_WAIT_MS, maxQueue: app.config.PLAYGROUND_MAX_QUEUE,
  });
  scheduler.registerMetrics(app.metrics);
  app.decorate('workerPool', scheduler);
  app.addHook('onClose', async () => {
    await pool.destroy();
  });
}

declare module 'fastify' {
  interface FastifyInstance {
    workerPool: PoolScheduler;
  }
}

export default fp(workerPoolPlugin, { name: 'worker-pool' });
