import { randomUUID } from 'node:crypto';
import type { Collection, Db, Document } from 'mongodb';
import { isDuplicateKey } from './keys.js';
import { KeyedLock } from './keyed-lock.js';
import { ConfigState } from './state.js';

/**
 * How a change and its event are kept together (no change without its event, no event without
 * its change), on any MongoDB-compatible server — FerretDB has no multi-document transactions:
 *
 * 1. The change is ONE document write (insert, replace, or a tombstone for a delete) that also
 *    carries the change's pending events in the document's `_outbox` array. A single-document
 *    write is atomic everywhere, so the change and its events are committed together or not at all.
 * 2. `flush` then copies the pending events into `events` (idempotent: each has a unique `_id`
 *    key; numeric ids come from a unique index, retried on collision) and clears `_outbox`
 *    (or removes the tombstone).
 * 3. If the process dies (or the database goes away) between 1 and 2, `repair` — run at start and
 *    after the database comes back — flushes every document that still has an `_outbox`.
 *
 * So a reader of `events` may see an event a moment after its change, never an event without a
 * change, and never loses one.
 */

export const OUTBOX_FIELD = '_outbox';
export const REV_FIELD = '_rev';
export const DELETED_FIELD = '_deleted';

export interface AuditUser {
  name: string;
  id: number | null;
}

export interface EventTag {
  value: string;
  type: string;
}

export interface EventInput {
  type: string;
  featureName?: string | null;
  project?: string | null;
  environment?: string | null;
  data?: unknown;
  preData?: unknown;
  tags?: EventTag[];
}

/** An event as it waits in a document's `_outbox`. */
export interface PendingEvent {
  key: string;
  type: string;
  createdBy: string;
  createdByUserId: number | null;
  createdAt: Date;
  data: unknown;
  preData: unknown;
  tags: EventTag[];
  featureName: string | null;
  project: string | null;
  environment: string | null;
  groupType?: string;
  groupId?: string;
}

/** An event as stored in the `events` collection. */
export interface EventDocument extends Omit<PendingEvent, 'key'> {
  _id: string;
  id: number;
  /** Lower-cased JSON of data, preData and tags: what the free-text search matches. */
  searchText: string;
}

export const EVENT_TAIL = 'event_tail';

/** An id claimed in `event_tail`: the event's JSON, or `void` for an id that holds no event. */
export interface TailEntry {
  _id: string;
  id: number;
  key: string;
  body?: string | undefined;
  void?: boolean;
}

export function tailKey(id: number): string {
  return `e${id}`;
}

/** An event as the search returns it before presentation (no key, no search text), as JSON. */
export function storedEventJson(id: number, event: PendingEvent): string {
  const { key: _key, ...rest } = event;
  return JSON.stringify({ id, ...rest });
}

export interface StoredDocument extends Document {
  _id: unknown;
  _rev?: number;
  _outbox?: PendingEvent[];
  _deleted?: boolean;
}

export class ConcurrentModificationError extends Error {
  override name = 'ConcurrentModificationError';
}

