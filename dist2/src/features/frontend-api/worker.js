/**
 * Piscina entry point of the frontend API (dispatch.ts): one task answers every frontend request
 * that arrived in one turn of the main thread's loop. Pure CPU work on the engine, no I/O.
 */
import { answerQuestion } from './evaluate.js';
import { batchAnswerer } from './worker-state.js';
export default batchAnswerer(answerQuestion);
//# sourceMappingURL=worker.js.map