import { performance } from 'node:perf_hooks';
import type { Piscina } from 'piscina';
import { Gauge, type Registry } from 'prom-client';
import { serviceUnavailable, type ApiError } from '../errors.js';
import { entryOf, type ResultOf, type Task, type TaskKind } from '../../workers/protocol.js';

/**
 * Who waits for a task, in the order the pool serves them: an SDK's request (the frontend API and
 * OFREP, which use the pool only when a thread is idle), a person or script at the playground, a
 * bulk job (batch evaluation, a change request's impact).
 */
export type Lane = 'sdk' | 'interactive' | 'bulk';
export const LANES: readonly Lane[] = ['sdk', 'interactive', 'bulk'];

const LANE_OF: Record<TaskKind, Lane> = {
  frontend: 'sdk', ofrep: 'sdk', deprecated: 'interactive', 'advanced-chunk': 'interactive', batch: 'bulk', impact: 'bulk',
};

/**
 * The work in a task, in its kind's own unit; what a unit costs is learnt as tasks finish. A
 * deprecated playground's cost is the flags of the current snapshot, the same for every task
 * meanwhile, so one task is one unit.
 */
export function unitsOf(task: Task): number {
  switch (task.kind) {
    case 'deprecated': return 1;
    case 'advanced-chunk': return Math.max(1, (task.comboEnd - task.comboStart) * (task.flagEnd - task.flagStart));
    case 'batch': return Math.max(1, (task.end - task.start) * task.environments.length);
    case 'impact': return Math.max(1, (task.end - task.start) * task.flags.length);
    case 'frontend': case 'ofrep': return Math.max(1, task.questions.length);
  }
}

export interface SchedulerOptions {
  threads: number;
  /** Work that would not start within this is refused (503) at admission; queued work not started within twice this is dropped (503). */
  maxWaitMs: number;
  /** Tasks queued at most, over all lanes: the backstop when the estimates are still unknown. */
  maxQueue: number;
}

interface Job {
  readonly task: Task;
  readonly lane: Lane;
  readonly units: number;
  readonly estimateMs: number;
  readonly signal: AbortSignal | undefined;
  readonly resolve: (value: unknown) => void;
  readonly reject: (err: unknown) => void;
  startedAt: number;
  timer?: NodeJS.Timeout;
  onAbort?: () => void;
}

/** Until a kind's first task finishes: what one unit is assumed to cost. */
const PRIOR_MS_PER_UNIT = 0.01;
/** Weight of the newest task in a kind's cost per unit: about the last ten tasks count. */
const LEARNING_RATE = 0.2;

/**
 * Runs the pool's tasks by lane, never more at once than it has threads, and refuses work that
 * would wait too long before it even starts.
 *
 * Piscina's own queue is first come first served, and a task given a signal (all of ours) skips
 * a custom queue when no thread is idle; so the queue is kept here, and Piscina is handed a task
 * only when a thread is free. With Piscina's first-come queue bounded at PLAYGROUND_MAX_QUEUE
 * (64) alone, 16 heavy evaluations of 400 ms on one thread are all queued, the last answering
 * after about 6.4 s (test/features/playground/faults.test.ts); now those that cannot start within
 * the bound are refused at once.
 *
 * The expected wait of new work is the estimated cost of the tasks queued in its lane and the
 * lanes before it, plus what the running tasks have left, spread over the threads; each kind's
 * cost per unit (`unitsOf`) is the moving average of its finished tasks.
 */
export class PoolScheduler {
  private readonly queues: Record<Lane, Job[]> = { sdk: [], interactive: [], bulk: [] };
  private readonly running = new Set<Job>();
  private readonly msPerUnit = new Map<TaskKind, number>();
  private readonly refusals: Record<Lane, number> = { sdk: 0, interactive: 0, bulk: 0 };
  private readonly drops: Record<Lane, number> = { sdk: 0, interactive: 0, bulk: 0 };

  constructor(readonly piscina: Piscina, private readonly options: SchedulerOptions) {}

  get threads(): number {
    return this.options.threads;
  }

  get queued(): number {
    return this.queues.sdk.length + this.queues.interactive.length + this.queues.bulk.length;
  }

  /** Threads free right now with nothing queued for them. */
  get idleThreads(): number {
    return this.queued > 0 ? 0 : Math.max(0, this.options.threads - this.running.size);
  }

  /** How long work of `lane` given now would wait to start (ms), as estimated. */
  expectedWaitMs(lane: Lane): number {
    let ahead = 0;
    for (const l of LANES) {
      for (const job of this.queues[l]) ahead += job.estimateMs;
      if (l === lane) break;
    }
    if (ahead === 0 && this.running.size < this.options.threads) return 0;
    const now = performance.now();
    let left = 0;
    for (const job of this.running) left += Math.max(0, job.estimateMs - (now - job.startedAt));
    return (ahead + left) / this.options.threads;
  }

