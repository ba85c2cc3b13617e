import type { StoredDocument } from './outbox/documents.js';
import { LatestRevision } from './revision-cache.js';

/**
 * The configuration state: every live document of the configuration collections (flags,
 * segments, environments, projects, strategy types, API tokens, tags and tag types, change
 * requests, invite links, users), held in memory and kept current per commit. Admin reads are
 * answered from it and writes validate against it, so neither waits on the database for
 * configuration: on FerretDB one `_id` read takes about 1.5 ms, a map look-up well under a
 * microsecond.
 *
 * It is the commit log folded (src/db/outbox/): loaded at start from the newest snapshot and the commits after it, then each
 * commit applied in order as this process writes it or reads another instance's. The log is the
 * truth; a commit enters the state only once the database has stored it.
 *
 * Documents are kept as stored (bookkeeping fields included, flag environment keys escaped) and
 * shared: readers must not mutate them.
 */
export class CollectionMirror<T extends StoredDocument> {
  private docs = new Map<unknown, T>();
  private loadedOnce = false;
  /**
   * Counts every change of what is held (a document written, a load), so a
   * view kept beside the mirror (MirrorView) knows whether it is current.
   */
  private changes = 0;
  /** The ids changed by changes `journalFrom + 1` … `changes`, in order (see changedSince). */
  private journal: unknown[] = [];
  private journalFrom = 0;

  constructor(
    readonly name: string,
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

  private readonly loadListeners: Array<() => void> = [];

  /** `listener` hears of every load, once its documents are held. */
  onLoaded(listener: () => void): void {
    this.loadListeners.push(listener);
  }

  /** A load replaced what is held with `docs`. */
  replaceAll(docs: Map<unknown, T>): void {
    this.docs = docs;
    this.loadedOnce = true;
    this.noteReload();
    this.changed();
    for (const listener of this.loadListeners) listener();
  }

  /** A commit wrote `doc` (null: deleted) for `id`. */
  written(id: unknown, doc: T | null): void {
    if (doc) this.docs.set(id, doc);
    else this.docs.delete(id);
    this.noteChange(id);
    this.changed();
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
}

export class ConfigState {
  /** Every mirror by collection name, in creation order. */
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
    'tags', 'tag_types', 'change_requests', 'public_signup_tokens', 'users', 'context_fields',
    'personal_access_tokens', 'feature_types', 'settings', 'maintenance',
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
    const mirror = new CollectionMirror<HeldDocuments[K]>(name, () => this.revision++);
    typed[name] = mirror;
    this.mirrors.set(name, mirror);
    return mirror;
  }

  /** The mirror of a collection a commit writes, created if no store asked for it yet. */
  mirrorOf(name: string): CollectionMirror<StoredDocument> {
    const held = this.mirrors.get(name);
    if (held) return held;
    const mirror = new CollectionMirror<StoredDocument>(name, () => this.revision++);
    this.mirrors.set(name, mirror);
    return mirror;
  }

  get isLoaded(): boolean {
    return this.loaded;
  }

  /** Every collection held, with its mirror. */
  entries(): IterableIterator<[string, CollectionMirror<StoredDocument>]> {
    return this.mirrors.entries();
  }

  /** A load: every collection's documents replaced (one not in `docs` is emptied). */
  replaceAll(docs: Map<string, Map<unknown, StoredDocument>>, progress: (p: LoadProgress) => void = () => undefined): void {
    for (const name of docs.keys()) this.mirrorOf(name);
    for (const [name, mirror] of this.mirrors) {
      const held = docs.get(name) ?? new Map<unknown, StoredDocument>();
      mirror.replaceAll(held);
      progress({ collection: name, documents: held.size });
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
