import type { Outbox } from '../../db/outbox/index.js';
import { RevisionCache } from '../../db/revision-cache.js';
import { compile, overlay, RevisionChain, type CompiledSnapshot, type SegmentConfig } from '../../evaluation/index.js';
import { liveJsonOf, toFlagConfig, type LiveFlag } from '../flags/read-model.js';

/** What the SDK-facing routes read: the live flags and segments, loaded once per revision. */
export interface SdkStateSource {
  flags(): Promise<LiveFlag[]>;
  segments(): Promise<SegmentConfig[]>;
}

export interface SdkState {
  /** Increases by one per rebuild on this instance (keys the body cache). */
  readonly build: number;
  /** The newest event id this instance knew of when the state was read (Unleash's revisionId). */
  readonly revisionId: number;
  /** Non-archived flags in creation order. */
  readonly flags: readonly LiveFlag[];
  readonly flagsByName: ReadonlyMap<string, LiveFlag>;
  readonly segments: ReadonlyMap<number, SegmentConfig>;
  /**
   * Each segment's JSON: what tells one state's segment from the previous one's. A flag's is
   * `liveJsonOf(flag)`, made once per flag revision and looked up through the flag, not kept in a
   * map of the state's own (a write then copies one map fewer; the rebuild recompiles only changed
   * flags, the delta log sends only changed ones).
   */
  readonly segmentJson: ReadonlyMap<number, string>;
  /** For the frontend API: the engine's compiled form of the same configuration. */
  readonly compiled: CompiledSnapshot;
  /** What changed since the previous build (undefined: built whole). */
  readonly changes: StateChanges | undefined;
  /** The builds' changes as the pool's threads follow them, passed from state to state (frontend-api/shipped-state.ts ships it). */
  readonly chain: RevisionChain<StateChanges>;
  /** Per-state memo (serialized bodies by token scope); dropped with the state. */
  readonly memo: Map<string, unknown>;
  /**
   * The previous build and what changed since (frontend-api/evaluate.ts `SourceStep`: per-state
   * lists derived at the cost of the change; the delta log's advance). Cleared by the next build,
   * so a state holds at most the one before it.
   */
  step: SdkStep | undefined;
}

export interface SdkStep {
  readonly basis: SdkState;
  /** The changed flags when every other flag kept its place (none added, removed or moved); undefined otherwise. */
  readonly changed: readonly LiveFlag[] | undefined;
}

type Listener = (state: SdkState) => void;

/**
 * The SDK routes' view of the configuration, rebuilt from MongoDB at most once per revision so no
 * SDK request reads the database (a RevisionCache, like the playground snapshot: this instance's
 * commits at once, other instances' within REVISION_POLL_MS). Unlike the playground snapshot it
 * keeps the flags' descriptive fields (type, stale, impressionData, tags), which the client API
 * serves.
 */
export class SdkStateCache extends RevisionCache<SdkState> {
  private refreshTimer: NodeJS.Immediate | undefined;
  /** Wall-clock ms of the last commit this cache heard of (the stream fan-out's timing starts there). */
  invalidatedAt = 0;
  /** Whether anyone waits for pushes (open streams); only then is a new state built before it is asked for. */
  eager: () => boolean = () => false;

  constructor(source: SdkStateSource, outbox: Outbox) {
    super((build, previous) => buildState(source, outbox, build, previous));
    outbox.onCommitted(() => this.invalidate());
  }

  override invalidate(): void {
    super.invalidate();
    this.invalidatedAt = performance.timeOrigin + performance.now();
    // Push listeners (streaming) want the new state without waiting for a request to ask for it.
    // setImmediate, not setTimeout(0) (at least 1 ms): the write's answer is already on its way
    // (it is sent in the microtasks after the commit), and the rebuild follows in the same loop turn.
    if (this.eager() && this.refreshTimer === undefined) {
      this.refreshTimer = setImmediate(() => {
        this.refreshTimer = undefined;
        this.get().catch(() => undefined);
      });
    }
  }

  /** Told of every rebuilt state but the first (streaming fan-out). */
  onChange(listener: Listener): () => void {
    return this.onRebuilt((state, previous) => {
      if (previous !== undefined) listener(state);
    });
  }

