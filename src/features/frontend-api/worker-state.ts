/**
 * The SDK state as the frontend API's worker threads hold it (dispatch.ts sends them the work).
 *
 * The main thread turns a state into one SharedArrayBuffer once (memoized on the state): each
 * live flag's name, project, impressionData and JSON, and each segment's JSON, in the state's
 * order. A worker keeps the last state it was sent and, on a new build, compiles only the flags
 * and segments whose JSON changed (`compileChanges`, as the main thread's rebuild does), so a
 * write costs each thread one flag's compile, not the whole configuration's.
 */
import { fromSharedJson, toSharedJson, type CompiledSnapshot, type SegmentConfig } from '../../evaluation/index.js';
import { compileChanges, type SdkState } from '../client-api/state.js';
import { toFlagConfig, type FlagData } from '../flags/read-model.js';
import type { FrontendAnswer, FrontendSource } from './evaluate.js';

/** One pool task: the questions that arrived in one turn of the main thread's loop, and the state they were asked of. */
export interface BatchTask<Q> {
  state: ShippedState;
  questions: Q[];
}

/**
 * A worker entry point: each question of a batch answered by `answer` from the state the batch
 * carries (the frontend API's worker.ts and OFREP's share this; the worker keeps its copy of the
 * state between tasks).
 */
export function batchAnswerer<Q>(answer: (source: FrontendSource, question: Q) => FrontendAnswer): (task: BatchTask<Q>) => FrontendAnswer[] {
  const states = new WorkerStates();
  return (task) => {
    const source = states.source(task.state);
    return task.questions.map((question) => answer(source, question));
  };
}

/** A state as a task carries it: its build number (unique per SdkStateCache) and its bytes, shared, not copied. */
export interface ShippedState {
  build: number;
  buffer: SharedArrayBuffer;
}

type ShippedFlag = [name: string, project: string, impressionData: boolean, json: string];
interface ShippedJson {
  flags: ShippedFlag[];
  segments: Array<[id: number, json: string]>;
}

const SHIPPED = 'frontend\0shipped';

/** The state's shipped form, made on first use and kept with the state. */
export function shippedState(state: SdkState): ShippedState {
  let shipped = state.memo.get(SHIPPED) as ShippedState | undefined;
  if (shipped === undefined) {
    const json: ShippedJson = {
      flags: state.flags.map((flag) => [flag.name, flag.project, flag.impressionData, state.flagJson.get(flag.name)!]),
      segments: [...state.segmentJson],
    };
    shipped = { build: state.build, buffer: toSharedJson(json) };
    state.memo.set(SHIPPED, shipped);
  }
  return shipped;
}

/** A flag's stored JSON (FlagData, dates as strings) as the engine's configuration. */
function flagConfigOf(json: string) {
  const data = JSON.parse(json) as FlagData;
  return toFlagConfig({ ...data, createdAt: new Date(data.createdAt) });
}

interface Held extends FrontendSource {
  build: number;
  flagJson: Map<string, string>;
  segmentJson: Map<number, string>;
  compiled: CompiledSnapshot;
}

/** A worker's copy of the latest state it was sent. */
export class WorkerStates {
  private held: Held | undefined;

  source(ref: ShippedState): FrontendSource {
    if (this.held?.build === ref.build) return this.held;
    const json = fromSharedJson<ShippedJson>(ref.buffer);
    const flagJson = new Map(json.flags.map(([name, , , flag]) => [name, flag]));
    const segmentJson = new Map(json.segments);
    const compiled = compileChanges(this.held, flagJson, segmentJson,
      (name) => flagConfigOf(flagJson.get(name)!), (id) => JSON.parse(segmentJson.get(id)!) as SegmentConfig);
    this.held = {
      build: ref.build,
      flagJson,
      segmentJson,
      compiled,
      flags: json.flags.map(([name, project, impressionData]) => ({ name, project, impressionData })),
      memo: new Map(),
    };
    return this.held;
  }
}
