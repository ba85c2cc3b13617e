/**
 * Piscina entry point of the frontend API (dispatch.ts): one task answers every frontend request
 * that arrived in one turn of the main thread's loop. Pure CPU work on the engine, no I/O.
 */
import type { TokenScope } from '../client-api/features.js';
import { frontendToggles, type FrontendAnswer } from './evaluate.js';
import { WorkerStates, type ShippedState } from './worker-state.js';

/** One request of a batch: what `frontendToggles` takes besides the state. */
export interface FrontendQuestion {
  scope: TokenScope;
  context: Record<string, unknown>;
  all: boolean;
}

export interface FrontendBatchTask {
  state: ShippedState;
  questions: FrontendQuestion[];
}

const states = new WorkerStates();

export default function answerBatch(task: FrontendBatchTask): FrontendAnswer[] {
  const source = states.source(task.state);
  return task.questions.map(({ scope, context, all }) => frontendToggles(source, scope, context, all));
}
