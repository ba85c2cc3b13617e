import { DELETED_FIELD } from './outbox/documents.js';
/**
 * The configuration state: every live document of the configuration collections (flags,
 * segments, environments, projects, strategy types, API tokens, tags and tag types, change
 * requests, invite links, users), held in memory and kept current
 * per revision. Admin reads are answered from it and writes validate against it, so neither waits
 * on the database for configuration: on FerretDB reading the 104 flag documents of the bench
 * configuration (5 KB each) takes 150–200 ms, one `_id` read about 1.5 ms, a map look-up well
 * under a microsecond.
 *
 * How it stays current:
 * - this process's writes are applied by the outbox as soon as the database acknowledged them,
 *   before the write's events are flushed and before the request is answered (read-your-writes);
 * - other instances' writes are noticed through the revision token (Outbox.watchRevisions); the
 *   state then re-reads its collections and only afterwards tells the listeners, so a cache
 *   cleared by the notice never refills from the old state.
 *
 * The database stays the truth: a document is in the state only after the database accepted it,
 * and writes are conditional on the `_rev` the state holds (a stale copy makes the write fail
 * with ConcurrentModificationError; the writer refreshes that one document and retries).
 *
 * Documents are kept as stored (bookkeeping fields included, flag environment keys escaped) and
 * shared: readers must not mutate them.
 */
export class CollectionMirror {
    collection;
    changed;
    docs = new Map();
    /** Writes of this process while a load is under way: applied over the load's result. */
    pending;
    loadedOnce = false;
    /**
     * @param collection the outbox's handle of the collection (Outbox.collections): documents are
     * read as T through the driver's result type, with filters typed against StoredDocument
     */
    constructor(collection, changed) {
        this.collection = collection;
        this.changed = changed;
    }
    get loaded() {
        return this.loadedOnce;
    }
    get size() {
        return this.docs.size;
    }
    get(id) {
        return this.docs.get(id);
    }
    values() {
        return this.docs.values();
    }
    /** Reads the whole collection (live documents only) and replaces what is held. */
    async load() {
        this.pending ??= new Map();
        try {
            const docs = await this.collection.find({ [DELETED_FIELD]: { $ne: true } }).toArray();
            const next = new Map();
            for (const doc of docs)
                next.set(doc._id, doc);
            // A write acknowledged during the read may or may not be in what was read: keep the newer.
            for (const [id, doc] of this.pending) {
                const read = next.get(id);
                if (doc === null) {
                    next.delete(id);
                }
                else if (!read || (read._rev ?? 0) <= (doc._rev ?? 0)) {
                    next.set(id, doc);
                }
            }
            this.docs = next;
            this.loadedOnce = true;
            this.changed();
            return next.size;
        }
        finally {
            this.pending = undefined;
        }
    }
    /** Re-reads one document (after a conditional write found it changed by another instance). */
    async refresh(id) {
        // By `_id` alone: any other condition makes FerretDB scan the collection.
        const found = await this.collection.findOne({ _id: id });
        const doc = found && !found._deleted ? found : null;
        this.written(id, doc);
        return doc ?? undefined;
    }
    /** The database acknowledged `doc` (null: deleted) for `id`. */
    written(id, doc) {
        const held = this.docs.get(id);
        // An older revision never replaces a newer one (a refresh racing a write).
        if (doc && held && (held._rev ?? 0) > (doc._rev ?? 0))
            return;
        if (doc)
            this.docs.set(id, doc);
        else
            this.docs.delete(id);
        this.pending?.set(id, doc);
        this.changed();
    }
    /** The document's pending events were flushed: drop them from the held copy of that revision. */
    flushed(id, rev) {
        const held = this.docs.get(id);
        if (!held || held._rev !== rev || !held._outbox)
            return;
        const { _outbox: _flushed, ...rest } = held;
        this.docs.set(id, rest);
    }
}
export class ConfigState {
    handleOf;
    /** @param handleOf the outbox's handle of a collection (Outbox.collections), which mirrors read through */
    constructor(handleOf) {
        this.handleOf = handleOf;
    }
    /** Every mirror by collection name, in creation order (the order they load in). */
    mirrors = new Map();
    /** The same mirrors, typed by their collection's document type (HeldDocuments). */
    typed = {};
    /** Incremented by every change of any collection held: derived views are cached per revision. */
    revision = 0;
    derivedAt = -1;
    derivedValues = new Map();
    loaded = false;
    /** The names of the collections the state holds. */
    static COLLECTIONS = [
        'flags', 'segments', 'environments', 'projects', 'strategy_types', 'api_tokens',
        'tags', 'tag_types', 'change_requests', 'public_signup_tokens', 'users',
    ];
    isHeld(name) {
        return ConfigState.COLLECTIONS.includes(name);
    }
    /** The mirror of a held collection (created on first use). */
    mirror(name) {
        // Viewed through the requested key, so the checker relates the entry to HeldDocuments[K] (it
        // cannot through HeldMirrors indexed by a generic key, which it reads as every entry at once).
        const typed = this.typed;
        const held = typed[name];
        if (held)
            return held;
        const mirror = new CollectionMirror(this.handleOf(name), () => this.revision++);
        typed[name] = mirror;
        this.mirrors.set(name, mirror);
        return mirror;
    }
    /** The mirror for a write's collection, if the state holds it. */
    mirrorOf(name) {
        return this.mirrors.get(name);
    }
    get isLoaded() {
        return this.loaded;
    }
    loads = Promise.resolve();
    /** Loads every held collection; `progress` hears of each one. Loads run one after another. */
    async load(progress = () => undefined) {
        const next = this.loads.catch(() => undefined).then(() => this.loadAll(progress));
        this.loads = next;
        await next;
    }
    async loadAll(progress) {
        for (const mirror of this.mirrors.values()) {
            const started = performance.now();
            const documents = await mirror.load();
            progress({ collection: mirror.collection.collectionName, documents, ms: Math.round(performance.now() - started) });
        }
        this.loaded = true;
    }
    /**
     * A value computed from the state, kept until the state changes (list views, counts, indexes).
     * `build` must only read the state.
     */
    derived(key, build) {
        if (this.derivedAt !== this.revision) {
            this.derivedValues.clear();
            this.derivedAt = this.revision;
        }
        if (this.derivedValues.has(key))
            return this.derivedValues.get(key);
        const value = build();
        this.derivedValues.set(key, value);
        return value;
    }
}
//# sourceMappingURL=state.js.map