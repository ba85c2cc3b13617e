import type { Outbox } from '../../db/outbox/index.js';
import { RevisionCache } from '../../db/revision-cache.js';
import { compile, overlay, toSharedJson, type CompiledSnapshot, type Snapshot, type SnapshotChanges } from '../../evaluation/index.js';
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

/** The last change request laid over each snapshot on the main thread, by its changes' key. */
const overlays = new WeakMap<CurrentSnapshot, { key: string; compiled: CompiledSnapshot }>();

/**
 * The snapshot with a change request's changes laid over it on the main thread (the preview's
 * flag selection and limit, the impact's affected flags): once per snapshot and changes key, so a
 * request previewed again, or its impact asked after its preview, is not overlaid again. The pool's
 * threads keep their own overlay by the same key (workers/compiled-cache.ts).
 */
export function withChanges(snapshot: CurrentSnapshot, changes: SnapshotChanges | undefined, changesKey: string | undefined): CompiledSnapshot {
  if (!changes) return snapshot.compiled;
  const last = overlays.get(snapshot);
  if (changesKey !== undefined && last?.key === changesKey) return last.compiled;
  const compiled = overlay(snapshot.compiled, changes);
  if (changesKey !== undefined) overlays.set(snapshot, { key: changesKey, compiled });
  return compiled;
}
