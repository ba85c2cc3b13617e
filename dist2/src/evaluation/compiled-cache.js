import { compile, overlay } from './compile.js';
import { fromSharedJson } from './shared-json.js';
/**
 * What a worker thread keeps between tasks: the compiled snapshot of the latest revision and the
 * overlay of the last change request it was given, so a request split into many slices compiles
 * (tens of ms for 100 flags when cold) and overlays once per thread, not once per slice.
 */
export class CompiledSnapshotCache {
    onNewRevision;
    revision = -1;
    base;
    overlayKey;
    overlaid;
    /** `onNewRevision`: the owner drops what it derived from the previous revision. */
    constructor(onNewRevision = () => undefined) {
        this.onNewRevision = onNewRevision;
    }
    /**
     * By revision only: every postMessage delivers a new SharedArrayBuffer object for the same shared
     * memory, so comparing buffers by identity would recompile on every task (it did: compile was
     * most of a worker's time). Revisions are unique within the pool's SnapshotCache.
     */
    compiled(ref) {
        if (this.base && this.revision === ref.revision)
            return this.base;
        this.base = compile(fromSharedJson(ref.buffer));
        this.revision = ref.revision;
        this.overlayKey = undefined;
        this.overlaid = undefined;
        this.onNewRevision();
        return this.base;
    }
    /** The compiled snapshot with a change request's changes laid over it (kept while `changesKey` repeats). */
    withChanges(ref, changes, changesKey) {
        const base = this.compiled(ref);
        if (!changes)
            return base;
        const key = `${ref.revision}:${changesKey ?? ''}`;
        if (this.overlaid && this.overlayKey === key && changesKey)
            return this.overlaid;
        this.overlaid = overlay(base, changes);
        this.overlayKey = key;
        return this.overlaid;
    }
}
//# sourceMappingURL=compiled-cache.js.map