/** Deep equality for JSON-like values (used to drop no-op update events, docs/rules.md §4.4). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function buildEvents(
  audit: AuditUser,
  inputs: EventInput[],
  options: { transactional?: boolean; at?: Date } = {},
): PendingEvent[] {
  const createdAt = options.at ?? new Date();
  const groupId = options.transactional ? randomUUID() : undefined;
  const events: PendingEvent[] = [];
  for (const input of inputs) {
    const data = input.data ?? null;
    const preData = input.preData ?? null;
    if (data !== null && preData !== null && jsonEqual(data, preData)) continue;
    events.push({
      key: randomUUID(),
      type: input.type,
      createdBy: audit.name,
      createdByUserId: audit.id,
      createdAt,
      data,
      preData,
      tags: input.tags ?? [],
      featureName: input.featureName ?? null,
      project: input.project ?? null,
      environment: input.environment ?? null,
      ...(groupId ? { groupType: 'transaction', groupId } : {}),
    });
  }
  return events;
}

export function searchTextOf(event: Pick<PendingEvent, 'data' | 'preData' | 'tags'>): string {
  const parts: string[] = [];
  if (event.data !== null && event.data !== undefined) parts.push(JSON.stringify(event.data));
  if (event.tags && event.tags.length > 0) parts.push(JSON.stringify(event.tags));
  if (event.preData !== null && event.preData !== undefined) parts.push(JSON.stringify(event.preData));
  return parts.join('\u0000').toLowerCase();
}

/** Strips the bookkeeping fields before a document leaves the store. */
export function withoutBookkeeping<T extends Document>(doc: T): Omit<T, '_outbox' | '_rev' | '_deleted'> {
  const { _outbox: _o, _rev: _r, _deleted: _d, ...rest } = doc;
  return rest;
}

export const LIVE = { [DELETED_FIELD]: { $ne: true } } as const;

/**
 * Told that state may have changed: `remote` false for a commit of this process, true when another
 * instance's revision was noticed.
 */
type Listener = (remote: boolean) => void;

const EVENTS_META = 'events';

interface MetaDocument {
  _id: string;
  lastId?: number;
  token?: string;
  /** Revision documents (`rev:<instance>`): this instance's write count and its latest changes. */
  seq?: number;
  at?: Date;
  recent?: ChangedDocument[];
}

/** One document written by an instance, as its revision document lists it. */
interface ChangedDocument {
  seq: number;
  coll: string;
  id: unknown;
}

const REVISION_PREFIX = 'rev:';
/** Changes listed per revision document: another instance that missed more reloads its state whole. */
const RECENT_CHANGES = 64;
/** Revision documents of instances silent this long are removed (their changes were seen long ago). */
const REVISION_DOCUMENT_TTL_MS = 24 * 3600_000;

export class Outbox {
  readonly events: Collection<EventDocument>;
  private readonly flushLock = new KeyedLock();
  private readonly writeLock = new KeyedLock();
  private readonly collections = new Map<string, Collection<StoredDocument>>();
  private readonly listeners = new Set<Listener>();
  private readonly appendedListeners = new Set<(entry: TailEntry) => void>();
  /** The next id to try; refreshed from the `meta` hint at every flush (refreshIdHint). */
  private nextEventId = 1;
  lastEventId = 0;

  private readonly meta: Collection<MetaDocument>;

  /** The configuration state every write of this process is applied to (src/db/state.ts). */
  readonly state = new ConfigState();

  /**
   * The newest events, one document per id (see appendEvent): where ids are claimed and where
   * other instances find events they have not seen. Kept small: the event log's mirror moves
   * complete blocks of it into `event_blocks` and prunes it (src/features/events/log-mirror.ts).
   */
  readonly tail: Collection<TailEntry>;

  constructor(private readonly db: Db) {
    this.events = db.collection<EventDocument>('events');
    this.tail = db.collection<TailEntry>(EVENT_TAIL);
    this.meta = db.collection<MetaDocument>('meta');
  }

  async createIndexes(): Promise<void> {
    await this.events.createIndex({ id: 1 }, { unique: true, name: 'id_unique' });
    await this.tail.createIndex({ key: 1 }, { unique: true, name: 'key_unique' });
    const info = await this.db.admin().command({ buildInfo: 1 }).catch(() => ({}) as Record<string, unknown>);
    this.atomicFilters = !('ferretdbVersion' in info);
  }

  /**
   * Whether the server applies `{_id, _rev}` filters through its `_id` index, atomically (MongoDB).
   * FerretDB scans the whole collection for any filter beyond `_id` equality: a conditional
   * replace of one flag took 44 ms on the 100-flag bench configuration (the whole write replay
   * spent 62 of its 75 s there) against 3.8 ms by `_id`; and it does not apply the condition
   * atomically anyway. There the revision is checked by a projected `_id` read (1.4 ms) just
   * before a write by `_id`, both under this process's keyed lock: the same guarantee for 5 ms
   * instead of 44. Off until createIndexes has asked the server.
   */
  private atomicFilters = false;