  /**
   * Refuses at once (503 with Retry-After) work of `lane` that would not start within the bound,
   * or whose `tasks` would overfill the queue. Called before a request's first task.
   */
  admit(lane: Lane, tasks = 1): void {
    const wait = this.expectedWaitMs(lane);
    if (wait <= this.options.maxWaitMs && this.queued + tasks <= this.options.maxQueue + this.idleThreads) return;
    this.refusals[lane]++;
    throw this.atCapacity(wait);
  }

  /** Runs `task` in its lane; `signal` aborts it (queued: removed; running: its thread is replaced). */
  run<T extends Task>(task: T, signal?: AbortSignal): Promise<ResultOf<T>> {
    return new Promise<ResultOf<T>>((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortError(signal));
        return;
      }
      const units = unitsOf(task);
      const job: Job = {
        task, lane: LANE_OF[task.kind], units, signal, startedAt: 0,
        estimateMs: units * (this.msPerUnit.get(task.kind) ?? PRIOR_MS_PER_UNIT),
        resolve: resolve as (value: unknown) => void, reject,
      };
      if (this.idleThreads > 0) {
        this.start(job);
        return;
      }
      if (this.queued >= this.options.maxQueue) {
        this.refusals[job.lane]++;
        reject(this.atCapacity(this.expectedWaitMs(job.lane)));
        return;
      }
      this.queues[job.lane].push(job);
      job.timer = setTimeout(() => {
        if (!this.unqueue(job)) return;
        this.drops[job.lane]++;
        reject(this.atCapacity(this.expectedWaitMs(job.lane)));
      }, 2 * this.options.maxWaitMs);
      if (signal) {
        job.onAbort = () => {
          if (this.unqueue(job)) reject(abortError(signal));
        };
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
    });
  }

  /** The queue, the expected waits, and refused and dropped work, by lane, for Prometheus. */
  registerMetrics(registry: Registry): void {
    const byLane = (value: (lane: Lane) => number) => () => LANES.map((lane) => ({ lane, value: value(lane) }));
    const gauges = [
      ['vane_pool_queued_tasks', 'Tasks waiting for a pool thread, by lane', byLane((lane) => this.queues[lane].length)],
      ['vane_pool_expected_wait_seconds', 'Estimated wait before new work of a lane starts', byLane((lane) => this.expectedWaitMs(lane) / 1000)],
      ['vane_pool_refused_total', 'Requests refused (503) because their work would not start in time, by lane', byLane((lane) => this.refusals[lane])],
      ['vane_pool_dropped_total', 'Queued tasks dropped (503) because they did not start in time, by lane', byLane((lane) => this.drops[lane])],
    ] as const;
    for (const [name, help, values] of gauges) {
      const gauge: Gauge = new Gauge({
        name, help, labelNames: ['lane'], registers: [registry],
        collect: () => {
          for (const { lane, value } of values()) gauge.set({ lane }, value);
        },
      });
    }
  }

  stats(): { queued: Record<Lane, number>; running: number; refused: Record<Lane, number>; dropped: Record<Lane, number> } {
    return {
      queued: { sdk: this.queues.sdk.length, interactive: this.queues.interactive.length, bulk: this.queues.bulk.length },
      running: this.running.size, refused: { ...this.refusals }, dropped: { ...this.drops },
    };
  }

  private atCapacity(waitMs: number): ApiError {
    // Retry once the work ahead would fit the bound again.
    const retryAfter = Math.max(1, Math.ceil((waitMs - this.options.maxWaitMs) / 1000));
    return serviceUnavailable('The playground is at capacity right now. Retry shortly.', retryAfter);
  }

  private unqueue(job: Job): boolean {
    const queue = this.queues[job.lane];
    const index = queue.indexOf(job);
    if (index === -1) return false;
    queue.splice(index, 1);
    this.forget(job);
    return true;
  }

  private forget(job: Job): void {
    clearTimeout(job.timer);
    if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
  }

  private start(job: Job): void {
    job.startedAt = performance.now();
    this.running.add(job);
    this.piscina.run(job.task, { filename: entryOf(job.task.kind), signal: job.signal }).then(
      (result: unknown) => {
        this.learn(job);
        job.resolve(result);
      },
      job.reject,
    ).finally(() => {
      this.running.delete(job);
      this.drain();
    });
  }

  private drain(): void {
    while (this.running.size < this.options.threads) {
      const next = this.queues.sdk.shift() ?? this.queues.interactive.shift() ?? this.queues.bulk.shift();
      if (!next) return;
      this.forget(next);
      this.start(next);
    }
  }

  private learn(job: Job): void {
    const rate = (performance.now() - job.startedAt) / job.units;
    const known = this.msPerUnit.get(job.task.kind);
    this.msPerUnit.set(job.task.kind, known === undefined ? rate : known + LEARNING_RATE * (rate - known));
  }
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason ?? 'aborted'));
}
