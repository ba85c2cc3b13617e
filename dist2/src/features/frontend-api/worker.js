/**
 * Piscina entry point of the frontend API (dispatch.ts): one task answers every frontend request
 * that arrived in one turn of the main thread's loop. Pure CPU work on the engine, no I/O.
 */
import { answerQuestion } from './evaluate.js';
import { WorkerStates } from './worker-state.js';
const states = new WorkerStates();
export default function answerBatch(task) {
    const source = states.source(task.state);
    return task.questions.map((question) => answerQuestion(source, question));
}
//# sourceMappingURL=worker.js.map