  /** An instance id for this process's revision document (see publishRevision). */
  private readonly instance = randomUUID();
  private seq = 0;
  private recent: ChangedDocument[] = [];
  private changedSincePublish: Array<{ coll: string; id: unknown }> = [];

  /**
   * Runs a write of `id` at revision `rev`: with the `_rev` condition in the filter where the
   * server applies it atomically, otherwise after checking `_rev` by an `_id` read.
   */
  private async conditionally(
    coll: Collection<StoredDocument>, id: unknown, rev: number | undefined,
    write: (filter: Document) => Promise<{ matchedCount: number }>,
  ): Promise<boolean> {
    if (this.atomicFilters) return (await write({ _id: id, [REV_FIELD]: rev })).matchedCount > 0;
    const stored = await coll.findOne({ _id: id } as never, { projection: { [REV_FIELD]: 1, [DELETED_FIELD]: 1 } });
    if (!stored || stored._deleted || stored._rev !== rev) return false;
    return (await write({ _id: id })).matchedCount > 0;
  }

  collection<T extends StoredDocument>(name: string): Collection<T> {
    const coll = this.db.collection<T>(name);
    this.collections.set(name, coll as unknown as Collection<StoredDocument>);
    return coll;
  }

  private notify(remote: boolean): void {
    for (const listener of this.listeners) listener(remote);
  }

  onCommitted(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Runs a read-modify-write of one aggregate with writes to it serialised in this process. */
  async exclusive<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return await this.writeLock.run(key, fn);
  }

  async insert<T extends StoredDocument>(coll: Collection<T>, doc: T, events: PendingEvent[]): Promise<void> {
    await this.insertPending(coll, doc, events);
    if (events.length) await this.flushWritten(coll as unknown as Collection<StoredDocument>, doc._id, { _rev: 1, _outbox: events });
    else await this.committedWithoutEvents();
  }

  /** Inserts `doc` with its events without flushing them (the caller flushes, see FlagService.create). */
  async insertPending<T extends StoredDocument>(coll: Collection<T>, doc: T, events: PendingEvent[]): Promise<void> {
    const stored = { ...doc, [REV_FIELD]: 1, ...(events.length ? { [OUTBOX_FIELD]: events } : {}) };
    await coll.insertOne(stored as never);
    this.written(coll.collectionName, doc._id, stored);
  }

  /**
   * A document write the database acknowledged: into the state, and published as a revision at
   * once, before its events are flushed, so other instances see it (and complete the flush should
   * this process die in between, see checkFlushedLater).
   */
  private written(coll: string, id: unknown, doc: StoredDocument | null): void {
    this.state.mirrorOf(coll)?.written(id, doc);
    this.changedSincePublish.push({ coll, id });
    this.publishSoon();
  }

  /** A conditional write found the document changed: the state re-reads it before the caller retries. */
  private async conflict(coll: Collection<StoredDocument>, id: unknown): Promise<never> {
    await this.state.mirrorOf(coll.collectionName)?.refresh(id);
    throw new ConcurrentModificationError(`document ${String(id)} changed meanwhile`);
  }

