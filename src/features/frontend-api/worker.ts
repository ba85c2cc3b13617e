/**
 * Piscina entry point of the frontend API (dispatch.ts): one task answers every frontend request
 * that arrived in one turn of the main thread's loop. Pure CPU work on the engine, no I/O.
 */
import { answerQuestion, type FrontendAnswer, type FrontendQuestion } from './evaluate.js';
import { WorkerStates, type ShippedState } from './worker-state.js';

export interface FrontendBatchTask {
  state: ShippedState;
  questions: FrontendQuestion[];
}

const states = new WorkerStates();

export default function answerBatch(task: FrontendBatchTask): FrontendAnswer[] {
  const source = states.source(task.state);
  return task.questions.map((question) => answerQuestion(source, question));
}
