import type { Collection, Db, Document, Filter } from 'mongodb';
import type { BackgroundJob } from '../background-failures.js';
import { DatabaseTimeoutError, DatabaseUnavailableError, inBackground } from '../guard.js';
import { KeyedLock } from '../keyed-lock.js';
import { isDuplicateKey } from '../keys.js';
import { ConfigState, type Unflushed } from '../state.js';
import {
  ConcurrentModificationError, DELETED_FIELD, OUTBOX_FIELD, REV_FIELD, isDocumentId, packEvents, pendingEvents,
  type DocumentId, type StoredDocument, type StoredOutbox,
} from './documents.js';
import { EventLog, type MirrorLogger } from '../event-log/index.js';
import type { PendingEvent } from './events.js';
import { Revisions, type RemoteChanges } from './revisions.js';

export * from './documents.js';
export * from './events.js';

/**
 * The change writer: how a change and its event are kept together (no change without its event,
 * no event without its change), on any MongoDB-compatible server — FerretDB has no
 * multi-document transactions:
 *
 * 1. The change is ONE document write (insert, replace, or a tombstone for a delete) that also
 *    carries the change's pending events in the document's `_outbox` array. A single-document
 *    write is atomic everywhere, so the change and its events are committed together or not at all.
 * 2. `flush` then appends the pending events to the log (src/db/event-log/: idempotent,
 *    each has a unique key; ids are claimed in the event tail) and clears `_outbox` (or removes
 *    the tombstone). For this process's own writes that runs after the response, in write order
 *    (queueFlush); readers of the log in this process wait for it first (`flushed`).
 * 3. If the process dies (or the database goes away) between 1 and 2, `repair` — run at start and
 *    after the database comes back — flushes every document that still has an `_outbox`; another
 *    instance that noticed the change (src/db/outbox/revisions.ts) flushes it after orphanFlushMs.
 *
 * So a reader of `events` may see an event a moment after its change, never an event without a
 * change, and never loses one.
 *
 * The parts: documents.ts (bookkeeping fields, conflicts and retries), events.ts (what an event
 * is before the log has it), revisions.ts (publishing this instance's writes and noticing the
 * others'). Importers use this module, which re-exports the first two. The log the events go to
 * is its own module (src/db/event-log/), created here and read by everyone as `eventLog`.
 */

/**
 * Told that state may have changed: `remote` false for a commit of this process, true when another
 * instance's revision was noticed.
 */
type Listener = (remote: boolean) => void;

/**
 * A document of this process whose write had an unknown outcome or whose flush failed (see
 * Outbox.uncertain), with the events of its acknowledged writes not yet known to be in the log.
 */
interface Uncertain {
  coll: Collection<StoredDocument>;
  id: DocumentId;
  events: PendingEvent[];
}

/** A flush of a document this process wrote, as written, waiting for the gate (Outbox.queueFlush). */
interface QueuedFlush {
  c: Collection<StoredDocument>;
  id: DocumentId;
  doc: Pick<StoredDocument, '_outbox' | '_rev' | '_deleted'>;
}

/** The flushes gathered until the gate opens, and the promise of their flush together (never rejects). */
interface FlushGate {
  batch: QueuedFlush[];
  open: () => void;
  flushed: Promise<void>;
}

/** What a conditional write reads of the document it replaces: its id, revision and pending events. */
export type Written = Pick<StoredDocument, '_id' | '_rev' | '_outbox'>;

/** Drops the event log's notes (tests and tools that build an outbox without a logger). */
const SILENT: MirrorLogger = { info: () => undefined, warn: () => undefined };

export class Outbox {
  /** Where flushes append this process's events, and where everyone reads the log. */
  readonly eventLog: EventLog;
  private readonly revisions: Revisions;
  private readonly flushLock = new KeyedLock();
  private readonly writeLock = new KeyedLock();
  /**
   * The outbox's own handle of each collection it writes, typed by what every document written
   * through it has (StoredDocument): its filters on `_id` and the bookkeeping fields type-check
   * there, which they cannot against a caller's generic document type. The same collection on the
   * server as the caller's handle.
   */
  private readonly collections = new Map<string, Collection<StoredDocument>>();
  private readonly listeners = new Set<Listener>();

  /** The configuration state every write of this process is applied to (src/db/state.ts). */
  readonly state = new ConfigState((name) => this.handle(name));

  constructor(private readonly db: Db, log: MirrorLogger = SILENT) {
    this.eventLog = new EventLog(db, this, log);
    this.revisions = new Revisions(db, () => this.eventLog.lastEventId, (changes) => this.remoteChanges(changes));
  }

  /** The newest event id this process appended. */
  get lastEventId(): number {
    return this.eventLog.lastEventId;
  }

  /** This process's instance id (its revision document's). */
  get instance(): string {
    return this.revisions.instance;
  }

  /** Whether the server is FerretDB (createIndexes asks it; see atomicFilters). */
  get isFerretDB(): boolean {
    return !this.atomicFilters;
  }

  /** Whether a conditional write is one command, its `_rev` condition in the filter (atomicFilters, idPushdown). */
  get conditionInFilter(): boolean {
    return this.atomicFilters || this.idPushdown;
  }

  /**
   * Documents whose write was sent and then failed without an answer (its deadline passed, the
   * connection broke): it may or may not have been applied; and documents whose flush failed. The state keeps what it had; once the
   * database answers again `reconcile` re-reads them, so the state holds whatever the database
   * holds, and `repair` flushes the events of any that did apply. So such a write is, in the end,
   * either durable with its events or not applied, never half.
   */
  private readonly uncertain = new Map<string, Uncertain>();

  /** Notes a write whose outcome is unknown (see `uncertain`) and rethrows its error. */
  private uncertainWrite(coll: Collection<StoredDocument>, id: DocumentId, err: unknown): never {
    const unanswered = err instanceof DatabaseTimeoutError ? err.sent : !(err instanceof DatabaseUnavailableError);
    if (unanswered) {
      const key = this.documentKey(coll, id);
      this.uncertain.set(key, { coll, id, events: this.uncertain.get(key)?.events ?? [] });
    }
    throw err;
  }