  /**
   * Replaces `current` (as read, with its `_rev`) by `next`. Throws ConcurrentModificationError
   * when another writer got there first; callers re-read and retry (see `retrying`).
   */
  async replace<T extends StoredDocument>(coll: Collection<T>, current: T, next: T, events: PendingEvent[]): Promise<void> {
    const rev = current._rev ?? 0;
    const generic = coll as unknown as Collection<StoredDocument>;
    const flushed = this.takeDeferredClear(generic, current._id);
    const outbox = [...this.stillPending(current._outbox, flushed), ...events];
    const stored = { ...next, [REV_FIELD]: rev + 1, ...(outbox.length ? { [OUTBOX_FIELD]: outbox } : {}) };
    delete (stored as StoredDocument)._id;
    const done = await this.documentLock.run(this.documentKey(generic, current._id), () =>
      this.conditionally(generic, current._id, current._rev, (filter) => generic.replaceOne(filter, stored)));
    if (!done) await this.conflict(generic, current._id);
    this.written(coll.collectionName, current._id, { ...stored, _id: current._id });
    if (outbox.length) await this.flushWritten(generic, current._id, stored);
    else await this.committedWithoutEvents();
  }

  /**
   * A write without events of its own (part of an operation whose event another document
   * carries, e.g. connecting a new environment to every project) still changes what readers see:
   * caches and snapshots must hear of it, here and on other instances.
   */
  private async committedWithoutEvents(): Promise<void> {
    this.notify(false);
  }

  /** Deletes `current`: a tombstone carries the events until they are flushed, then goes. */
  async remove<T extends StoredDocument>(coll: Collection<T>, current: T, events: PendingEvent[]): Promise<void> {
    const rev = current._rev ?? 0;
    const generic = coll as unknown as Collection<StoredDocument>;
    const flushed = this.takeDeferredClear(generic, current._id);
    const outbox = [...this.stillPending(current._outbox, flushed), ...events];
    const tombstone = { [REV_FIELD]: rev + 1, [DELETED_FIELD]: true, [OUTBOX_FIELD]: outbox };
    const done = await this.documentLock.run(this.documentKey(generic, current._id), () =>
      this.conditionally(generic, current._id, current._rev, (filter) => generic.replaceOne(filter, tombstone)));
    if (!done) await this.conflict(generic, current._id);
    this.written(coll.collectionName, current._id, null);
    await this.flushWritten(generic, current._id, tombstone);
  }

  /** Moves a document's pending events into `events`. Idempotent; safe to call again after a crash. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async flush(coll: Collection<any>, id: unknown): Promise<void> {
    const c = coll as unknown as Collection<StoredDocument>;
    await this.flushLock.run('events', async () => {
      const doc = await c.findOne({ _id: id } as never, { projection: { [OUTBOX_FIELD]: 1, [REV_FIELD]: 1, [DELETED_FIELD]: 1 } });
      if (doc) await this.flushLocked(c, id, doc);
    });
    this.notify(false);
  }

  /**
   * The same for a document this process has just written, as written (no read back): the write
   * is published as a revision at once, so other instances see the change before its events are
   * flushed (and can complete the flush should this process die, see pollRevisions).
   */
  protected async flushWritten(c: Collection<StoredDocument>, id: unknown, doc: Pick<StoredDocument, '_outbox' | '_rev' | '_deleted'>): Promise<void> {
    await this.flushLock.run('events', () => this.flushLocked(c, id, doc, true));
    this.notify(false);
  }

  /**
   * Clearing a document's flushed `_outbox` is one more write of the whole document (8 ms for a
   * 5 KB flag on FerretDB, a third of a flag write). After this process's own writes it waits
   * CLEAR_DELAY_MS: the next write of the document (an editing session writes one flag several
   * times in a row; the bench replay 7 times) overwrites `_outbox` anyway and cancels it, so most
   * never happen. Until then the copy is harmless: the state already dropped it, a write that read
   * it from the database leaves its keys out (stillPending), and flushing it again after a crash
   * stores nothing twice (appendEvent). The clear and the document's writes never overlap
   * (documentLock); closing the app runs every waiting clear (settle).
   */
  private readonly deferredClears = new Map<string, { coll: Collection<StoredDocument>; id: unknown; keys: Set<string>; timer: NodeJS.Timeout }>();
  private readonly documentLock = new KeyedLock();
  static readonly CLEAR_DELAY_MS = 500;

