import { LatestRevision } from '../src/db/revision-cache.js';
import { compile, fromSharedJson, overlay, type CompiledSnapshot, type Snapshot, type SnapshotChanges } from '../src/evaluation/index.js';
import type { SnapshotRef } from '../src/features/playground/protocol.js';

/**
 * What a pool thread keeps between tasks: the compiled snapshot of the latest revision and the
 * overlay of the last change request it was given, so a request split into many slices compiles
 * (tens of ms for 100 flags when cold) and overlays once per thread, not once per slice.
 */
export class CompiledSnapshotCache {
  /**
   * By revision only: every postMessage delivers a new SharedArrayBuffer object for the same shared
   * memory, so comparing buffers by identity would recompile on every task (it did: compile was
   * most of a worker's time). Revisions are unique within the pool's SnapshotCache.
   */
  private readonly base = new LatestRevision<CompiledSnapshot>();
  private overlayKey: string | undefined;
  private overlaid: CompiledSnapshot | undefined;

  /** `onNewRevision`: the owner drops what it derived from the previous revision. */
  constructor(private readonly onNewRevision: () => void = () => undefined) {}

  compiled(ref: SnapshotRef): CompiledSnapshot {
    return this.base.get(ref.revision, () => {
      const compiled = compile(fromSharedJson<Snapshot>(ref.buffer));
      this.overlayKey = undefined;
      this.overlaid = undefined;
      this.onNewRevision();
      return compiled;
    });
  }

  /** The compiled snapshot with a change request's changes laid over it (kept while `changesKey` repeats). */
  withChanges(ref: SnapshotRef, changes: SnapshotChanges | undefined, changesKey: string | undefined): CompiledSnapshot {
    const base = this.compiled(ref);
    if (!changes) return base;
    const key = `${ref.revision}:${changesKey ?? ''}`;
    if (this.overlaid && this.overlayKey === key && changesKey) return this.overlaid;
    this.overlaid = overlay(base, changes);
    this.overlayKey = key;
    return this.overlaid;
  }
}