  /**
   * After an outage: re-reads every document whose write had an unknown outcome into the state
   * (and tells the caches), then flushes every pending event (`repair`). Returns the counts.
   */
  async reconcile(): Promise<{ refreshed: number; repaired: number }> {
    const run = this.reconcileNow();
    this.reconciling = run.then(() => undefined, () => undefined);
    let refreshed: number;
    try {
      refreshed = await run;
    } finally {
      this.reconciling = undefined;
    }
    // Anything else left pending (another instance's, a crash's) is not this process's own write:
    // readers of the log do not wait for that scan of every collection (seconds on FerretDB).
    return { refreshed, repaired: await this.repair() };
  }

  /** The reconcile under way, if any: readers of the log wait for it as for the queued flushes. */
  private reconciling: Promise<void> | undefined;

  /**
   * This process's own writes of unknown outcome and failed flushes: re-read into the state, then
   * flushed (by `_id`) in one turn of the flush lock. One turn, not one per document: the lock is
   * first come, first served, and writers queue a flush with every write, so flushing the
   * documents one by one waited behind the writers' new flushes each time, and an event search,
   * which waits for the reconcile, hung for over 10 s after a 30 s outage in the soak.
   */
  private async reconcileNow(): Promise<number> {
    const entries = [...this.uncertain.entries()];
    if (!entries.length) return 0;
    for (const [, { coll, id }] of entries) await this.state.mirrorOf(coll.collectionName)?.refresh(id);
    await this.flushLock.run('events', async () => {
      for (const [key, { coll, id, events }] of entries) {
        await this.flushStoredLocked(coll, id);
        await this.appendLocked(events);
        this.uncertain.delete(key);
      }
    });
    this.notify(true);
    return entries.length;
  }

  /**
   * Appends the events not yet in the log (this process's record: `appended`), in order, with
   * the flush lock held. reconcileNow passes the events of acknowledged writes whose flush failed
   * as this process kept them (`Uncertain.events`), because the document may have lost them
   * meanwhile: an update FerretDB was sent before an outage can be applied when it answers again,
   * after a later write of the same document, and a clear armed by an earlier flush then removes
   * that write's `_outbox` (FerretDB rewrites the document it finds); re-reading the document
   * finds nothing to flush. Appending is idempotent, and events just appended are skipped.
   */
  private async appendLocked(events: PendingEvent[]): Promise<void> {
    // Once each: a document written twice before its flush carries the first write's events in
    // the second's `_outbox` too, and both writes' flushes can be in one batch (flushWritten).
    const keys = new Set<string>();
    const missing = this.stillPending(events).filter((event) => !keys.has(event.key) && keys.add(event.key));
    if (!missing.length) return;
    await this.refreshIdHint();
    await this.appendEvents(missing);
    for (const event of missing) this.remember(event.key);
  }

  async createIndexes(): Promise<void> {
    await this.eventLog.createIndexes();
    const info = await this.db.admin().command({ buildInfo: 1 }).catch(() => ({}));
    this.atomicFilters = !('ferretdbVersion' in info);
    if (!this.atomicFilters) this.idPushdown = await this.pushesDownId();
  }

