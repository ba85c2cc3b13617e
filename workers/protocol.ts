/**
 * The worker pool's task protocol: every kind of task the main thread sends to the pool's threads,
 * what it carries there, what comes back, and which module of this folder runs it.
 *
 * The payloads are declared by the features that build them (playground/protocol.ts,
 * playground-batch/protocol.ts, frontend-api/shipped-state.ts); this map ties each to its kind and
 * result, so the main thread's `PoolScheduler.run` (src/plugins/pool-scheduler.ts) returns a typed result and a
 * thread's entry point is checked against the same types.
 *
 * One pool, one module per group of kinds: a thread loads a module on the first task that names it
 * and keeps it, with what the module holds between tasks (compiled snapshots, the SDK state), for
 * as long as the thread lives. The SDK modules load the flag store's code (the MongoDB driver
 * among it), so they stay apart from the playground's: a pool that only serves the playground
 * never loads them.
 */
import { fileURLToPath } from 'node:url';
import type { move } from 'piscina';
import type { FrontendQuestion, ReceivedAnswer } from '../src/features/frontend-api/evaluate.js';
import type { SdkBatch } from '../src/features/frontend-api/shipped-state.js';
import type { OfrepQuestion } from '../src/features/ofrep/evaluate.js';
import type { ImpactChunk } from '../src/features/playground-batch/evaluate.js';
import type { BatchTask, ImpactTask } from '../src/features/playground-batch/protocol.js';
import type { AdvancedChunkTask, DeprecatedTask } from '../src/features/playground/protocol.js';

/** Each kind of task: its input (whose `kind` names it) and its result as the main thread receives it. */
export interface Tasks {
  /** The deprecated playground (one environment): the whole answer as UTF-8 JSON. */
  deprecated: { input: DeprecatedTask; result: Uint8Array };
  /** A slice of an advanced playground: its chunk (playground/protocol.ts layout), or its length in the lent memory. */
  'advanced-chunk': { input: AdvancedChunkTask; result: Uint8Array | number };
  /** Records of a batch evaluation as UTF-8. */
  batch: { input: BatchTask; result: Uint8Array };
  /** Counts and examples of a change request's impact on a range of contexts, with NDJSON lines when asked. */
  impact: { input: ImpactTask; result: ImpactChunk & { lines?: Uint8Array } };
  /** The frontend API's questions of one loop turn, answered in order. */
  frontend: { input: SdkBatch<'frontend', FrontendQuestion>; result: ReceivedAnswer[] };
  /** OFREP's bulk evaluations of one loop turn, answered in order. */
  ofrep: { input: SdkBatch<'ofrep', OfrepQuestion>; result: ReceivedAnswer[] };
}

export type TaskKind = keyof Tasks;
export type TaskInput<K extends TaskKind> = Tasks[K]['input'];
export type TaskResult<K extends TaskKind> = Tasks[K]['result'];
/** Any task the pool runs. */
export type Task = TaskInput<TaskKind>;
/** The result of task `T`, from its kind. */
export type ResultOf<T extends Task> = TaskResult<T['kind']>;

/** What an entry point returns for a task of kind K: the result, or the result wrapped by piscina's `move` to be transferred. */
export type Returned<K extends TaskKind> = TaskResult<K> | ReturnType<typeof move>;

/** An entry point for the kinds K: the thread's side of the protocol. */
export type EntryPoint<K extends TaskKind> = (task: TaskInput<K>) => Returned<K>;

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/** The pool's default module: the playground's kinds run it (tests start the pool with a wrapper of it to inject faults). */
export const DEFAULT_ENTRY = here('./playground.js');

/** Each kind's module; undefined: the pool's default module. */
const ENTRIES: Record<TaskKind, string | undefined> = {
  deprecated: undefined,
  'advanced-chunk': undefined,
  batch: here('./playground-batch.js'),
  impact: here('./playground-batch.js'),
  frontend: here('./frontend-api.js'),
  ofrep: here('./ofrep.js'),
};

export function entryOf(kind: TaskKind): string | undefined {
  return ENTRIES[kind];
}