  /**
   * `fn` of the current state: at once, without a promise, when the state is current (SDK polls
   * are most of the traffic); after a commit, once the rebuild has run.
   */
  use<T>(fn: (state: SdkState) => T | Promise<T>): T | Promise<T> {
    const state = this.fresh;
    return state !== undefined ? fn(state) : this.get().then(fn);
  }
}

/**
 * The state as of now, from the previous one: each flag's JSON made once per flag revision, only
 * the flags and segments that changed compiled again, and those changes recorded in the chain the
 * pool's threads follow (frontend-api/shipped-state.ts). A write then costs one pass over the
 * flags' names and objects instead of serialising every flag (about 4 KB each): a build after a
 * one-flag write took 64 ms of CPU at 2 000 flags and 204 ms at 5 000 serialising every flag,
 * 1.3 and 7.5 ms this way (bench/readers.ts).
 */
async function buildState(source: SdkStateSource, outbox: Outbox, build: number, previous: SdkState | undefined): Promise<SdkState> {
  const revisionId = outbox.lastEventId;
  const [flags, segmentList] = await Promise.all([source.flags(), source.segments()]);
  return stateOf(build, revisionId, flags, segmentList, previous);
}

/** The state of `flags` and `segmentList` numbered `build`, sharing with `previous` what did not change. */
export function stateOf(build: number, revisionId: number, flags: readonly LiveFlag[], segmentList: readonly SegmentConfig[], previous: SdkState | undefined): SdkState {
  const segmentJson = new Map(segmentList.map((segment) => [segment.id, JSON.stringify(segment)]));
  const inPlace = previous === undefined ? undefined : changedInPlace(previous, flags);
  let live: readonly LiveFlag[];
  let flagsByName: ReadonlyMap<string, LiveFlag>;
  let changes: StateChanges | undefined;
  if (previous !== undefined && inPlace !== undefined) {
    ({ flagsByName, changes } = updatedInPlace(previous, flags, inPlace, segmentList, segmentJson));
    live = flags;
  } else {
    live = flags.filter((flag) => !flag.archived);
    flagsByName = new Map(live.map((flag) => [flag.name, flag]));
    changes = previous === undefined ? undefined : changesSince(previous, live, flagsByName, segmentList, segmentJson);
  }
  const unchanged = changes !== undefined && changes.flags.length + changes.removedFlags.length + changes.segments.length + changes.removedSegments.length === 0;
  const chain = previous?.chain ?? new RevisionChain<StateChanges>();
  const items = live.length + segmentList.length;
  chain.record(build, previous?.build, changes, changes === undefined ? 0 : weightOf(changes), items);
  let compiled: CompiledSnapshot;
  if (previous === undefined || changes === undefined) {
    compiled = compile({ flags: live.map(toFlagConfig), segments: [...segmentList] });
  } else if (unchanged) {
    compiled = previous.compiled;
  } else {
    compiled = overlay(previous.compiled, {
      flags: changes.flags.map(toFlagConfig), removedFlags: changes.removedFlags, segments: changes.segments, removedSegments: changes.removedSegments,
    });
  }
  // The state before `previous` is let go here: only the newest state keeps a step back.
  if (previous !== undefined) previous.step = undefined;
  return {
    build,
    revisionId,
    flags: live,
    flagsByName,
    segments: previous !== undefined && changes !== undefined && changes.segments.length + changes.removedSegments.length === 0
      ? previous.segments
      : new Map(segmentList.map((segment) => [segment.id, segment])),
    segmentJson,
    compiled,
    changes,
    chain,
    memo: new Map(),
    step: previous === undefined || changes === undefined
      ? undefined
      : { basis: previous, changed: changes.order === undefined && changes.removedFlags.length === 0 ? changes.flags : undefined },
  };
}

/**
 * What changed from one state to the next: the flags and segments that are new or differ (a flag
 * by object first, its JSON only when the object is new), those gone, and every flag's name in
 * order when the order is other than the previous one with changed flags in their places (a flag
 * added or removed).
 */
