/**
 * Piscina entry point of OFREP's bulk evaluation (the dispatcher of frontend-api/dispatch.ts, with
 * OFREP's answerer): one task answers every bulk request of one turn of the main thread's loop,
 * from the same shipped state as the frontend API's worker.
 */
import { batchAnswerer } from '../frontend-api/worker-state.js';
import { answerOfrep } from './evaluate.js';
export default batchAnswerer(answerOfrep);
//# sourceMappingURL=worker.js.map