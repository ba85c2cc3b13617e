import type { Collection } from 'mongodb';
import type { DocumentId, StoredDocument } from './outbox/documents.js';
import { LatestRevision } from './revision-cache.js';

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
/** A document the load found with events not yet in the log or deleted: its bookkeeping as read. */
export type Unflushed = Pick<StoredDocument, '_id' | '_rev' | '_outbox' | '_deleted'>;

export class CollectionMirror<T extends StoredDocument> {
  private docs = new Map<unknown, T>();
  /** Writes of this process while a load is under way: applied over the load's result. */
  private pending: Map<unknown, T | null> | undefined;
  private loadedOnce = false;
  /**
   * Counts every change of what is held (a document written, refreshed or flushed, a load), so a
   * view kept beside the mirror (MirrorView) knows whether it is current.
   */
  private changes = 0;
  /** The ids changed by changes `journalFrom + 1` … `changes`, in order (see changedSince). */
  private journal: unknown[] = [];
  private journalFrom = 0;

  /**
   * @param collection the outbox's handle of the collection (Outbox.collections): documents are
   * read as T through the driver's result type, with filters typed against StoredDocument
   */
  constructor(
    readonly collection: Collection<StoredDocument>,
    private readonly changed: () => void,
  ) {}

  get loaded(): boolean {
    return this.loadedOnce;
  }

  get size(): number {
    return this.docs.size;
  }

  get(id: unknown): T | undefined {
    return this.docs.get(id);
  }

  values(): IterableIterator<T> {
    return this.docs.values();
  }

  /** The number of changes so far (see `changes`). */
  get version(): number {
    return this.changes;
  }

  /**
   * The ids of the documents changed since `version` (each once, oldest change first), or
   * undefined when they are no longer known: a load replaced everything since, or the journal
   * was trimmed past it. Then a view rebuilds whole.
   */
  changedSince(version: number): unknown[] | undefined {
    if (version < this.journalFrom || version > this.changes) return undefined;
    return [...new Set(this.journal.slice(version - this.journalFrom))];
  }

  /**
   * The journal keeps at least as many changes as there are documents (and 1 024): a view
   * further behind than that rebuilds whole, which costs no more than applying them one by one.
   */
  private noteChange(id: unknown): void {
    this.changes++;
    this.journal.push(id);
    const keep = Math.max(1024, this.docs.size);
    if (this.journal.length > 2 * keep) {
      const dropped = this.journal.length - keep;
      this.journal = this.journal.slice(dropped);
      this.journalFrom += dropped;
    }
  }

  /** A load replaced what is held: no view can catch up change by change. */
  private noteReload(): void {
    this.changes++;
    this.journal = [];
    this.journalFrom = this.changes;
  }

  /**
   * The documents the last load found with events not yet in the log (`_outbox`) or deleted
   * (tombstones), until taken (Outbox.repair at start): the start's repair flushes those instead
   * of reading every collection twice more. At 5 000 bench flags (8 100 flag documents, 27 Nov)
   * those two scans were 2.0 of the 5.3 s from the state's load to serving the API.
   */
  private unflushed: Unflushed[] | undefined;

  /** What the last load found unflushed (see `unflushed`), once; undefined when taken already. */
  takeUnflushedAtLoad(): Unflushed[] | undefined {
    const unflushed = this.unflushed;
    this.unflushed = undefined;
    return unflushed;
  }

  private readonly loadListeners: Array<() => void> = [];

  /** `listener` hears of every load, once its documents are held. */
  onLoaded(listener: () => void): void {
    this.loadListeners.push(listener);
  }

  /**
   * Reads the whole collection and replaces what is held with its live documents. Tombstones are
   * read too (a scan either way on FerretDB) and only noted, with the documents still holding
   * events (`unflushed`).
   */
  async load(): Promise<number> {
    this.pending ??= new Map();
    try {
      const docs = await this.collection.find<T>({}).toArray();
      const next = new Map<unknown, T>();
      const unflushed: Unflushed[] = [];
      for (const doc of docs) {
        if (doc._outbox !== undefined || doc._deleted) unflushed.push({ _id: doc._id, _rev: doc._rev, _outbox: doc._outbox, _deleted: doc._deleted });
        if (!doc._deleted) next.set(doc._id, doc);
      }
      this.unflushed = unflushed;
      // A write acknowledged during the read may or may not be in what was read: keep the newer.
      for (const [id, doc] of this.pending) {
        const read = next.get(id);
        if (doc === null) {
          next.delete(id);
        } else if (!read || (read._rev ?? 0) <= (doc._rev ?? 0)) {
          next.set(id, doc);
        }
      }
      this.docs = next;
      this.loadedOnce = true;
      this.noteReload();
      this.changed();
      for (const listener of this.loadListeners) listener();
      return next.size;
    } finally {
      this.pending = undefined;
    }
  }

  /**
   * Re-reads one document (after a conditional write found it changed by another instance).
   * @param evenIfOlder take the stored document even at an older revision than the one held: the
   *   caller found the database behind what this process wrote (a write of it was lost), and the
   *   database is the truth; otherwise an older revision is a read that raced a newer write.
   */
  async refresh(id: DocumentId, evenIfOlder = false): Promise<T | undefined> {
    // By `_id` alone: any other condition makes FerretDB scan the collection.
    const found = await this.collection.findOne<T>({ _id: id });
    const doc = found && !found._deleted ? found : null;
    this.written(id, doc, evenIfOlder);
    return doc ?? undefined;
  }

  /** The revision held for `id` (undefined: not held). */
  heldRevision(id: unknown): number | undefined {
    return this.docs.get(id)?._rev;
  }

