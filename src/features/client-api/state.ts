import type { Outbox } from '../../db/outbox.js';
import { compile, type CompiledSnapshot, type SegmentConfig } from '../../evaluation/index.js';
import { toFlagConfig, type FlagData } from '../flags/store.js';

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
  /** For the frontend API: the engine's compiled form of the same configuration. */
  readonly compiled: CompiledSnapshot;
  /** Per-state memo (serialized bodies by token scope); dropped with the state. */
  readonly memo: Map<string, unknown>;
}

type Listener = (state: SdkState) => void;

/**
 * The SDK routes' view of the configuration, rebuilt from MongoDB at most once per revision so no
 * SDK request reads the database (the same invalidation as the playground snapshot: this
 * instance's commits at once, other instances' within REVISION_POLL_MS). Unlike the playground
 * snapshot it keeps the flags' descriptive fields (type, stale, impressionData, tags), which the
 * client API serves.
 */
export class SdkStateCache {
  private current: SdkState | undefined;
  private dirty = true;
  private builds = 0;
  private building: Promise<SdkState> | undefined;
  private readonly listeners = new Set<Listener>();
  private refreshTimer: NodeJS.Timeout | undefined;
  /** Whether anyone waits for pushes (open streams); only then is a new state built before it is asked for. */
  eager: () => boolean = () => false;

  constructor(
    private readonly source: SdkStateSource,
    private readonly outbox: Outbox,
  ) {
    outbox.onCommitted(() => this.invalidate());
  }

  invalidate(): void {
    this.dirty = true;
    // Push listeners (streaming) want the new state without waiting for a request to ask for it.
    if (this.eager() && this.refreshTimer === undefined) {
      this.refreshTimer = setTimeout(() => {
        this.refreshTimer = undefined;
        this.get().catch(() => undefined);
      }, 0);
    }
  }

  /** Told of every rebuilt state (streaming fan-out). */
  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async get(): Promise<SdkState> {
    while (this.dirty || !this.current) {
      this.building ??= this.rebuild().finally(() => {
        this.building = undefined;
      });
      await this.building;
    }
    return this.current;
  }

  private async rebuild(): Promise<SdkState> {
    this.dirty = false;
    try {
      const revisionId = this.outbox.lastEventId;
      const [flags, segmentList] = await Promise.all([this.source.flags(), this.source.segments()]);
      const live = flags.filter((flag) => !flag.archived);
      const segments = new Map(segmentList.map((segment) => [segment.id, segment]));
      const state: SdkState = {
        build: ++this.builds,
        revisionId,
        flags: live,
        flagsByName: new Map(live.map((flag) => [flag.name, flag])),
        segments,
        compiled: compile({ flags: live.map(toFlagConfig), segments: segmentList }),
        memo: new Map(),
      };
      const previous = this.current;
      this.current = state;
      if (previous !== undefined) for (const listener of this.listeners) listener(state);
      return state;
    } catch (err) {
      this.dirty = true;
      throw err;
    }
  }
}
