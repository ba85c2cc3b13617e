/**
 * Entry point of OFREP's bulk evaluation (the dispatcher of src/features/frontend-api/dispatch.ts,
 * with OFREP's answerer): one task answers every bulk request of one turn of the main thread's
 * loop, from the same shipped state as the frontend API's tasks.
 */
import './thread-priority.js';
import { answerOfrep } from '../src/features/ofrep/evaluate.js';
import type { EntryPoint } from './protocol.js';
import { batchAnswerer } from './sdk-state.js';

export default batchAnswerer(answerOfrep) satisfies EntryPoint<'ofrep'>;
