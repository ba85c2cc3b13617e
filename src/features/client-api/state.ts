import type { Outbox } from '../../db/outbox/index.js';
import { RevisionCache } from '../../db/revision-cache.js';
import { compile, overlay, type CompiledSnapshot, type FlagConfig, type SegmentConfig } from '../../evaluation/index.js';
import { toFlagConfig, type FlagData } from '../flags/read-model.js';

/** What the SDK-facing routes read: the live flags and segments, loaded once per revision. */
export interface SdkStateSource {
  flags(): Promise<FlagData[]>;
  segments(): Promise<SegmentConfig[]>;
}

export interface SdkState {
  /** Increases by one per rebuild on this instance (keys the body cache). */
  readonly build: number;
  /** The newest event id this instance knew of when the state was read (Unleash's revisionId). */
  readonly revisionId: number;
  /** Non-archived flags in creation order. */
  readonly flags: readonly FlagData[];
  readonly flagsByName: ReadonlyMap<string, FlagData>;
  readonly segments: ReadonlyMap<number, SegmentConfig>;
  /**
   * Each flag's and segment's JSON: what tells one state's flag from the previous one's (the
   * rebuild recompiles only changed flags, the delta log sends only changed ones).
   */
  readonly flagJson: ReadonlyMap<string, string>;
  readonly segmentJson: ReadonlyMap<number, string>;
  /** For the frontend API: the engine's compiled form of the same configuration. */
  readonly compiled: CompiledSnapshot;
  /** Per-state memo (serialized bodies by token scope); dropped with the state. */
  readonly memo: Map<string, unknown>;
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

/** The state as of now, its flags compiled anew only where they changed since `previous`. */
async function buildState(source: SdkStateSource, outbox: Outbox, build: number, previous: SdkState | undefined): Promise<SdkState> {
  const revisionId = outbox.lastEventId;
  const [flags, segmentList] = await Promise.all([source.flags(), source.segments()]);
  const live = flags.filter((flag) => !flag.archived);
  const segments = new Map(segmentList.map((segment) => [segment.id, segment]));
  const flagJson = new Map(live.map((flag) => [flag.name, JSON.stringify(flag)]));
  const flagsByName = new Map(live.map((flag) => [flag.name, flag]));
  const segmentJson = new Map(segmentList.map((segment) => [segment.id, JSON.stringify(segment)]));
  return {
    build,
    revisionId,
    flags: live,
    flagsByName,
    segments,
    flagJson,
    segmentJson,
    compiled: compileChanges(previous, flagJson, segmentJson,
      (name) => toFlagConfig(flagsByName.get(name)!), (id) => segments.get(id)!),
    memo: new Map(),
  };
}

/** A compiled snapshot with the JSON of each flag and segment it was compiled from. */
export interface CompiledFrom {
  readonly compiled: CompiledSnapshot;
  readonly flagJson: ReadonlyMap<string, string>;
  readonly segmentJson: ReadonlyMap<number, string>;
}

/**
 * The compiled snapshot of `flagJson` and `segmentJson` (flags in the map's order): the previous
 * one with only the flags and segments whose JSON changed compiled again, or a full compile when
 * there is no previous one. A full compile of the 100-flag bench configuration took 38–93 ms on
 * the loaded 2-core machine, and it sits between a write's acknowledgement and the stream
 * fan-out; one toggled flag costs one flag's compile (compiled flags look segments up at
 * evaluation time, so a segment change recompiles no flag). The frontend API's worker threads
 * (workers/sdk-state.ts) keep their copies current the same way.
 */
export function compileChanges(
  previous: CompiledFrom | undefined,
  flagJson: ReadonlyMap<string, string>,
  segmentJson: ReadonlyMap<number, string>,
  flagConfig: (name: string) => FlagConfig,
  segmentConfig: (id: number) => SegmentConfig,
): CompiledSnapshot {
  if (previous === undefined) return compile({ flags: [...flagJson.keys()].map(flagConfig), segments: [...segmentJson.keys()].map(segmentConfig) });
  const flags: FlagConfig[] = [];
  for (const [name, json] of flagJson) if (previous.flagJson.get(name) !== json) flags.push(flagConfig(name));
  const removedFlags = [...previous.flagJson.keys()].filter((name) => !flagJson.has(name));
  const segments: SegmentConfig[] = [];
  for (const [id, json] of segmentJson) if (previous.segmentJson.get(id) !== json) segments.push(segmentConfig(id));
  const removedSegments = [...previous.segmentJson.keys()].filter((id) => !segmentJson.has(id));
  if (flags.length + removedFlags.length + segments.length + removedSegments.length === 0) return previous.compiled;
  return overlay(previous.compiled, { flags, removedFlags, segments, removedSegments });
}
