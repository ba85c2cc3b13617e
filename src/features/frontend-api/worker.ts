/**
 * Piscina entry point of the frontend API (dispatch.ts): one task answers every frontend request
 * that arrived in one turn of the main thread's loop. Pure CPU work on the engine, no I/O.
 */
import { answerQuestion, type FrontendQuestion } from './evaluate.js';
import { batchAnswerer, type BatchTask } from './worker-state.js';

export type FrontendBatchTask = BatchTask<FrontendQuestion>;

export default batchAnswerer(answerQuestion);