  private documentKey(coll: Collection<StoredDocument>, id: unknown): string {
    return `${coll.collectionName}\u0000${typeof id}\u0000${String(id)}`;
  }

  private deferClear(coll: Collection<StoredDocument>, id: unknown, events: PendingEvent[]): void {
    const key = this.documentKey(coll, id);
    const earlier = this.deferredClears.get(key);
    if (earlier) clearTimeout(earlier.timer);
    const keys = new Set([...(earlier?.keys ?? []), ...events.map((e) => e.key)]);
    const timer = setTimeout(() => void this.runDeferredClear(key).catch(() => undefined), Outbox.CLEAR_DELAY_MS);
    timer.unref();
    this.deferredClears.set(key, { coll, id, keys, timer });
  }

  /** Cancels a waiting clear of the document (a write is about to replace it); returns the keys it would have cleared. */
  private takeDeferredClear(coll: Collection<StoredDocument>, id: unknown): Set<string> | undefined {
    const key = this.documentKey(coll, id);
    const entry = this.deferredClears.get(key);
    if (!entry) return undefined;
    clearTimeout(entry.timer);
    this.deferredClears.delete(key);
    return entry.keys;
  }

  private stillPending(outbox: PendingEvent[] | undefined, flushed: Set<string> | undefined): PendingEvent[] {
    if (!outbox) return [];
    return flushed ? outbox.filter((e) => !flushed.has(e.key)) : outbox;
  }

  private async runDeferredClear(key: string): Promise<void> {
    const entry = this.deferredClears.get(key);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.deferredClears.delete(key);
    await this.documentLock.run(key, async () => {
      await entry.coll.updateOne({ _id: entry.id } as never, { $unset: { [OUTBOX_FIELD]: '' } });
    });
  }

  /** Runs every waiting clear now (closing the app; tests that look at stored documents). */
  async settle(): Promise<void> {
    await Promise.all([...this.deferredClears.keys()].map((key) => this.runDeferredClear(key)));
    await this.published();
  }

  private async flushLocked(
    c: Collection<StoredDocument>, id: unknown, doc: Pick<StoredDocument, '_outbox' | '_rev' | '_deleted'>, deferClear = false,
  ): Promise<void> {
    const pending = doc._outbox ?? [];
    if (pending.length) {
      await this.refreshIdHint();
      for (const event of pending) await this.appendEvent(event);
    }
    // On FerretDB by `_id` alone (see atomicFilters): the document was read or written just
    // before, under this process's keyed lock, and other instances learn of its new revision
    // only through the revision just published.
    const filter = this.atomicFilters ? { _id: id, [REV_FIELD]: doc._rev } : { _id: id };
    if (doc._deleted) {
      await c.deleteOne(filter as never);
    } else if (pending.length) {
      this.state.mirrorOf(c.collectionName)?.flushed(id, doc._rev);
      if (deferClear) this.deferClear(c, id, pending);
      else await c.updateOne(filter as never, { $unset: { [OUTBOX_FIELD]: '' } });
    }
  }

  /**
   * The next id starts from the newest id other instances published in their revision documents,
   * as of the last poll (no read here: a write costs a few round trips on FerretDB already). One
   * that appended since makes the claim collide and move on (claimId); ids below the tail's
   * window would only be found taken by the slow path of appendEvent, which the hint avoids.
   */
  private async refreshIdHint(): Promise<void> {
    if (!this.seen) await this.markRevisionsSeen();
    this.nextEventId = Math.max(this.nextEventId, this.othersLastId + 1);
  }

  /** The newest event id other instances published (their revision documents, see pollRevisions). */
  private othersLastId = 0;

