/**
 * Where a frontend answer is evaluated (on the worker pool or the main thread, whichever the
 * benchmark shows is faster): both, shared per loop turn.
 *
 * The frontend API's server is bound by its main thread: HTTP parsing, the socket write and the
 * evaluation all run there (bench/sdk.ts F1, in place: main thread ≈ 1 core, Vane and the load
 * generator together ≈ 1.5 of the 2 cores). Requests are gathered for one turn of the loop; the
 * main thread evaluates the first half itself and sends the rest to an idle pool thread as one
 * task. Measured choices (`npm run bench:sdk -- --only=F1,F2`, 16 connections):
 * - one task per request costs the main thread more than evaluating (bench/frontend-dispatch.ts:
 *   34–37 µs per answer against 22 in place);
 * - the whole turn's batch on the pool left the main thread waiting for the workers' answers
 *   (it was 60 % busy) and lowered F1 to 5 400–7 300 req/s;
 * - half on the pool, half in place: F1 8 100–10 100 and F2 9 600–12 900 req/s, against 7 300–
 *   7 900 and 7 700–9 000 in place in the same alternating runs.
 * A single request in a turn (light load) is answered in place: no hop, no added latency. A batch
 * goes to the pool only when a thread is idle, so it never waits behind another batch or a
 * playground slice. A failed task (a worker crash, the pool closing) is answered on the main
 * thread: nothing a client sees depends on the pool.
 */
import { Counter, type Registry } from 'prom-client';
import type { SdkState } from '../client-api/state.js';
import { answerQuestion, type FrontendAnswer, type FrontendQuestion, type FrontendSource, type ReceivedAnswer } from './evaluate.js';
import { shippedState, type BatchTask } from './shipped-state.js';

/** What the dispatcher needs of the pool (Piscina's `idleThreads`, and `run` with the entry point of its questions, workers/protocol.ts). */
export interface FrontendPool<Q = FrontendQuestion> {
  idleThreads(): number;
  run(task: BatchTask<Q>): Promise<ReceivedAnswer[]>;
}

/** How one question is answered, the same in place and in the worker (evaluate.ts `answerQuestion`, OFREP's `answerOfrep`). */
export type Answerer<Q> = (source: FrontendSource, question: Q) => FrontendAnswer;

interface Waiting<Q> {
  question: Q;
  done(answer: FrontendAnswer): void;
  fail(err: unknown): void;
}

type Where = 'pool' | 'main' | 'fallback';

export class EvaluationDispatcher<Q> {
  private queue: Waiting<Q>[] = [];
  /** The state the queued requests were asked of (one batch holds one state). */
  private queuedState: SdkState | undefined;
  /** Answers by where they were evaluated, and tasks sent (metrics, tests). */
  readonly counts = { pool: 0, main: 0, fallback: 0, tasks: 0 };

  /**
   * `pool` undefined: every answer on the main thread, at once (FRONTEND_EVALUATION=main).
   * `answerOne` answers a question in place; the pool runs a worker module that answers the same
   * way (FrontendDispatcher below; OFREP's bulk evaluation has its own answerer and worker).
   */
  constructor(
    private readonly pool: FrontendPool<Q> | undefined,
    private readonly onTaskFailure: (err: unknown) => void,
    private readonly answerOne: Answerer<Q>,
  ) {}

  answer(state: SdkState, question: Q): FrontendAnswer | Promise<FrontendAnswer> {
    if (this.pool === undefined) {
      this.counts.main++;
      return this.answerOne(state, question);
    }
    // A request that sees a newer state (a write in between) answers the older batch first.
    if (this.queuedState !== undefined && this.queuedState !== state) this.answerInPlace(this.queuedState, this.take(), 'main');
    return new Promise((done, fail) => {
      if (this.queue.length === 0) {
        this.queuedState = state;
        setImmediate(() => this.flush());
      }
      this.queue.push({ question, done, fail });
    });
  }

  /** `vane_<api>_answers_total{where}` and `vane_<api>_pool_tasks_total` (`api`: frontend, ofrep). */
  registerMetrics(registry: Registry, api = 'frontend', title = 'Frontend API'): void {
    const counts = this.counts;
    new Counter({
      name: `vane_${api}_answers_total`, help: `${title} answers by where they were evaluated (fallback: on the main thread after a failed pool task)`,
      labelNames: ['where'], registers: [registry],
      collect() {
        this.reset();
        for (const where of ['pool', 'main', 'fallback'] as const) this.inc({ where }, counts[where]);
      },
    });
    new Counter({
      name: `vane_${api}_pool_tasks_total`, help: `${title} batches sent to the worker pool`, registers: [registry],
      collect() {
        this.reset();
        this.inc(counts.tasks);
      },
    });
  }

  private take(): Waiting<Q>[] {
    const queue = this.queue;
    this.queue = [];
    this.queuedState = undefined;
    return queue;
  }

  private flush(): void {
    const state = this.queuedState;
    const batch = this.take();
    if (state === undefined || batch.length === 0) return;
    if (batch.length < 2 || this.pool!.idleThreads() === 0) return this.answerInPlace(state, batch, 'main');
    const local = batch.splice(0, Math.ceil(batch.length / 2));
    this.send(state, batch);
    this.answerInPlace(state, local, 'main');
  }

  private send(state: SdkState, batch: Waiting<Q>[]): void {
    this.counts.tasks++;
    const task: BatchTask<Q> = { state: shippedState(state), questions: batch.map((waiting) => waiting.question) };
    this.pool!.run(task).then(
      (answers) => {
        this.counts.pool += batch.length;
        for (let i = 0; i < batch.length; i++) batch[i]!.done(asBuffer(answers[i]!));
      },
      (err: unknown) => {
        this.onTaskFailure(err);
        this.answerInPlace(state, batch, 'fallback');
      },
    );
  }

  private answerInPlace(state: SdkState, batch: Waiting<Q>[], where: Where): void {
    this.counts[where] += batch.length;
    for (const waiting of batch) {
      try {
        waiting.done(this.answerOne(state, waiting.question));
      } catch (err) {
        waiting.fail(err);
      }
    }
  }
}

/** The frontend API's dispatcher: its questions, answered by evaluate.ts (in the pool by workers/frontend-api.ts). */
export class FrontendDispatcher extends EvaluationDispatcher<FrontendQuestion> {
  constructor(pool: FrontendPool | undefined, onTaskFailure: (err: unknown) => void = () => undefined) {
    super(pool, onTaskFailure, answerQuestion);
  }
}

/** A pool thread's answer with its body as a Buffer over the same bytes (no copy). */
function asBuffer({ body, etag }: ReceivedAnswer): FrontendAnswer {
  return { body: Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength), etag };
}
