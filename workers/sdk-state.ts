/**
 * The SDK state as a pool thread holds it between tasks (the main thread's side, the shipped
 * form, is src/features/frontend-api/shipped-state.ts). A thread keeps the last state it was sent
 * and, on a new build, compiles only the flags and segments whose JSON changed (`compileChanges`,
 * as the main thread's rebuild does).
 */
import { LatestRevision } from '../src/db/revision-cache.js';
import { fromSharedJson, type CompiledSnapshot, type SegmentConfig } from '../src/evaluation/index.js';
import { compileChanges } from '../src/features/client-api/state.js';
import type { FrontendAnswer, FrontendSource } from '../src/features/frontend-api/evaluate.js';
import type { BatchTask, ShippedJson, ShippedState } from '../src/features/frontend-api/shipped-state.js';
import { toFlagConfig, type FlagData } from '../src/features/flags/read-model.js';

/**
 * An entry point's handler: each question of a batch answered by `answer` from the state the batch
 * carries (the frontend API's and OFREP's entry points; each keeps its copy of the state).
 */
export function batchAnswerer<Q>(answer: (source: FrontendSource, question: Q) => FrontendAnswer): (task: BatchTask<Q>) => FrontendAnswer[] {
  const states = new WorkerStates();
  return (task) => {
    const source = states.source(task.state);
    return task.questions.map((question) => answer(source, question));
  };
}

/** A flag's stored JSON (FlagData, dates as strings) as the engine's configuration. */
function flagConfigOf(json: string) {
  const data = JSON.parse(json) as FlagData;
  return toFlagConfig({ ...data, createdAt: new Date(data.createdAt) });
}

interface Held extends FrontendSource {
  flagJson: Map<string, string>;
  segmentJson: Map<number, string>;
  compiled: CompiledSnapshot;
}

/** A thread's copy of the latest state it was sent. */
export class WorkerStates {
  private readonly held = new LatestRevision<Held>();

  source(ref: ShippedState): FrontendSource {
    return this.held.get(ref.build, (previous) => {
      const json = fromSharedJson<ShippedJson>(ref.buffer);
      const flagJson = new Map(json.flags.map(([name, , , flag]) => [name, flag]));
      const segmentJson = new Map(json.segments);
      const compiled = compileChanges(previous, flagJson, segmentJson,
        (name) => flagConfigOf(flagJson.get(name)!), (id) => JSON.parse(segmentJson.get(id)!) as SegmentConfig);
      return {
        flagJson,
        segmentJson,
        compiled,
        flags: json.flags.map(([name, project, impressionData]) => ({ name, project, impressionData })),
        memo: new Map(),
      };
    });
  }
}