  /**
   * Appends one event: 1. claims its id in `event_tail` (a unique `_id` per id; the tail is small,
   * so reading it back is cheap even on FerretDB, which scans a collection for any read); 2. stores
   * it in `events` (unique key and id). Both steps are idempotent, so a flush repeated after a
   * crash finds its claim (by key) and its stored event (duplicate key) instead of writing twice.
   */
  private async appendEvent(event: PendingEvent): Promise<void> {
    const { key, ...rest } = event;
    for (;;) {
      const claim = await this.claimId(event);
      if (claim.void) return; // stored before, under another id (see below)
      try {
        await this.events.insertOne({ _id: key, id: claim.id, ...rest, searchText: searchTextOf(event) });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        // Either this key is stored (a repeated flush), or the id is taken by an event stored
        // without a claim (a log written before the tail existed). A scan on FerretDB, but only
        // on this path.
        const stored = await this.events.findOne({ _id: key }, { projection: { id: 1 } });
        if (!stored) {
          await this.tail.deleteOne({ _id: tailKey(claim.id), key });
          // The hint is behind a log this instance never heard of (written by an older Vane, or
          // ids that left the tail before it polled): jump past the newest stored id at once
          // instead of colliding once per id (2 100 ids took 490 s on FerretDB).
          const newest = await this.events.find({}, { projection: { id: 1 } }).sort({ id: -1 }).limit(1).next();
          this.nextEventId = Math.max(claim.id, newest?.id ?? 0) + 1;
          continue;
        }
        if (stored.id !== claim.id) {
          // Stored under an older id whose claim has left the tail: this claim becomes a void slot
          // (ids stay dense: the log's blocks are sealed only when every slot is known).
          await this.tail.replaceOne({ _id: tailKey(claim.id), key }, { id: claim.id, key, void: true });
          this.emitAppended({ ...claim, void: true, body: undefined });
          return;
        }
      }
      this.emitAppended(claim);
      return;
    }
  }

  /** Claims the next free id for the event, or returns its earlier claim. */
  private async claimId(event: PendingEvent): Promise<TailEntry> {
    for (let attempt = 0; ; attempt++) {
      const id = this.nextEventId;
      const entry: TailEntry = { _id: tailKey(id), id, key: event.key, body: storedEventJson(id, event) };
      try {
        await this.tail.insertOne(entry);
        this.nextEventId = id + 1;
        this.lastEventId = Math.max(this.lastEventId, id);
        return entry;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        const earlier = await this.tail.findOne({ key: event.key });
        if (earlier) return earlier;
        this.nextEventId = id + 1;
        if (attempt >= 2) {
          // The hint is behind (racing instances can lose a `$max` on FerretDB): the tail always
          // holds the newest claims, so its highest id is the log's; jump past it.
          const last = await this.tail.find({}, { projection: { id: 1 } }).sort({ id: -1 }).limit(1).next();
          this.nextEventId = Math.max(id, last?.id ?? 0) + 1;
        }
      }
    }
  }

  private emitAppended(entry: TailEntry): void {
    for (const listener of this.appendedListeners) listener(entry);
  }

  /** Told of every event this process appends, as soon as it is stored (before `onCommitted`). */
  onAppended(listener: (entry: TailEntry) => void): () => void {
    this.appendedListeners.add(listener);
    return () => this.appendedListeners.delete(listener);
  }