  /**
   * Whether this FerretDB reads a `{_id, _rev}` filter through its `_id` index: the embedded
   * build does (src/db/embedded.ts, FERRETDB_PATCH), a stock FerretDB scans the collection. Its
   * `explain` of a find in `events` (a collection the event log has just created: FerretDB
   * explains nothing of a missing one) says so (`filterPushdown`).
   */
  private async pushesDownId(): Promise<boolean> {
    const explained = await this.db.command({ explain: { find: 'events', filter: { _id: '', [REV_FIELD]: 0 } } }).catch(() => ({}));
    return (explained as { filterPushdown?: unknown }).filterPushdown === true;
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

  /**
   * On FerretDB: whether a `{_id, _rev}` filter is read through the `_id` index (see
   * pushesDownId). Then the write carries the condition itself, as on MongoDB: one command
   * instead of the `_id` read and the write, and FerretDB checks the condition and writes without
   * a network round trip between them (still not atomically: atomicFilters stays off). The
   * embedded build's writes, before and after, at 1 000 bench flags: see the README's scale section.
   */
  private idPushdown = false;

  /**
   * Runs a write of `id` at revision `rev`: with the `_rev` condition in the filter where the
   * server applies it atomically (MongoDB) or reads such a filter by `_id` (the embedded FerretDB,
   * idPushdown), otherwise after checking `_rev` by an `_id` read.
   */
  private async conditionally(
    coll: Collection<StoredDocument>, id: DocumentId, rev: number | undefined,
    write: (filter: Filter<StoredDocument>) => Promise<{ matchedCount: number }>,
  ): Promise<boolean> {
    if (this.atomicFilters) return (await write({ _id: id, [REV_FIELD]: rev })).matchedCount > 0;
    if (this.idPushdown) return (await write({ _id: id, [REV_FIELD]: rev, [DELETED_FIELD]: { $ne: true } })).matchedCount > 0;
    const stored = await coll.findOne({ _id: id }, { projection: { [REV_FIELD]: 1, [DELETED_FIELD]: 1 } });
    if (!stored || stored._deleted || stored._rev !== rev) return false;
    return (await write({ _id: id })).matchedCount > 0;
  }

  /** A collection whose documents are written through the outbox (and repaired by `repair`). */
  collection<T extends StoredDocument>(name: string): Collection<T> {
    if (!this.collections.has(name)) this.collections.set(name, this.db.collection<StoredDocument>(name));
    return this.db.collection<T>(name);
  }

  /** The outbox's handle of a collection (see `collections`). */
  private handle(name: string): Collection<StoredDocument> {
    return this.collections.get(name) ?? this.db.collection<StoredDocument>(name);
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
    this.flushInserted(coll, doc._id, events);
    await this.keepUp();
  }

  /**
   * Flushes queued after their writes' responses, beyond which a write waits before answering.
   * Writes are acknowledged before their events reach the log (queueFlush), and a flush costs
   * about as much database time as its write: when writers outpace the log (the soak's writers
   * beside SDK metrics on FerretDB's one writer) the queue grew without bound, and an event search,
   * which waits for the queue (`flushed`), waited 93–135 s. Waiting here slows writers to the pace
   * of the log instead, so a search waits for at most this many flushes.
   */
  static readonly FLUSH_BACKLOG = 16;

  /** Resolves once no more than FLUSH_BACKLOG flushes are queued (see there). */
  async keepUp(): Promise<void> {
    while (this.inFlight.size > Outbox.FLUSH_BACKLOG) await Promise.race(this.inFlight);
  }

  /** Inserts `doc` with its events without flushing them (the caller flushes: flushInserted, see FlagService.create). */
  async insertPending<T extends StoredDocument>(coll: Collection<T>, doc: T, events: PendingEvent[]): Promise<void> {
    const stored = { ...doc, [REV_FIELD]: 1, ...(events.length ? { [OUTBOX_FIELD]: this.pack(events) } : {}) };
    const c = this.handle(coll.collectionName);
    this.lastWriteAt = performance.now();
    await c.insertOne(stored).catch((err: unknown) => {
      if (isDuplicateKey(err)) throw err;
      return this.uncertainWrite(c, doc._id, err);
    });
    this.written(coll.collectionName, doc._id, stored);
  }

  /** Queues the flush of a document insertPending wrote (its events appended after the earlier ones). */
  flushInserted<T extends StoredDocument>(coll: Collection<T>, id: DocumentId, events: PendingEvent[]): void {
    this.notify(false);
    if (events.length) void this.queueFlush(this.handle(coll.collectionName), id, { _rev: 1, _outbox: events });
  }

  /**
   * A document write the database acknowledged: into the state, and published as a revision at
   * once, before its events are flushed, so other instances see it (and complete the flush should
   * this process die in between, see checkFlushedLater).
   */
  private written(coll: string, id: unknown, doc: StoredDocument | null): void {
    this.state.mirrorOf(coll)?.written(id, doc);
    this.revisions.changed(coll, id);
  }

  /** A conditional write found the document changed: the state re-reads it before the caller retries. */
  private async conflict(coll: Collection<StoredDocument>, id: DocumentId): Promise<never> {
    const mirror = this.state.mirrorOf(coll.collectionName);
    if (mirror) {
      const held = mirror.heldRevision(id);
      // Under the document's lock, so no write of this process lands between the read and taking it in.
      const found = await this.documentLock.run(this.documentKey(coll, id), () => mirror.refresh(id, true));
      if (held !== undefined && found && (found._rev ?? 0) < held) {
        // Only a write that put back an older version does this (on FerretDB, by two instances
        // writing one document at once): the state now holds what the database holds, and the
        // retry writes on top of it instead of failing against a revision that is gone.
        this.backgroundError('lost write', new Error(`${coll.collectionName} ${String(id)}: the database holds revision ${found._rev ?? 0}, older than the ${held} this process held; a write to it was lost`));
      }
    }
    throw new ConcurrentModificationError(`document ${String(id)} changed meanwhile`);
  }

  /**
   * Replaces `current` (as read, with its `_rev`) by `next`. Throws ConcurrentModificationError
   * when another writer got there first; callers re-read and retry (see `retrying`).
   */
  async replace<T extends StoredDocument>(coll: Collection<T>, current: Written, next: T, events: PendingEvent[]): Promise<void> {
    const outbox = [...this.stillPending(current._outbox), ...events];
    const { _id: _replaced, ...fields } = next;
    const stored = { ...fields, [REV_FIELD]: (current._rev ?? 0) + 1, ...(outbox.length ? { [OUTBOX_FIELD]: this.pack(outbox) } : {}) };
    await this.conditionalWrite(this.handle(coll.collectionName), current, stored, outbox, { ...stored, _id: current._id });
    await this.keepUp();
  }

  /** Deletes `current`: a tombstone carries the events until they are flushed, then goes. */
  async remove<T extends StoredDocument>(coll: Collection<T>, current: T, events: PendingEvent[]): Promise<void> {
    const outbox = [...this.stillPending(current._outbox), ...events];
    const tombstone = { [REV_FIELD]: (current._rev ?? 0) + 1, [DELETED_FIELD]: true, [OUTBOX_FIELD]: this.pack(outbox) };
    // Awaited: the tombstone holds the `_id` until its flush removes it, and a document created
    // again under the same `_id` right after the response must not collide with it.
    const { flush } = await this.conditionalWrite(this.handle(coll.collectionName), current, tombstone, outbox, null);
    this.flushGate?.open(); // this write waits for its flush: no reason to wait for the gate
    await flush;
  }

  /**
   * Writes `stored` over `current` if it is still at `current`'s revision (else the state
   * re-reads it and ConcurrentModificationError is thrown: callers re-read and retry, see
   * `retrying`), then queues the flush of `pending` (the events packed in its `_outbox`) and returns it (not awaited: see
   * queueFlush). The document counts as awaiting a flush from before the write, so a clear armed
   * by an earlier flush meanwhile never removes this write's events (runDeferredClear).
   */
  private async conditionalWrite(
    c: Collection<StoredDocument>, current: Written, stored: Document & Pick<StoredDocument, '_outbox' | '_rev' | '_deleted'>,
    pending: PendingEvent[], inState: StoredDocument | null,
  ): Promise<{ flush?: Promise<void> }> {
    const key = this.documentKey(c, current._id);
    this.cancelDeferredClear(c, current._id);
    this.holdClears(key);
    this.lastWriteAt = performance.now();
    let flush: Promise<void> | undefined;
    try {
      const done = await this.documentLock.run(key, () =>
        this.conditionally(c, current._id, current._rev, (filter) =>
          c.replaceOne(filter, stored).catch((err: unknown) => this.uncertainWrite(c, current._id, err))));
      if (!done) await this.conflict(c, current._id);
      this.written(c.collectionName, current._id, inState);
      // Read caches and snapshots hear of the change before the response (read-your-writes), a
      // write without events of its own included (part of an operation whose event another
      // document carries, e.g. connecting a new environment to every project).
      this.notify(false);
      if (pending.length || stored._deleted) flush = this.queueFlush(c, current._id, { _rev: stored._rev, _deleted: stored._deleted, _outbox: pending });
    } finally {
      this.releaseClears(key);
    }
    return flush ? { flush } : {};
  }

  /**
   * Moves a document's pending events into `events`. Idempotent; safe to call again after a crash.
   * Whether the document held events.
   */
  async flush<T extends StoredDocument>(coll: Collection<T>, id: DocumentId): Promise<boolean> {
    const c = this.handle(coll.collectionName);
    const held = await this.flushLock.run('events', () => this.flushStoredLocked(c, id));
    this.notify(false);
    return held;
  }

  /** Flushes the document as the database holds it now; the flush lock is held. Whether it held events. */
  private async flushStoredLocked(c: Collection<StoredDocument>, id: DocumentId): Promise<boolean> {
    const doc = await c.findOne({ _id: id }, { projection: { [OUTBOX_FIELD]: 1, [REV_FIELD]: 1, [DELETED_FIELD]: 1 } });
    if (doc) await this.flushLocked(c, id, doc);
    return doc?._outbox !== undefined;
  }

  /**
   * The documents this process has just written, as written (no read back), run by queueFlush
   * after their writes' responses: their events appended together, in write order (two commands
   * when nothing collides), then each document's bookkeeping.
   */
  protected async flushWritten(batch: readonly QueuedFlush[]): Promise<void> {
    await this.flushLock.run('events', async () => {
      await this.appendLocked(batch.flatMap(({ doc }) => pendingEvents(doc._outbox)));
      const keys = batch.map(({ c, id }) => this.documentKey(c, id));
      const holds = new Map<string, number>();
      for (const key of keys) holds.set(key, (holds.get(key) ?? 0) + 1);
      for (const [i, { c, id, doc }] of batch.entries()) await this.afterAppend(c, id, doc, holds.get(keys[i]!));
    });
    this.notify(false);
  }

  /**
   * A write is acknowledged once its document (carrying its events in `_outbox`) is written; its
   * events reach the log after the response, gathered with the flushes of the writes around it
   * (FLUSH_QUIET_MS), batch after batch in write order (flushLock is first come, first served),
   * so the log keeps this process's order. Nothing is lost by not
   * waiting: the events are durable in the document, published as a revision at once, and a
   * flush that fails or never runs (the process dies) is completed by `repair` (at start and
   * when the database comes back) or by another instance after orphanFlushMs. Readers of the log
   * in this process wait for the queued flushes first (`flushed`: read-your-writes for event
   * searches). Measured on the bench write replay (FerretDB): the tail claim and the event insert
   * were 5–8 ms of each ~18 ms flag write.
   */
  private queueFlush(c: Collection<StoredDocument>, id: DocumentId, doc: Pick<StoredDocument, '_outbox' | '_rev' | '_deleted'>): Promise<void> {
    const key = this.documentKey(c, id);
    this.holdClears(key);
    // Not background work: readers of the log wait for it (`flushed`), and granted only every
    // fifth slot behind requests' writes, an event search waited over 10 s under the soak.
    // Flushed with the others queued before the gate opens (see FLUSH_QUIET_MS), in write order.
    const gate = this.flushGate ?? this.closedGate();
    gate.batch.push({ c, id, doc });
    if (gate.batch.length >= Outbox.FLUSH_BACKLOG) gate.open();
    const flush = gate.flushed.finally(() => {
      this.releaseClears(key);
      this.inFlight.delete(flush);
    });
    this.inFlight.add(flush);
    return flush;
  }

  /**
   * How long a write's flush waits: until no request's write was sent for FLUSH_QUIET_MS, at most
   * FLUSH_MAX_DELAY_MS after the first flush it gathers, or until a reader of the log asks
   * (`flushed`), a delete waits for its flush, or FLUSH_BACKLOG flushes wait. The flushes it
   * gathered then append their events together (flushWritten).
   *
   * Why wait at all: a flush's commands cost the main thread ~1 ms of encoding and socket writes
   * on this machine, and an SDK typically reads right after the change it was told of: started in
   * the next turn of the loop, the flush ran just as that read came in. The client API's first
   * read after a toggle at 100 flags, median of 100 pairs (27 Nov, a `/tmp` probe of
   * toggle-then-read against the same read after a pause): 2.70 and 2.64 ms started at once
   * against 2.10 and 2.34 ms 3 ms later (reads after a pause 1.4–1.8 ms).
   *
   * Why gather: the embedded database runs one write at a time, about 2 ms per command whatever it
   * holds, and a flush is two commands (the claims, the copies). A client writing one change after
   * another (the 2 000-flag replay of bench/replay.ts, 11 036 requests) spent 15 of its 38 s on
   * flushes (22.7 s with no flush at all, 27 Nov); gathered, a run of writes shares them.
   */
  static readonly FLUSH_QUIET_MS = 3;
  static readonly FLUSH_MAX_DELAY_MS = 20;
  /** FLUSH_QUIET_MS, but for tests that look at the gate itself. */
  flushQuietMs = Outbox.FLUSH_QUIET_MS;

  /** The flushes queued since the gate last opened, and when they are done (see FLUSH_QUIET_MS). */
  private flushGate: FlushGate | undefined;

  private closedGate(): FlushGate {
    const firstAt = performance.now();
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    const batch: QueuedFlush[] = [];
    let timer: NodeJS.Timeout | undefined;
    const gate: FlushGate = {
      batch,
      open: () => {
        clearTimeout(timer);
        if (this.flushGate === gate) this.flushGate = undefined;
        open();
      },
      flushed: opened.then(() => this.flushWritten(batch)).catch((err: unknown) => {
        // Their events stay durable in the documents, and in memory until `reconcile` appends
        // them when the database answers (see appendLocked: a document may lose them meanwhile).
        for (const { c, id, doc } of batch) {
          const key = this.documentKey(c, id);
          const earlier = this.uncertain.get(key)?.events ?? [];
          this.uncertain.set(key, { coll: c, id, events: [...earlier, ...pendingEvents(doc._outbox)] });
        }
        this.backgroundError('event flush', err);
      }),
    };
    const check = () => {
      const now = performance.now();
      const due = Math.min(Math.max(firstAt, this.lastWriteAt) + this.flushQuietMs, firstAt + Math.max(this.flushQuietMs, Outbox.FLUSH_MAX_DELAY_MS));
      if (now >= due) gate.open();
      else timer = setTimeout(check, due - now);
    };
    timer = setTimeout(check, this.flushQuietMs);
    this.flushGate = gate;
    return gate;
  }

  /** The document has a write or a flush under way: no clear of its `_outbox` may run (see deferClear). */
  private holdClears(key: string): void {
    this.queuedFlushes.set(key, (this.queuedFlushes.get(key) ?? 0) + 1);
  }

  private releaseClears(key: string): void {
    const left = (this.queuedFlushes.get(key) ?? 1) - 1;
    if (left > 0) this.queuedFlushes.set(key, left);
    else this.queuedFlushes.delete(key);
  }

  /** Flushes queued and not yet done (see queueFlush). */
  private readonly inFlight = new Set<Promise<void>>();
  /** Per document, its writes and flushes under way: a clear waits for the last of them. */
  private readonly queuedFlushes = new Map<string, number>();
  private backgroundError: (job: BackgroundJob, err: unknown) => void = () => undefined;

  /**
   * Resolves once the events of every write this process acknowledged so far are in the log (or
   * their flush failed and waits for repair): what a reader of the log awaits to see its own writes.
   */
  async flushed(): Promise<void> {
    this.flushGate?.open();
    // Only the flushes queued so far: waiting until none is in flight starved a reader of the log
    // for as long as writes kept coming (an event search hung for 10 s under the soak's writers).
    // A reconcile after an outage counts too: it may put a write of unknown outcome in the log.
    await Promise.all([...this.inFlight, this.reconciling]);
  }

  /**
   * Clearing a document's flushed `_outbox` is one more write of the whole document (8 ms for a
   * 5 KB flag on FerretDB, a third of a flag write). After this process's own writes it waits
   * CLEAR_DELAY_MS: the next write of the document (an editing session writes one flag several
   * times in a row; the bench replay 7 times) overwrites `_outbox` anyway and cancels it, so most
   * never happen. Until then the copy is harmless: the state already dropped it, a write that read
   * it from the database leaves its keys out (stillPending), and flushing it again after a crash
   * stores nothing twice (appendEvents). The clear and this process's writes of the document never
   * overlap (documentLock); closing the app runs every waiting clear (settle). The clear applies
   * only to the revision flushed (`rev`, checked as every write is): by the time it runs another
   * instance may have written the document, and FerretDB applies an update by reading and
   * rewriting the whole document, so an unconditional clear could put back the version it read
   * over that instance's write (seen in test/db/instances.test.ts once writes got faster).
   * That instance's write carries the events still in `_outbox`, and its flush clears them.
   */
  private readonly deferredClears = new Map<string, { coll: Collection<StoredDocument>; id: DocumentId; rev: number | undefined; timer: NodeJS.Timeout }>();
  private readonly documentLock = new KeyedLock();
  static readonly CLEAR_DELAY_MS = 500;

  private documentKey(coll: Collection<StoredDocument>, id: unknown): string {
    return `${coll.collectionName}\u0000${typeof id}\u0000${String(id)}`;
  }

  /**
   * Arms the clear after the document's flush, unless a later write of it waits for its own flush
   * (that write carries events not yet in the log; its flush arms the clear). `flushing`: the
   * document's flushes in the batch being flushed (each still holds it: holdClears).
   */
  private deferClear(coll: Collection<StoredDocument>, id: DocumentId, rev: number | undefined, flushing: number): void {
    const key = this.documentKey(coll, id);
    this.cancelDeferredClear(coll, id);
    if ((this.queuedFlushes.get(key) ?? 0) > flushing) return;
    // A failed clear costs nothing but a larger document until the next write or `repair`.
    const entry = { coll, id, rev, timer: setTimeout(() => fire(), Outbox.CLEAR_DELAY_MS) };
    const fire = () => {
      if (this.deferredClears.get(key) !== entry) return;
      const wait = this.untilMaintenanceTurn();
      if (wait > 0 && this.deferredClears.size <= Outbox.MAX_WAITING_CLEARS) {
        // Up to MAX_WAITING_CLEARS of these wait at once: while another maintenance write is under
        // way (an infinite wait) each looks again every WRITER_PAUSE_MS, not more often.
        entry.timer = setTimeout(fire, Number.isFinite(wait) ? wait : Outbox.WRITER_PAUSE_MS);
        entry.timer.unref();
        return;
      }
      const ended = this.maintenanceStarted();
      void inBackground(() => this.runDeferredClear(key)).finally(ended).catch((err: unknown) => this.backgroundError('outbox clear', err));
    };
    entry.timer.unref();
    this.deferredClears.set(key, entry);
  }

  /**
   * When this process last sent a request's document write (insertPending, conditionalWrite).
   * Maintenance writes — a deferred clear, the event log's tail pruning — wait for a pause in
   * those (`untilWritersPause`, `maintenanceTurn`): the embedded database has one writer, and each
   * command costs about 2 ms there whatever it does (FerretDB 1.24 on SQLite, command monitoring,
   * 5 000 bench flags, 27 Nov: a flag update 1.95 ms, an event insert 1.89, a revision write
   * 2.30). Sequential toggles sent 5–6 commands each (the flag, the claim and the event, the
   * revision, the clear half a second later, a tail document pruned per event sealed), so the
   * next write queued behind the previous one's maintenance. Within a burst of writes they now
   * send 3–4; the maintenance runs once writers pause, or at once past its bound
   * (MAX_WAITING_CLEARS, the log's PRUNE_BACKLOG), so it never grows without limit.
   */
  private lastWriteAt = Number.NEGATIVE_INFINITY;

  /** How long without a request's write counts as a pause for maintenance. */
  static readonly WRITER_PAUSE_MS = 100;
  /**
   * Clears that may wait for a pause; past this many they run as they come due. What the bound
   * limits: a crash leaves these documents flushed but not cleared, for the next start's repair
   * (repairLoaded), and a clean stop runs them all at once (settle), each within the guard's
   * deadline behind the others on the embedded database's one writer. A client loading a
   * configuration one change after another pays a clear per flag it has finished with (the
   * 2 000-flag replay of bench/replay.ts sent 11 343 flag updates at 256, 9 783 at 4 096, 27 Nov,
   * command monitoring); but at 2 048 a stop after the 5 000-flag seed saw most of its clears
   * miss their 2 s deadline waiting for the writer, and the start after it had ~2 000 documents
   * to repair (5.5 s to serving the API against ~3). Raising it needs those clears paced first.
   */
  static readonly MAX_WAITING_CLEARS = 256;

  /** Milliseconds until no request's write was sent for WRITER_PAUSE_MS (0 or less: writers have paused). */
  private untilWritersPause(): number {
    return Outbox.WRITER_PAUSE_MS - (performance.now() - this.lastWriteAt);
  }

  /**
   * The share of the time that maintenance writes not yet urgent may take, counted from their own
   * durations: after one that took d ms the next waits d × (1 − share) / share. With writers
   * paused they otherwise ran back to back, and the database's work plus Vane's took CPU from
   * the readers on this 2-core machine: a start after the 5 000-flag seed deleted ~4 600 tail
   * documents an earlier run left and cleared ~400 flags while the scale bench measured the
   * playground right after it (see docs/scale-history.md, 28 Nov).
   */
  static readonly MAINTENANCE_SHARE = 0.2;
  /** Before this (performance.now()) a maintenance write that is not urgent waits (MAINTENANCE_SHARE). */
  private maintenancePacedUntil = Number.NEGATIVE_INFINITY;

  /** Milliseconds until a maintenance write that is not urgent may go (0 or less: now). */
  private untilMaintenanceTurn(): number {
    return Math.max(this.untilWritersPause(), this.maintenancePacedUntil - performance.now());
  }

  /** Marks the start of a maintenance write; the function returned marks its end (see MAINTENANCE_SHARE). */
  private maintenanceStarted(): () => void {
    const started = performance.now();
    // Until it ends, no other waiting maintenance write goes beside it.
    this.maintenancePacedUntil = Number.POSITIVE_INFINITY;
    return () => {
      const ended = performance.now();
      this.maintenancePacedUntil = ended + (ended - started) * (1 - Outbox.MAINTENANCE_SHARE) / Outbox.MAINTENANCE_SHARE;
    };
  }

  /**
   * Resolves when a maintenance write may go, with the function to call once it has ended: when
   * writers pause (`untilWritersPause`) and the last maintenance write's share of the time allows
   * (MAINTENANCE_SHARE), or as soon as `hurry()` says so (its backlog reached its bound while it
   * waited, or the server is stopping). Asked again at every look: a prune that began waiting
   * with a short backlog never became urgent under a steady stream of writes, and the
   * 2 000-flag seed's stop left its whole tail (15 008 documents of 15 008 events, 28 Nov).
   */
  async maintenanceTurn(hurry: () => boolean): Promise<() => void> {
    for (let wait = this.untilMaintenanceTurn(); wait > 0 && !hurry(); wait = this.untilMaintenanceTurn()) {
      // Looked at again at least every WRITER_PAUSE_MS (the backlog grows meanwhile), and
      // shortly while another maintenance write is under way (its end sets the wait).
      await new Promise((resolve) => setTimeout(resolve, Number.isFinite(wait) ? Math.min(wait, Outbox.WRITER_PAUSE_MS) : Outbox.WRITER_PAUSE_MS / 10));
    }
    return this.maintenanceStarted();
  }

  /** Cancels a waiting clear of the document (a write is about to replace it). */
  private cancelDeferredClear(coll: Collection<StoredDocument>, id: DocumentId): void {
    const key = this.documentKey(coll, id);
    const entry = this.deferredClears.get(key);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.deferredClears.delete(key);
  }

  /**
   * Keys of events this process appended lately. A document written again before its flush ran
   * still carries the earlier write's events (they must stay durable until they are in the log);
   * its own flush skips the ones appended meanwhile instead of taking appendEvents' idempotent,
   * slower path (a failed claim, then reads), and its next write leaves them out. Bounded: a key
   * forgotten is only appended idempotently again.
   */
  private readonly appended = new Set<string>();
  private static readonly APPENDED_KEYS = 10_000;

  private remember(key: string): void {
    this.appended.add(key);
    if (this.appended.size > Outbox.APPENDED_KEYS) this.appended.delete(this.appended.values().next().value!);
  }

  private stillPending(outbox: StoredOutbox | undefined): PendingEvent[] {
    const events = typeof outbox === 'string' ? (this.packed.get(outbox) ?? pendingEvents(outbox)) : pendingEvents(outbox);
    return events.filter((e) => !this.appended.has(e.key));
  }

  /**
   * The `_outbox` strings this process wrote lately, with the events packed in them. The copy the
   * state holds of a document written again before its flush (a client editing one flag change
   * after change) still carries its last `_outbox`, and the next write reads it (stillPending):
   * parsing that Extended JSON again was 0.9 s of the main thread's ~34 s in the 2 000-flag replay
   * (`--cpu-prof`, 27 Nov). The same string object is looked up, so its hash is computed once.
   * Bounded: a string forgotten is parsed again.
   */
  private readonly packed = new Map<string, PendingEvent[]>();
  private static readonly PACKED_KEPT = 256;

  private pack(events: PendingEvent[]): string {
    const packed = packEvents(events);
    this.packed.set(packed, events);
    if (this.packed.size > Outbox.PACKED_KEPT) this.packed.delete(this.packed.keys().next().value!);
    return packed;
  }

  private async runDeferredClear(key: string): Promise<void> {
    const entry = this.deferredClears.get(key);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.deferredClears.delete(key);
    const run = this.clearFlushed(key, entry.coll, entry.id, entry.rev);
    this.runningClears.add(run);
    try {
      await run;
    } finally {
      this.runningClears.delete(run);
    }
  }

  /**
   * Clears a flushed document's events (`_outbox`) at revision `rev`, under its lock: not when a
   * later write's flush is queued (that flush clears it) or clears are not safe (clearsAreSafe).
   * The waiting clears (runDeferredClear) and the start's repair (clearRepaired) both use it.
   */
  private clearFlushed(key: string, coll: Collection<StoredDocument>, id: DocumentId, rev: number | undefined): Promise<void> {
    return this.documentLock.run(key, async () => {
      if (this.queuedFlushes.has(key)) return;
      if (!(await this.clearsAreSafe())) return;
      await this.conditionally(coll, id, rev, (filter) => coll.updateOne(filter, { $unset: { [OUTBOX_FIELD]: '' } }));
    });
  }

  /**
   * Clears under way, their timer fired: `settle` waits for them too, or the repair after a
   * start's settle found a document its clear was still reading `meta` for (CI, once).
   */
  private readonly runningClears = new Set<Promise<void>>();

  /** Runs every queued flush and waiting clear now (closing the app; tests that look at stored documents). */
  async settle(): Promise<void> {
    await this.flushed();
    this.hurryRepairClears = true;
    await Promise.all([...this.repairClears]);
    this.hurryRepairClears = false;
    await Promise.all([...this.deferredClears.keys()].map((key) => this.runDeferredClear(key)));
    await Promise.allSettled([...this.runningClears]); // their failures are reported where they run
    await this.published();
  }

  /** A document as read back from the database (repair, an orphan check): its events may be in the log already (see alreadyLogged). */
  private async flushLocked(c: Collection<StoredDocument>, id: DocumentId, doc: Pick<StoredDocument, '_outbox' | '_rev' | '_deleted'>): Promise<void> {
    const pending = pendingEvents(doc._outbox);
    if (!(await this.alreadyLogged(pending))) await this.appendLocked(pending);
    await this.afterAppend(c, id, doc);
  }

  /**
   * A document's events are in the log: a tombstone goes; otherwise the state drops its copy of
   * them and `_outbox` is cleared. `ownWrites`: the document as this process wrote it, with this
   * many of its flushes in the batch (flushWritten): its clear is deferred (deferClear); otherwise
   * as read back from the database (repair, an orphan check).
   */
  private async afterAppend(c: Collection<StoredDocument>, id: DocumentId, doc: Pick<StoredDocument, '_outbox' | '_rev' | '_deleted'>, ownWrites?: number): Promise<void> {
    const pending = pendingEvents(doc._outbox);
    // On a stock FerretDB by `_id` alone (see atomicFilters, idPushdown): the document was read
    // or written just before, under this process's keyed lock, and other instances learn of its
    // new revision only through the revision just published.
    const filter: Filter<StoredDocument> = this.conditionInFilter ? { _id: id, [REV_FIELD]: doc._rev } : { _id: id };
    if (doc._deleted) {
      await c.deleteOne(filter);
    } else if (pending.length) {
      this.state.mirrorOf(c.collectionName)?.flushed(id, doc._rev);
      if (ownWrites !== undefined) this.deferClear(c, id, doc._rev, ownWrites);
      else if (await this.clearsAreSafe()) await c.updateOne(filter, { $unset: { [OUTBOX_FIELD]: '' } });
    }
  }

  /**
   * Whether events read back from a document are all in the log already: flushed, with the clear
   * left undone (clearsAreSafe) or not yet run. Appending them again would be harmless but not
   * free: once their ids have left the event tail, each would take a new id and leave it void.
   * One read: a flush appends a document's events in order, so the last one stored means all are.
   */
  private async alreadyLogged(events: PendingEvent[]): Promise<boolean> {
    const missing = this.stillPending(events);
    const last = missing.at(-1);
    if (!last) return true;
    if (!(await this.eventLog.stored(last.key))) return false;
    for (const event of missing) this.remember(event.key);
    return true;
  }

  /** Moves the next event id past the other instances' newest before appending. */
  private async refreshIdHint(): Promise<void> {
    this.eventLog.startAfter(await this.revisions.othersNewestEventId());
  }

  /** Appends events in order (in two commands when nothing collides: EventLog.appendMany). */
  private async appendEvents(events: PendingEvent[]): Promise<void> {
    await this.eventLog.appendMany(events);
  }

  /** Resolves once every write of this process so far is published (tests, closing). */
  async published(): Promise<void> {
    await this.revisions.published();
  }

  /**
   * Takes note of the other instances' revisions as they are now. Called before the state loads,
   * so a write that lands during the load is picked up by the next poll.
   */
  async markRevisionsSeen(): Promise<void> {
    await this.revisions.markSeen();
  }

  /**
   * Makes this instance known to the others (its revision document, then a heartbeat) and
   * resolves when it may write: at once when it is alone, else after JOIN_MARGIN_MS, because
   * an instance that thought itself alone may have a clear under way (see clearsAreSafe) that
   * this instance's first writes must not land in. Awaited before the start's first write; the
   * state loads meanwhile.
   */
  async join(): Promise<void> {
    const started = Date.now();
    if (await this.revisions.announce()) {
      await new Promise((r) => setTimeout(r, Math.max(0, started + Outbox.JOIN_MARGIN_MS - Date.now())));
    }
  }

  /** Removes this instance's revision document (a clean stop: the others need not wait for it to age). */
  async retire(): Promise<void> {
    await this.revisions.retire();
  }

  /**
   * How long a starting instance waits before writing when another one runs: longer than an
   * answer of othersAlive is reused (CLEARS_CHECK_MS) plus the clear it allowed (milliseconds).
   */
  static readonly JOIN_MARGIN_MS = 1000;
  /** How long an answer of othersAlive is reused (`alone`: one small read per clear otherwise). */
  static readonly CLEARS_CHECK_MS = 250;
  private aloneChecked: { at: number; alone: Promise<boolean> } | undefined;

  /**
   * Whether no other instance runs, as of at most CLEARS_CHECK_MS ago (Revisions.othersAlive).
   * While it holds, no other instance can write: one that starts waits JOIN_MARGIN_MS, longer
   * than the answer is reused, before its first write.
   */
  async alone(): Promise<boolean> {
    const now = Date.now();
    if (!this.aloneChecked || now - this.aloneChecked.at > Outbox.CLEARS_CHECK_MS) {
      const alone = this.revisions.othersAlive().then((alive) => !alive);
      this.aloneChecked = { at: now, alone };
      alone.catch(() => {
        if (this.aloneChecked?.alone === alone) this.aloneChecked = undefined;
      });
    }
    return await this.aloneChecked.alone;
  }

  /**
   * Whether clearing a document's flushed `_outbox` can never undo another instance's write.
   * FerretDB applies an update by reading the document and writing it back whole, outside any
   * transaction (FerretDB 1.24: `Query`, then `UpdateAll` by `_id`); a write by another instance
   * between the two is lost, and no condition in the filter prevents it (see atomicFilters).
   * Seen in test/db/instances.test.ts: A's clear of the change request it had just approved put
   * back the Approved version over B's apply, which then failed and left the request stuck.
   * So on FerretDB a clear runs only while no other instance runs (Revisions.othersAlive); with
   * others, `_outbox` keeps its flushed events until the document's next write replaces it (that
   * writer leaves them out: stillPending, or the held copy already dropped them: flushed), and
   * repair and the others' orphan checks find them in the log by key (alreadyLogged) and append
   * nothing. MongoDB applies the `_rev` condition atomically: a clear there is always safe.
   */
  private async clearsAreSafe(): Promise<boolean> {
    return this.atomicFilters || (await this.alone());
  }

  /**
   * Watches for other instances' writes (src/db/outbox/revisions.ts). The documents another
   * instance changed are re-read into the state by `_id` (all of it when more changed than its
   * revision document lists), and then every `onCommitted` listener is told, so caches never
   * refill from a stale state.
   */
  watchRevisions(pollMs: number, onError: (job: BackgroundJob, err: unknown) => void): void {
    this.backgroundError = onError;
    this.revisions.watch(pollMs, onError);
  }

  /** One poll of watchRevisions (tests call it to skip the wait). */
  async pollRevisions(): Promise<boolean> {
    return await this.revisions.poll();
  }

  private async remoteChanges({ whole, documents }: RemoteChanges): Promise<void> {
    // The list comes from another instance's revision document: its ids are checked, not assumed.
    // Every document written through an outbox has one (see DocumentId); the entry without one
    // (`coll` '', a revision that changed nothing) names no collection anyway.
    const changed = documents.flatMap(({ coll, id }) => (isDocumentId(id) ? [{ coll, id }] : []));
    if (this.state.isLoaded) {
      if (whole) await this.state.load();
      else for (const c of changed) await this.state.mirrorOf(c.coll)?.refresh(c.id);
    }
    for (const c of changed) this.checkFlushedLater(c.coll, c.id);
    this.notify(true);
  }

  stopWatching(): void {
    this.revisions.stopWatching();
    for (const timer of this.flushChecks.values()) clearTimeout(timer);
    this.flushChecks.clear();
  }

  /**
   * How long another instance's change may wait for its events before this instance flushes them
   * itself (its writer died between the two writes). A flush takes milliseconds; flushing twice
   * is harmless (appending is idempotent), so the margin only avoids needless reads.
   */
  orphanFlushMs = 2000;
  private readonly flushChecks = new Map<string, NodeJS.Timeout>();

  /** Completes another instance's change if its events are still pending after orphanFlushMs. */
  private checkFlushedLater(collName: string, id: DocumentId): void {
    const coll = this.collections.get(collName);
    const key = `${collName}\u0000${String(id)}`;
    if (!coll || this.flushChecks.has(key)) return;
    const timer = setTimeout(() => {
      this.flushChecks.delete(key);
      inBackground(() => coll.findOne({ _id: id }, { projection: { [OUTBOX_FIELD]: 1 } }))
        .then((doc) => (pendingEvents(doc?._outbox).length ? inBackground(() => this.flush(coll, id)) : undefined))
        .catch(() => undefined); // the next start's repair, or the next notice, finishes it
    }, this.orphanFlushMs);
    timer.unref();
    this.flushChecks.set(key, timer);
  }

  /**
   * Flushes every document left with pending events or as a tombstone (after a crash or a database
   * outage); returns how many held events. `afterLoad` (the start): a collection the state has
   * just loaded is taken at its word (CollectionMirror.takeUnflushedAtLoad) instead of read again;
   * a leftover is one from before the load either way, and later writes are flushed by their writers.
   */
  async repair(options: { afterLoad?: boolean } = {}): Promise<number> {
    let repaired = 0;
    for (const coll of this.collections.values()) {
      const known = options.afterLoad ? this.state.mirrorOf(coll.collectionName)?.takeUnflushedAtLoad() : undefined;
      if (known) {
        repaired += await this.repairLoaded(coll, known);
        continue;
      }
      const ids = [
        ...(await coll.find({ [OUTBOX_FIELD]: { $exists: true } }, { projection: { _id: 1 } }).toArray()),
        ...(await coll.find({ [DELETED_FIELD]: true, [OUTBOX_FIELD]: { $exists: false } }, { projection: { _id: 1 } }).toArray()),
      ].map((doc) => doc._id);
      for (const id of ids) if (await this.flush(coll, id)) repaired++;
    }
    return repaired;
  }

  /** Documents whose events the start's repair looks up in the log at once (the guard's read slots on FerretDB). */
  static readonly REPAIR_READS = 4;

  /**
   * The start's repair of what the load found unflushed, from the bookkeeping it read: no read of
   * the document again, whether its events are in the log asked REPAIR_READS documents at a time,
   * the missing ones appended in order, then the clear. Most such documents were flushed and only
   * not yet cleared: a crash in a burst of writes leaves up to MAX_WAITING_CLEARS of them. A
   * document this process wrote since the load is flushed as it is stored now (`flush`).
   */
  private async repairLoaded(c: Collection<StoredDocument>, loaded: Unflushed[]): Promise<number> {
    const mirror = this.state.mirrorOf(c.collectionName);
    const current: Array<{ doc: Unflushed; events: PendingEvent[] }> = [];
    const changed: Unflushed[] = [];
    for (const doc of loaded) {
      const held = mirror?.get(doc._id);
      if (held?._rev !== (doc._deleted ? undefined : doc._rev)) {
        changed.push(doc); // written by this process since
        continue;
      }
      // Unless its events are this process's own, appended already (a fresh database's initial documents, flushed by `settle`).
      const events = pendingEvents(doc._outbox);
      if (doc._deleted || this.stillPending(events).length) current.push({ doc, events });
    }
    const logged: boolean[] = [];
    for (let i = 0; i < current.length; i += Outbox.REPAIR_READS) {
      const slice = current.slice(i, i + Outbox.REPAIR_READS);
      logged.push(...(await Promise.all(slice.map(({ events }) => this.alreadyLogged(events)))));
    }
    let repaired = 0;
    const toClear: Unflushed[] = [];
    for (const [i, { doc, events }] of current.entries()) {
      await this.flushLock.run('events', async () => {
        if (!logged[i]) await this.appendLocked(events);
        if (doc._deleted) {
          await this.afterAppend(c, doc._id, doc);
        } else {
          this.state.mirrorOf(c.collectionName)?.flushed(doc._id, doc._rev);
          toClear.push(doc);
        }
      });
      if (!logged[i]) repaired++;
    }
    for (const doc of changed) if (await this.flush(c, doc._id)) repaired++;
    if (current.length) this.notify(false);
    if (toClear.length) {
      const clearing = this.clearRepaired(c, toClear);
      this.repairClears.add(clearing);
      void clearing.finally(() => this.repairClears.delete(clearing));
    }
    return repaired;
  }

  /**
   * The repair's clears, once its events are known to be in the log: one at a time in the
   * background, each when writers pause, so the start serves without waiting for them (`settle`
   * runs the rest at once). Sent before serving, the 381 clears left by the 5 000-flag seed's stop
   * took ~4 s of a 7.9 s start in a slow hour (27 Nov: the next start, with nothing to clear,
   * 4.0 s). A clear that fails or is not run leaves the document for the next start's repair,
   * which finds its events logged and only clears it.
   */
  private async clearRepaired(c: Collection<StoredDocument>, docs: Unflushed[]): Promise<void> {
    for (const doc of docs) {
      const ended = await this.maintenanceTurn(() => this.hurryRepairClears);
      const key = this.documentKey(c, doc._id);
      try {
        await inBackground(() => this.clearFlushed(key, c, doc._id, doc._rev));
      } catch (err) {
        this.backgroundError('outbox clear', err);
      } finally {
        ended();
      }
    }
  }

  /** The repair's clears under way (clearRepaired), and whether `settle` asked for them at once. */
  private readonly repairClears = new Set<Promise<void>>();
  private hurryRepairClears = false;
}
