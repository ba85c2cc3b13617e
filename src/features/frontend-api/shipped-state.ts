/**
 * The SDK state as the pool's threads receive it (dispatch.ts sends them the work; the threads'
 * side is workers/sdk-state.ts).
 *
 * A task carries the state as a `ShippedRevision` (src/evaluation/revision-chain.ts): a full copy
 * of a recent build — each live flag's name, project, impressionData and JSON, and each segment's
 * JSON, in the state's order — and the changes of each build since, as the state's chain recorded
 * them. A thread holding one of those builds applies only the changes after it (compiling the
 * changed flags), so a write costs the main thread the changed flags' JSON and each thread one
 * flag's compile, not the whole configuration's JSON, parse and compare (at 5 000 flags the whole
 * shipped form took 143 ms of CPU to make and 110 ms for a thread to take in, per build; a step
 * 0.2 and 4 ms, bench/readers.ts).
 */
import { sharedText, type SegmentConfig, type ShippedRevision } from '../../evaluation/index.js';
import { liveJsonOf, type LiveFlag } from '../flags/read-model.js';
import type { SdkState, StateChanges } from '../client-api/state.js';

/** The questions that arrived in one turn of the main thread's loop, and the state they were asked of. */
export interface BatchTask<Q> {
  state: ShippedState;
  questions: Q[];
}

/** A batch as a pool task of kind K (workers/protocol.ts). */
export type SdkBatch<K extends string, Q> = BatchTask<Q> & { kind: K };

/** A state as a task carries it: its revision is the state's build number (unique per SdkStateCache); its bytes are shared, not copied. */
export type ShippedState = ShippedRevision;

/** A live flag as JSON gives it back (dates as strings). */
export type LiveFlagJson = Omit<LiveFlag, 'createdAt'> & { createdAt: string };

/**
 * A flag with the fields a thread keeps apart, its JSON embedded as it is, not as a string: a
 * string is escaped again on the main thread and parsed twice in each thread (the 2 000-flag full
 * copy, 8 MB, took 0.45 s of the soak's main thread, a third of it that escaping).
 */
export type ShippedFlag = [name: string, project: string, impressionData: boolean, flag: LiveFlagJson];

/** The full copy's JSON. */
export interface ShippedJson {
  flags: ShippedFlag[];
  segments: Array<[id: number, segment: SegmentConfig]>;
}

/** A step's changes as a thread reads them. */
export interface ShippedChanges {
  /** Flags new or changed, in the state's order. */
  flags: ShippedFlag[];
  removedFlags: string[];
  segments: Array<[id: number, segment: SegmentConfig]>;
  removedSegments: number[];
  /** Every flag's name in the state's order, when the order is not the previous one with changed flags in their places. */
  order?: string[];
}

const SHIPPED = 'frontend\0shipped';

/** The state's shipped form, made on first use and kept with the state. */
export function shippedState(state: SdkState): ShippedState {
  let shipped = state.memo.get(SHIPPED) as ShippedState | undefined;
  if (shipped === undefined) {
    shipped = state.chain.ship(state.build, () => fullJson(state), changesJson);
    state.memo.set(SHIPPED, shipped);
  }
  return shipped;
}

/** The state shipped whole, on its own: what a chain's new base costs (bench/readers.ts times it). */
export function wholeShippedState(state: SdkState): ShippedState {
  return { revision: state.build, base: state.build, buffer: sharedText(fullJson(state)) };
}

/** A flag as shipped, serialised once per flag revision (its live JSON is made once too, flags/read-model.ts liveJsonOf). */
const shippedFlags = new WeakMap<object, string>();

function shippedFlagJson(flag: LiveFlag): string {
  let shipped = shippedFlags.get(flag);
  if (shipped === undefined) {
    shipped = `[${JSON.stringify(flag.name)},${JSON.stringify(flag.project)},${flag.impressionData},${liveJsonOf(flag)}]`;
    shippedFlags.set(flag, shipped);
  }
  return shipped;
}

function fullJson(state: SdkState): string {
  const flags = state.flags.map(shippedFlagJson);
  return `{"flags":[${flags.join(',')}],"segments":[${[...state.segmentJson].map(([id, json]) => `[${id},${json}]`).join(',')}]}`;
}

function changesJson(changes: StateChanges): string {
  const flags = changes.flags.map(shippedFlagJson);
  const segments: ShippedChanges['segments'] = changes.segments.map((segment) => [segment.id, segment]);
  return `{"flags":[${flags.join(',')}],"removedFlags":${JSON.stringify(changes.removedFlags)},"segments":${JSON.stringify(segments)},` +
    `"removedSegments":${JSON.stringify(changes.removedSegments)}${changes.order === undefined ? '' : `,"order":${JSON.stringify(changes.order)}`}}`;
}