  /**
   * Records that state changed. Each instance writes only its own revision document
   * (`meta`, `_id: rev:<instance>`): its write count and the documents its latest writes changed.
   * Other instances poll these (see watchRevisions) and re-read just those documents by `_id`; an
   * instance never mistakes its own writes for someone else's, which a single shared token could
   * not tell apart (it reloaded the whole state after every one of its own writes). Events also
   * move the newest id forward as the next writer's hint (`events` document; only close is needed,
   * see appendEvent).
   */
  private async publishRevision(): Promise<void> {
    const changed = this.changedSincePublish.splice(0);
    const before = { seq: this.seq, recent: this.recent };
    this.seq++;
    const recent = [...this.recent];
    for (const c of changed) recent.push({ seq: this.seq, coll: c.coll, id: c.id });
    if (changed.length === 0) recent.push({ seq: this.seq, coll: '', id: null });
    this.recent = recent.slice(-RECENT_CHANGES);
    const doc = { seq: this.seq, at: new Date(), lastId: this.lastEventId, recent: this.recent };
    try {
      await this.meta.replaceOne({ _id: REVISION_PREFIX + this.instance }, doc, { upsert: true });
    } catch (err) {
      // Published with the next write, or by the next poll (watchRevisions).
      this.seq = before.seq;
      this.recent = before.recent;
      this.changedSincePublish.unshift(...changed);
      throw err;
    }
  }

  private publishing: Promise<void> | undefined;
  private publishAgain = false;
  private publishError: (err: unknown) => void = () => undefined;

  /**
   * Publishes the revision without holding up the write's response: the write is applied to this
   * instance's state already, and the database write of the revision document (4–15 ms on
   * FerretDB) overlaps the flush of the events. Writes meanwhile are published together by one
   * more write. Other instances see the change within a poll interval plus these milliseconds.
   */
  private publishSoon(): void {
    if (this.publishing) {
      this.publishAgain = true;
      return;
    }
    this.publishing = (async () => {
      try {
        do {
          this.publishAgain = false;
          await this.publishRevision();
        } while (this.publishAgain);
      } catch (err) {
        this.publishError(err);
      } finally {
        this.publishing = undefined;
      }
    })();
  }

  /** Resolves once every write of this process so far is published (tests, closing). */
  async published(): Promise<void> {
    while (this.publishing) await this.publishing;
  }

  private watchTimer: NodeJS.Timeout | undefined;
  /** The write count of every other instance as last seen. */
  private seen: Map<string, number> | undefined;

  /**
   * Reads the other instances' revision documents (the `meta` collection holds a handful) and
   * the newest event id they published (the `events` document: as written before revision
   * documents existed).
   */
  private async otherRevisions(): Promise<MetaDocument[]> {
    const docs = await this.meta.find({}).toArray();
    for (const d of docs) {
      if (d._id === EVENTS_META || d._id.startsWith(REVISION_PREFIX)) this.othersLastId = Math.max(this.othersLastId, d.lastId ?? 0);
    }
    return docs.filter((d) => d._id.startsWith(REVISION_PREFIX) && d._id !== REVISION_PREFIX + this.instance);
  }

  /**
   * Takes note of the other instances' revisions as they are now. Called before the state loads,
   * so a write that lands during the load is picked up by the next poll.
   */
  async markRevisionsSeen(): Promise<void> {
    this.seen = new Map((await this.otherRevisions()).map((d) => [d._id, d.seq ?? 0]));
  }

  /**
   * Watches for other instances' writes: polls their revision documents every `pollMs` (one
   * read of the small `meta` collection; change streams need a replica set, which FerretDB and a
   * standalone mongod do not offer). The documents another instance changed are re-read into the
   * state by `_id` (all of it when more changed than its document lists), and then every
   * `onCommitted` listener is told, so caches never refill from a stale state.
   */
  watchRevisions(pollMs: number, onError: (err: unknown) => void): void {
    this.publishError = onError;
    const poll = async () => {
      try {
        if (this.changedSincePublish.length) this.publishSoon();
        await this.pollRevisions();
      } catch (err) {
        onError(err);
      } finally {
        this.watchTimer = setTimeout(poll, pollMs);
        this.watchTimer.unref();
      }
    };
    this.watchTimer = setTimeout(poll, 0);
    this.watchTimer.unref();
  }

