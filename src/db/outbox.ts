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

/** Deep equality for JSON-like values (used to drop no-op update events, SPEC §4.4). */
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
  lastId: number;
  token: string;
}

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
    if (events.length) await this.flush(coll, doc._id);
    else await this.committedWithoutEvents();
  }

  /** Inserts `doc` with its events without flushing them (the caller flushes, see FlagService.create). */
  async insertPending<T extends StoredDocument>(coll: Collection<T>, doc: T, events: PendingEvent[]): Promise<void> {
    const stored = { ...doc, [REV_FIELD]: 1, ...(events.length ? { [OUTBOX_FIELD]: events } : {}) };
    await coll.insertOne(stored as never);
    this.state.mirrorOf(coll.collectionName)?.written(doc._id, stored);
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
    const outbox = [...(current._outbox ?? []), ...events];
    const stored = { ...next, [REV_FIELD]: rev + 1, ...(outbox.length ? { [OUTBOX_FIELD]: outbox } : {}) };
    delete (stored as StoredDocument)._id;
    const result = await coll.replaceOne({ _id: current._id, [REV_FIELD]: current._rev } as never, stored as never);
    const generic = coll as unknown as Collection<StoredDocument>;
    if (result.matchedCount === 0) await this.conflict(generic, current._id);
    this.state.mirrorOf(coll.collectionName)?.written(current._id, { ...stored, _id: current._id });
    if (outbox.length) await this.flush(coll, current._id);
    else await this.committedWithoutEvents();
  }

  /**
   * A write without events of its own (part of an operation whose event another document
   * carries, e.g. connecting a new environment to every project) still changes what readers see:
   * caches and snapshots must hear of it, here and on other instances.
   */
  private async committedWithoutEvents(): Promise<void> {
    await this.publishRevision();
    this.notify(false);
  }

  /** Deletes `current`: a tombstone carries the events until they are flushed, then goes. */
  async remove<T extends StoredDocument>(coll: Collection<T>, current: T, events: PendingEvent[]): Promise<void> {
    const rev = current._rev ?? 0;
    const outbox = [...(current._outbox ?? []), ...events];
    const result = await coll.replaceOne(
      { _id: current._id, [REV_FIELD]: current._rev } as never,
      { [REV_FIELD]: rev + 1, [DELETED_FIELD]: true, [OUTBOX_FIELD]: outbox } as never,
    );
    if (result.matchedCount === 0) await this.conflict(coll as unknown as Collection<StoredDocument>, current._id);
    this.state.mirrorOf(coll.collectionName)?.written(current._id, null);
    await this.flush(coll, current._id);
  }

  /** Moves a document's pending events into `events`. Idempotent; safe to call again after a crash. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async flush(coll: Collection<any>, id: unknown): Promise<void> {
    const c = coll as unknown as Collection<StoredDocument>;
    await this.flushLock.run('events', async () => {
      const doc = await c.findOne({ _id: id } as never, { projection: { [OUTBOX_FIELD]: 1, [REV_FIELD]: 1, [DELETED_FIELD]: 1 } });
      if (!doc) return;
      const pending = doc._outbox ?? [];
      if (pending.length) {
        await this.refreshIdHint();
        for (const event of pending) await this.appendEvent(event);
        await this.publishRevision();
      }
      if (doc._deleted) {
        await c.deleteOne({ _id: id, [REV_FIELD]: doc._rev } as never);
      } else if (pending.length) {
        await c.updateOne({ _id: id, [REV_FIELD]: doc._rev } as never, { $unset: { [OUTBOX_FIELD]: '' } });
        this.state.mirrorOf(c.collectionName)?.flushed(id, doc._rev);
      }
    });
    this.notify(false);
  }

  /**
   * The next id starts from the `meta` hint (one small read): another instance may have written
   * since, and ids below the tail's window would only be found taken by the slow path below.
   */
  private async refreshIdHint(): Promise<void> {
    const meta = await this.meta.findOne({ _id: EVENTS_META }, { projection: { lastId: 1 } });
    this.nextEventId = Math.max(this.nextEventId, (meta?.lastId ?? 0) + 1);
  }

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
          this.nextEventId = claim.id + 1;
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
   * Records that events (and so state) changed: the newest id as the next writer's hint, and a
   * fresh token that other instances poll (one `_id` read) to know their snapshot is stale.
   * Concurrent writers may interleave these updates; the token still changes, and the id hint
   * only needs to be close (see appendEvent).
   */
  private async publishRevision(): Promise<void> {
    const update = { $max: { lastId: this.lastEventId }, $set: { token: randomUUID() } };
    try {
      await this.meta.updateOne({ _id: EVENTS_META }, update, { upsert: true });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      await this.meta.updateOne({ _id: EVENTS_META }, update);
    }
  }

  private watchTimer: NodeJS.Timeout | undefined;

  /**
   * Watches for other instances' writes: polls the revision token every `pollMs` (one `_id`
   * read: on FerretDB anything else scans a collection; change streams need a replica set, which
   * FerretDB and a standalone mongod do not offer) and tells every `onCommitted` listener when it
   * changed. Caches therefore never read the token on a request's path.
   */
  watchRevisions(pollMs: number, onError: (err: unknown) => void): void {
    let seen: string | null | undefined;
    const poll = async () => {
      try {
        const token = await this.revisionToken();
        if (seen !== undefined && token !== seen) {
          // The state first, then the listeners: a cache cleared by the notice refills from the new state.
          if (this.state.isLoaded) await this.state.load();
          this.notify(true);
        }
        seen = token;
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

  stopWatching(): void {
    clearTimeout(this.watchTimer);
    this.watchTimer = undefined;
  }

  /** The token of the latest published revision (see publishRevision). */
  async revisionToken(): Promise<string | null> {
    const meta = await this.meta.findOne({ _id: EVENTS_META }, { projection: { token: 1 } });
    return meta?.token ?? null;
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
