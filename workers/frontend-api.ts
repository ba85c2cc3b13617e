/**
 * Entry point of the frontend API's tasks (src/features/frontend-api/dispatch.ts): one task answers
 * every frontend request that arrived in one turn of the main thread's loop. Pure CPU work on the
 * engine, no I/O.
 */
import './thread-priority.js';
import { answerQuestion } from '../src/features/frontend-api/evaluate.js';
import type { EntryPoint } from './protocol.js';
import { batchAnswerer } from './sdk-state.js';

export default batchAnswerer(answerQuestion) satisfies EntryPoint<'frontend'>;