  /** One poll of watchRevisions (tests call it to skip the wait). */
  async pollRevisions(): Promise<boolean> {
    const docs = await this.otherRevisions();
    if (!this.seen) {
      this.seen = new Map(docs.map((d) => [d._id, d.seq ?? 0]));
      return false;
    }
    const refresh: ChangedDocument[] = [];
    let whole = false;
    let changed = false;
    const now = Date.now();
    for (const doc of docs) {
      const seq = doc.seq ?? 0;
      const before = this.seen.get(doc._id) ?? 0;
      if (seq === before) {
        if (doc.at && now - doc.at.getTime() > REVISION_DOCUMENT_TTL_MS) {
          await this.meta.deleteOne({ _id: doc._id, seq });
          this.seen.delete(doc._id);
        }
        continue;
      }
      changed = true;
      const recent = doc.recent ?? [];
      // Covered when the list reaches back to the first write not seen (a restarted instance
      // counts from 1 again: a seq below the one seen means a new run).
      const from = seq < before ? 1 : before + 1;
      if (recent.length === 0 || recent[0]!.seq > from) whole = true;
      else refresh.push(...recent.filter((c) => c.seq >= from && c.coll !== ''));
      this.seen.set(doc._id, seq);
    }
    if (!changed) return false;
    if (this.state.isLoaded) {
      if (whole) await this.state.load();
      else for (const c of refresh) await this.state.mirrorOf(c.coll)?.refresh(c.id);
    }
    for (const c of refresh) this.checkFlushedLater(c.coll, c.id);
    this.notify(true);
    return true;
  }

  stopWatching(): void {
    clearTimeout(this.watchTimer);
    this.watchTimer = undefined;
    for (const timer of this.flushChecks.values()) clearTimeout(timer);
    this.flushChecks.clear();
  }

  /**
   * How long another instance's change may wait for its events before this instance flushes them
   * itself (its writer died between the two writes). A flush takes milliseconds; flushing twice
   * is harmless (appendEvent is idempotent), so the margin only avoids needless reads.
   */
  orphanFlushMs = 2000;
  private readonly flushChecks = new Map<string, NodeJS.Timeout>();

  /** Completes another instance's change if its events are still pending after orphanFlushMs. */
  private checkFlushedLater(collName: string, id: unknown): void {
    const coll = this.collections.get(collName);
    const key = `${collName}\u0000${String(id)}`;
    if (!coll || this.flushChecks.has(key)) return;
    const timer = setTimeout(() => {
      this.flushChecks.delete(key);
      coll.findOne({ _id: id } as never, { projection: { [OUTBOX_FIELD]: 1 } })
        .then((doc) => (doc?._outbox?.length ? this.flush(coll, id) : undefined))
        .catch(() => undefined); // the next start's repair, or the next notice, finishes it
    }, this.orphanFlushMs);
    timer.unref();
    this.flushChecks.set(key, timer);
  }

  /** Flushes every document left with pending events (after a crash or a database outage). */
  async repair(): Promise<number> {
    let repaired = 0;
    for (const coll of this.collections.values()) {
      const stuck = await coll
        .find({ [OUTBOX_FIELD]: { $exists: true } } as never, { projection: { _id: 1 } })
        .toArray();
      for (const doc of stuck) {
        await this.flush(coll, doc._id);
        repaired++;
      }
      const tombstones = await coll.find({ [DELETED_FIELD]: true } as never, { projection: { _id: 1 } }).toArray();
      for (const doc of tombstones) await this.flush(coll, doc._id);
    }
    return repaired;
  }
}

/**
 * Retries a read-modify-write when a concurrent writer changed the document first, backing off
 * 5, 10, 20, 40 ms (with jitter) so writers racing on one document from several instances spread
 * out instead of colliding again. The last failure reaches the client as a 409 (src/errors.ts).
 */
export async function retrying<T>(fn: () => Promise<T>, attempts = 5): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof ConcurrentModificationError) || i >= attempts - 1) throw err;
      await new Promise((r) => setTimeout(r, 5 * 2 ** i * (0.5 + Math.random())));
    }
  }
}
