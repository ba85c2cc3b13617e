import type { Outbox } from '../../db/outbox.js';
import { RevisionCache } from '../../db/revision-cache.js';
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
 * The evaluation snapshot, rebuilt from the configuration state once per revision (RevisionCache):
 * after this instance's commits (read-your-writes) and other instances' noticed within
 * REVISION_POLL_MS (Outbox.watchRevisions). Its build number is the revision the pool's threads
 * compile it once for.
 */
export class SnapshotCache extends RevisionCache<CurrentSnapshot> {
  constructor(source: SnapshotSource, outbox: Outbox) {
    super(async (revision) => {
      const raw = await source.load();
      return { ref: { revision, buffer: toSharedJson(raw) }, compiled: compile(raw) };
    });
    outbox.onCommitted(() => this.invalidate());
  }
}
