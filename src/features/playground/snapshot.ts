import type { Outbox } from '../../db/outbox/index.js';
import { compile, toSharedJson, type CompiledSnapshot, type Snapshot } from '../../evaluation/index.js';
import type { SnapshotRef } from './protocol.js';

/** Where the flag configuration comes from (the flags and segments stores). */
export interface SnapshotSource {
  load(): Promise<Snapshot>;
}

export interface CurrentSnapshot {
  ref: SnapshotRef;
  /** Compiled on the main thread too, once per revision: flag order and counts for the limit. */
  compiled: CompiledSnapshot;
}

/**
 * The evaluation snapshot, rebuilt from MongoDB once per revision.
 *
 * A revision changes when (a) this instance commits a write (outbox listener: read-your-writes,
 * since the write's response goes out after its flush) or (b) another instance does, noticed
 * within REVISION_POLL_MS by the outbox's revision watcher (Outbox.watchRevisions).
 */
export class SnapshotCache {
  private current: CurrentSnapshot | undefined;
  private dirty = true;
  private revision = 0;
  private building: Promise<CurrentSnapshot> | undefined;

  constructor(
    private readonly source: SnapshotSource,
    outbox: Outbox,
  ) {
    outbox.onCommitted(() => this.invalidate());
  }

  invalidate(): void {
    this.dirty = true;
  }

  /**
   * The snapshot as of now: rebuilt first when a write happened since the last build. Concurrent
   * requests share one rebuild; a build that started before a write does not count for it (the
   * write marked the cache dirty again), so a request after an acknowledged write always sees it.
   */
  async get(): Promise<CurrentSnapshot> {
    while (this.dirty || !this.current) {
      this.building ??= this.build().finally(() => {
        this.building = undefined;
      });
      await this.building;
    }
    return this.current;
  }

  private async build(): Promise<CurrentSnapshot> {
    this.dirty = false;
    try {
      const raw = await this.source.load();
      this.revision++;
      this.current = { ref: { revision: this.revision, buffer: toSharedJson(raw) }, compiled: compile(raw) };
      return this.current;
    } catch (err) {
      this.dirty = true;
      throw err;
    }
  }
}
