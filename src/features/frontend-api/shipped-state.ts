/**
 * The SDK state as the pool's threads receive it (dispatch.ts sends them the work; the threads'
 * side is workers/sdk-state.ts).
 *
 * The main thread turns a state into one SharedArrayBuffer once (memoized on the state): each
 * live flag's name, project, impressionData and JSON, and each segment's JSON, in the state's
 * order. A thread keeps the last state it was sent and, on a new build, compiles only the flags
 * and segments whose JSON changed, so a write costs each thread one flag's compile, not the whole
 * configuration's.
 */
import { toSharedJson } from '../../evaluation/index.js';
import type { SdkState } from '../client-api/state.js';

/** The questions that arrived in one turn of the main thread's loop, and the state they were asked of. */
export interface BatchTask<Q> {
  state: ShippedState;
  questions: Q[];
}

/** A batch as a pool task of kind K (workers/protocol.ts). */
export type SdkBatch<K extends string, Q> = BatchTask<Q> & { kind: K };

/** A state as a task carries it: its build number (unique per SdkStateCache) and its bytes, shared, not copied. */
export interface ShippedState {
  build: number;
  buffer: SharedArrayBuffer;
}

export type ShippedFlag = [name: string, project: string, impressionData: boolean, json: string];

/** The shared buffer's JSON. */
export interface ShippedJson {
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