export interface StateChanges {
  readonly flags: readonly LiveFlag[];
  readonly removedFlags: readonly string[];
  readonly segments: readonly SegmentConfig[];
  readonly removedSegments: readonly number[];
  readonly order: readonly string[] | undefined;
}

function changesSince(
  previous: SdkState,
  live: readonly LiveFlag[],
  flagsByName: ReadonlyMap<string, LiveFlag>,
  segmentList: readonly SegmentConfig[],
  segmentJson: ReadonlyMap<number, string>,
): StateChanges {
  const flags: LiveFlag[] = [];
  for (const flag of live) {
    const before = previous.flagsByName.get(flag.name);
    if (before !== flag && (before === undefined || liveJsonOf(before) !== liveJsonOf(flag))) flags.push(flag);
  }
  const removedFlags: string[] = [];
  if (previous.flags.length !== live.length || flags.length > 0) {
    for (const flag of previous.flags) if (!flagsByName.has(flag.name)) removedFlags.push(flag.name);
  }
  let reordered = previous.flags.length !== live.length;
  for (let i = 0; !reordered && i < live.length; i++) reordered = previous.flags[i]!.name !== live[i]!.name;
  const order = reordered ? live.map((flag) => flag.name) : undefined;
  return { flags, removedFlags, ...segmentChanges(previous, segmentList, segmentJson), order };
}

function segmentChanges(previous: SdkState, segmentList: readonly SegmentConfig[], segmentJson: ReadonlyMap<number, string>): Pick<StateChanges, 'segments' | 'removedSegments'> {
  return {
    segments: segmentList.filter((segment) => previous.segmentJson.get(segment.id) !== segmentJson.get(segment.id)),
    removedSegments: [...previous.segmentJson.keys()].filter((id) => !segmentJson.has(id)),
  };
}

/**
 * The usual write's state, found without a pass of look-ups: the same live flags in the same
 * places as `previous`, a few of them new objects (the source hands out one object per flag
 * revision, so an unchanged flag is the same object). The indexes of the new objects, or undefined
 * when the flags were added, removed, moved or archived, or too many changed (stateOf builds
 * the state whole then).
 *
 * Performance: a whole build after a one-flag write at 5 000 flags (bench/seed.ts) spends 8 ms
 * making each flag's maps and comparing each flag's JSON again (`--cpu-prof` of the server,
 * `/api/client/features` after each of 100 writes); this copies the previous maps (a native
 * copy) and looks at the changed flags only.
 */
function changedInPlace(previous: SdkState, flags: readonly LiveFlag[]): number[] | undefined {
  if (flags.length !== previous.flags.length) return undefined;
  const limit = 16 + flags.length / 8;
  const changed: number[] = [];
  for (let i = 0; i < flags.length; i++) {
    const flag = flags[i]!;
    const before = previous.flags[i]!;
    if (flag === before) continue;
    if (flag.archived || flag.name !== before.name || changed.length >= limit) return undefined;
    changed.push(i);
  }
  return changed;
}

function updatedInPlace(
  previous: SdkState, flags: readonly LiveFlag[], changed: readonly number[], segmentList: readonly SegmentConfig[], segmentJson: ReadonlyMap<number, string>,
): { flagsByName: ReadonlyMap<string, LiveFlag>; changes: StateChanges } {
  const segments = segmentChanges(previous, segmentList, segmentJson);
  if (changed.length === 0) {
    return { flagsByName: previous.flagsByName, changes: { flags: [], removedFlags: [], ...segments, order: undefined } };
  }
  const flagsByName = new Map(previous.flagsByName);
  const changedFlags: LiveFlag[] = [];
  for (const i of changed) {
    const flag = flags[i]!;
    if (liveJsonOf(flag) !== liveJsonOf(previous.flags[i]!)) changedFlags.push(flag);
    flagsByName.set(flag.name, flag);
  }
  return { flagsByName, changes: { flags: changedFlags, removedFlags: [], ...segments, order: undefined } };
}

function weightOf(changes: StateChanges): number {
  return changes.flags.length + changes.removedFlags.length + changes.segments.length + changes.removedSegments.length;
}
