import { compile, toSharedJson } from '../../evaluation/index.js';
/**
 * The evaluation snapshot, rebuilt from MongoDB once per revision.
 *
 * A revision changes when (a) this instance commits a write (outbox listener: read-your-writes,
 * since the write's response goes out after its flush) or (b) another instance does, noticed
 * within REVISION_POLL_MS by the outbox's revision watcher (Outbox.watchRevisions).
 */
export class SnapshotCache {
    source;
    current;
    dirty = true;
    revision = 0;
    building;
    constructor(source, outbox) {
        this.source = source;
        outbox.onCommitted(() => this.invalidate());
    }
    invalidate() {
        this.dirty = true;
    }
    /**
     * The snapshot as of now: rebuilt first when a write happened since the last build. Concurrent
     * requests share one rebuild; a build that started before a write does not count for it (the
     * write marked the cache dirty again), so a request after an acknowledged write always sees it.
     */
    async get() {
        while (this.dirty || !this.current) {
            this.building ??= this.build().finally(() => {
                this.building = undefined;
            });
            await this.building;
        }
        return this.current;
    }
    async build() {
        this.dirty = false;
        try {
            const raw = await this.source.load();
            this.revision++;
            this.current = { ref: { revision: this.revision, buffer: toSharedJson(raw) }, compiled: compile(raw) };
            return this.current;
        }
        catch (err) {
            this.dirty = true;
            throw err;
        }
    }
}
//# sourceMappingURL=snapshot.js.map