  /** The database acknowledged `doc` (null: deleted) for `id`. */
  written(id: unknown, doc: T | null, evenIfOlder = false): void {
    const held = this.docs.get(id);
    // An older revision never replaces a newer one (a refresh racing a write).
    if (!evenIfOlder && doc && held && (held._rev ?? 0) > (doc._rev ?? 0)) return;
    if (doc) this.docs.set(id, doc);
    else this.docs.delete(id);
    this.pending?.set(id, doc);
    this.noteChange(id);
    this.changed();
  }

  /** The document's pending events were flushed: drop them from the held copy of that revision. */
  flushed(id: unknown, rev: number | undefined): void {
    const held = this.docs.get(id);
    if (!held || held._rev !== rev || !held._outbox) return;
    const { _outbox: _flushed, ...rest } = held;
    this.docs.set(id, rest as T);
    // A new object for the same content: views holding the old one take this one (MirrorView);
    // the state's revision stays, so per-revision values keep the old one meanwhile (harmless).
    this.noteChange(id);
  }
}

/**
 * A value computed from one collection's documents and kept current change by change: built whole
 * once (and after a load), then, when read after writes, updated with just the documents those
 * writes changed (`update` gets each changed id with its document now, undefined when gone; it
 * returns undefined to have the value built whole instead, e.g. for too many changes). Only
 * readers pay, and they pay per change, not per document held. `update` must return a new value
 * (or the same one unchanged) without altering one handed out before: readers may keep it.
 */
export class MirrorView<T extends StoredDocument, V> {
  private value: V | undefined;
  private at = -1;

  constructor(
    private readonly mirror: CollectionMirror<T>,
    private readonly build: (docs: Iterable<T>) => V,
    private readonly update: (value: V, changed: Array<[id: unknown, doc: T | undefined]>) => V | undefined,
  ) {}

  get(): V {
    const version = this.mirror.version;
    if (this.value !== undefined && this.at === version) return this.value;
    const ids = this.value === undefined ? undefined : this.mirror.changedSince(this.at);
    const updated = ids === undefined || this.value === undefined ? undefined : this.update(this.value, ids.map((id) => [id, this.mirror.get(id)]));
    const value = updated ?? this.build(this.mirror.values());
    this.value = value;
    this.at = version;
    return value;
  }
}

const newValues = () => new Map<string, unknown>();

/**
 * The document type of each collection the state holds, declared by the store that owns the
 * collection (module augmentation: `declare module '../../db/state.js' { interface HeldDocuments
 * { flags: StoredFlag } }`), so every reader of a collection's mirror gets it with that one type,
 * whichever of them created it.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by the stores' module augmentation
export interface HeldDocuments {}

type HeldMirrors = { [K in keyof HeldDocuments]?: CollectionMirror<HeldDocuments[K]> };

export interface LoadProgress {
  collection: string;
  documents: number;
  ms: number;
}

export class ConfigState {
  /** @param handleOf the outbox's handle of a collection (Outbox.collections), which mirrors read through */
  constructor(private readonly handleOf: (name: string) => Collection<StoredDocument>) {}

  /** Every mirror by collection name, in creation order (the order they load in). */
  private readonly mirrors = new Map<string, CollectionMirror<StoredDocument>>();
  /** The same mirrors, typed by their collection's document type (HeldDocuments). */
  private readonly typed: HeldMirrors = {};
  /** Incremented by every change of any collection held: derived views are cached per revision. */
  revision = 0;
  private readonly derivedValues = new LatestRevision<Map<string, unknown>>();
  private loaded = false;

  /** The names of the collections the state holds. */
  static readonly COLLECTIONS = [
    'flags', 'segments', 'environments', 'projects', 'strategy_types', 'api_tokens',
    'tags', 'tag_types', 'change_requests', 'public_signup_tokens', 'users',
  ] as const satisfies ReadonlyArray<keyof HeldDocuments>;

  isHeld(name: string): boolean {
    return (ConfigState.COLLECTIONS as readonly string[]).includes(name);
  }

  /** The mirror of a held collection (created on first use). */
  mirror<K extends keyof HeldDocuments>(name: K): CollectionMirror<HeldDocuments[K]> {
    // Viewed through the requested key, so the checker relates the entry to HeldDocuments[K] (it
    // cannot through HeldMirrors indexed by a generic key, which it reads as every entry at once).
    const typed: { [P in K]?: CollectionMirror<HeldDocuments[P]> } = this.typed;
    const held = typed[name];
    if (held) return held;
    const mirror = new CollectionMirror<HeldDocuments[K]>(this.handleOf(name), () => this.revision++);
    typed[name] = mirror;
    this.mirrors.set(name, mirror);
    return mirror;
  }

  /** The mirror for a write's collection, if the state holds it. */
  mirrorOf(name: string): CollectionMirror<StoredDocument> | undefined {
    return this.mirrors.get(name);
  }

  get isLoaded(): boolean {
    return this.loaded;
  }

  private loads: Promise<void> = Promise.resolve();

  /** Loads every held collection; `progress` hears of each one. Loads run one after another. */
  async load(progress: (p: LoadProgress) => void = () => undefined): Promise<void> {
    const next = this.loads.catch(() => undefined).then(() => this.loadAll(progress));
    this.loads = next;
    await next;
  }

  private async loadAll(progress: (p: LoadProgress) => void): Promise<void> {
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
  derived<V>(key: string, build: () => V): V {
    const values = this.derivedValues.get(this.revision, newValues);
    if (values.has(key)) return values.get(key) as V;
    const value = build();
    values.set(key, value);
    return value;
  }
}
