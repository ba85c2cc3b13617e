import type { Collection, Db } from 'mongodb';
import type { BackgroundJob } from '../background-failures.js';
import { DatabaseTimeoutError, DatabaseUnavailableError, inBackground } from '../guard.js';
import { KeyedLock } from '../keyed-lock.js';
import { ConfigState, type LoadProgress } from '../state.js';
import { EventLog, type MirrorLogger } from '../event-log/index.js';
import { CommitLog, foldCommit, nextEventIdAfter, type Commit, type HeldByCollection, type NumberedEvent } from './commit-log.js';
import { checkChanges, type Change } from './check.js';
import type { StoredDocument } from './documents.js';
import { EventFlusher } from './event-flush.js';
import type { PendingEvent } from './events.js';
import { MaintenancePacer } from './maintenance.js';
import { isFerretDB } from './server.js';
import { Checkpoints } from './checkpoints.js';
import { SnapshotStore } from './snapshots.js';

export * from './documents.js';
export * from './events.js';
export type { Change } from './check.js';

/**
 * The change writer: every write of every instance is one commit of the commit log
 * (commit-log.ts), decided by the one compare-and-set the database enforces, a unique `_id`.
 *
 * 1. A write names the documents it changes and the version of each it read (`_rev`), with its
 *    events. In this process's turn (one commit at a time), it is checked against the state
 *    (src/db/state.ts: the log folded) and inserted as commit `head + 1`.
 * 2. If another instance took that number, its commits are read and applied, and the write is
 *    checked again: a document it changed meanwhile fails it with ConcurrentModificationError
 *    (callers re-read and retry: `retrying`), a taken `_id` or unique value with DuplicateKeyError.
 * 3. Stored, the commit is applied to the state and the write is acknowledged; its events, which
 *    the commit holds with their ids, reach the event log right after (event-flush.ts).
 *
 * Other instances' commits are read every poll (`follow`). Nothing depends on knowing which
 * instances run, nor on any server's conditional update: the same protocol on every server.
 */

/**
 * Told of commits applied to the state: `remote` false for a commit of this process, true when
 * read from the log; `events`, theirs in order (none for the load's).
 */
type Listener = (remote: boolean, events: readonly NumberedEvent[]) => void;

/** Drops the event log's notes (tests and tools that build a writer without a logger). */
const SILENT: MirrorLogger = { info: () => undefined, warn: () => undefined };

export class Outbox {
  /** Where committed events are appended, and where everyone reads the log. */
  readonly eventLog: EventLog;
  /** The configuration state: the commit log folded. */
  readonly state = new ConfigState();
  readonly instance = crypto.randomUUID();
  private readonly log: CommitLog;
  private readonly flusher: EventFlusher;
  private readonly snapshots: SnapshotStore;
  private readonly checkpoints: Checkpoints;
  readonly pacer = new MaintenancePacer();
  private readonly writeLock = new KeyedLock();
  private readonly listeners = new Set<Listener>();
  private readonly uniques = new Map<string, string[]>();
  /** The newest commit applied to the state, and the id its successor's first event takes. */
  private head = 0;
  /** When a commit of another instance was last read (performance.now(); see `commit`). */
  private remoteAt = Number.NEGATIVE_INFINITY;
  private timedOutAt = Number.NEGATIVE_INFINITY; // work in the turn last missed its deadline (`write`)
  private nextEventId = 1;
  /** One commit at a time in this process (the log takes one `head + 1` anyway). */
  private turn: Promise<unknown> = Promise.resolve();
  private pollTimer: NodeJS.Timeout | undefined;
  private ferretdb = true;
  private backgroundError: (job: BackgroundJob, err: unknown) => void = () => undefined;

  static readonly REMOTE_ACTIVE_MS = 1000;

  constructor(private readonly db: Db, log: MirrorLogger = SILENT) {
    this.eventLog = new EventLog(db, this, log);
    this.log = new CommitLog(db);
    this.flusher = new EventFlusher(this.eventLog, (job, err) => this.backgroundError(job, err));
    this.snapshots = new SnapshotStore(db);
    this.checkpoints = new Checkpoints(this.snapshots, {
      head: () => this.head, nextEvent: () => this.nextEventId, state: this.state, eventLog: this.eventLog, pacer: this.pacer,
    }, (job, err) => this.backgroundError(job, err));
  }

  /** The id of the newest event committed (0 before any). */
  get lastEventId(): number {
    return this.nextEventId - 1;
  }

  /** How long another instance's commit may wait for its events before this process appends them. */
  set orphanFlushMs(ms: number) { this.flusher.orphanMs = ms; }

  /** The newest commit this process has applied. */
  get committed(): number {
    return this.head;
  }

  /** Whether the server is FerretDB (server.ts): the guard's limits and the event search's indexes. */
  get isFerretDB(): boolean {
    return this.ferretdb;
  }

  async createIndexes(): Promise<void> {
    this.ferretdb = await isFerretDB(this.db);
    await this.eventLog.createIndexes();
  }

  /** A collection whose documents are written through this writer (its name is what counts). */
  collection<T extends StoredDocument>(name: string): Collection<T> {
    return this.db.collection<T>(name);
  }

  /**
   * Fields of `coll` no two documents may share a value of (undefined values aside): checked at
   * commit, against the state at the commit's place in the log.
   */
  unique(coll: string, fields: string[]): void {
    this.uniques.set(coll, fields);
  }

  onCommitted(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private notify(remote: boolean, events: readonly NumberedEvent[] = []): void {
    for (const listener of this.listeners) listener(remote, events);
  }

  /** Runs a read-modify-write of one aggregate, or of several (KeyedLock.run), with writes to them serialised in this process. */
  async exclusive<T>(keys: string | readonly string[], fn: () => Promise<T>): Promise<T> {
    return await this.writeLock.run(keys, fn);
  }

  async insert<T extends StoredDocument>(coll: Collection<T>, doc: T, events: PendingEvent[]): Promise<void> {
    await this.write([{ coll: coll.collectionName, id: doc._id, base: null, doc: { ...doc, _rev: 1 } }], events);
  }

  /** Replaces `current` (as read, with its `_rev`) by `next`: ConcurrentModificationError when another write came first. */
  async replace<T extends StoredDocument>(coll: Collection<T>, current: Pick<StoredDocument, '_id' | '_rev'>, next: T, events: PendingEvent[]): Promise<void> {
    const rev = current._rev ?? 0;
    await this.write([{ coll: coll.collectionName, id: current._id, base: rev, doc: { ...next, _id: current._id, _rev: rev + 1 } }], events);
  }

  async remove<T extends StoredDocument>(coll: Collection<T>, current: Pick<StoredDocument, '_id' | '_rev'>, events: PendingEvent[]): Promise<void> {
    await this.write([{ coll: coll.collectionName, id: current._id, base: current._rev ?? 0, doc: null }], events);
  }

  /** Commits `changes` with `events`, all or nothing; resolves once the commit is stored and applied. */
  async write(changes: Change[], events: PendingEvent[]): Promise<void> {
    const queuedAt = performance.now();
    // Work ahead of it in the turn (a commit, a poll's read) missed its deadline while this write
    // waited: 503 now, nothing sent, not after a deadline of its own (while frozen: 3.9 s for 2 s).
    await this.inTurn(() => (this.timedOutAt > queuedAt
      ? Promise.reject(new DatabaseUnavailableError('insertOne', 'commits', 'the work before it did not finish in time'))
      : this.commit(changes, events)));
    await this.flusher.keepUp();
  }

  private async inTurn<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.turn.then(fn, fn);
    this.turn = run.catch((err: unknown) => {
      if (err instanceof DatabaseTimeoutError) this.timedOutAt = performance.now();
    });
    return await run;
  }

  private async commit(changes: Change[], events: PendingEvent[]): Promise<void> {
    // Events follow whatever the log holds already: the commits' own, and any a tool stored
    // directly (a benchmark's seeded log). The copy knows the newest once it has loaded.
    await this.eventLog.opened();
    // While another instance writes, its commit is likely after the head: read it first rather
    // than take the one writer for an insert that fails (a hint only; the insert decides).
    if (performance.now() - this.remoteAt < Outbox.REMOTE_ACTIVE_MS) await this.catchUp();
    for (;;) {
      checkChanges(this.state, this.uniques, changes);
      this.nextEventId = Math.max(this.nextEventId, this.eventLog.newestId + 1);
      const commit: Commit = {
        seq: this.head + 1,
        instance: this.instance,
        at: new Date(),
        changes: changes.map(({ coll, id, doc }) => ({ coll, id, doc })),
        firstEvent: this.nextEventId,
        events: events.map((event, i) => ({ id: this.nextEventId + i, event })),
      };
      this.pacer.noteWrite();
      // A commit whose outcome is unknown (no answer in time) is found by the next read of the
      // log (poll or a taken number) and applied then, its events appended: never half.
      if ((await this.log.append(commit)) === 'committed') {
        this.apply(commit);
        this.flusher.queue(commit.events);
        this.notify(false, commit.events);
        return;
      }
      await this.catchUp();
    }
  }

  /** A stored commit, in order: into the state. */
  private apply(commit: Commit): void {
    for (const { coll, id, doc } of commit.changes) {
      this.state.mirrorOf(coll).written(id, doc);
      this.checkpoints.changed(coll, id);
    }
    this.head = commit.seq;
    this.nextEventId = nextEventIdAfter(commit);
    this.checkpoints.committed();
  }

  /**
   * Reads and applies the commits after the head; whether there were any. In this process's turn.
   * `found`: the commit after the head as a poll read it, unless the head has moved since.
   */
  private async catchUp(found?: Commit): Promise<boolean> {
    let any = false;
    const events: NumberedEvent[] = [];
    const first = found?.seq === this.head + 1 ? found : await this.log.read(this.head + 1);
    for (let next = first; next; next = await this.log.read(this.head + 1)) {
      this.apply(next);
      // Its writer appends its events (this process's own: a commit of unknown outcome, found now).
      if (next.instance === this.instance) this.flusher.queue(next.events);
      else {
        this.flusher.ensureLater(next.events);
        this.remoteAt = performance.now();
      }
      events.push(...next.events);
      any = true;
    }
    if (any) this.notify(true, events);
    return any;
  }

  /**
   * Loads the state: the newest snapshot and the commits after it (the whole log when there is
   * none), then appends whatever committed events the event log lacks once it has started (a
   * writer that died between its commit and its append).
   */
  async load(progress?: (p: LoadProgress) => void): Promise<void> {
    // Where each commit's events are, not the events: the log holds nearly all of them already.
    const ranges: Array<{ seq: number; first: number; count: number }> = [];
    await this.inTurn(async () => {
      const snapshot = await this.snapshots.latest();
      const docs: HeldByCollection = snapshot?.docs ?? new Map<string, Map<unknown, StoredDocument>>();
      let last: Commit | undefined;
      const fold = (commit: Commit) => {
        foldCommit(docs, commit);
        for (const { coll, id } of commit.changes) this.checkpoints.changed(coll, id);
        if (commit.events.length) ranges.push({ seq: commit.seq, first: commit.firstEvent, count: commit.events.length });
        last = commit;
      };
      this.checkpoints.loaded(snapshot);
      if (snapshot) await this.log.readFrom(snapshot.seq + 1, fold);
      else await this.log.readAll(fold);
      this.state.replaceAll(docs, progress);
      this.head = last?.seq ?? snapshot?.seq ?? 0;
      this.nextEventId = last ? nextEventIdAfter(last) : (snapshot?.nextEvent ?? 1);
    });
    this.notify(true);
    this.checkpoints.committed(); // a snapshot once commits pause, if the load read commits past one
    this.appendedAtLoad = this.eventLog.whenReady().then(() => this.flusher.ensureCommits(ranges, (seq) => this.log.read(seq))).then(
      () => undefined,
      (err: unknown) => this.backgroundError('event flush', err),
    );
  }

  private appendedAtLoad: Promise<void> = Promise.resolve();

  /**
   * Resolves once the events of every commit the load read are in the log (or their append failed
   * and is retried): a crash between a commit and its append leaves them to the next start.
   */
  async eventsAppended(): Promise<void> {
    await this.appendedAtLoad;
  }

  /** Reads other instances' commits every `pollMs` (one read by `_id` when there are none). */
  follow(pollMs: number, onError: (job: BackgroundJob, err: unknown) => void): void {
    this.backgroundError = onError;
    const tick = () => {
      this.pollTimer = undefined;
      inBackground(() => this.poll())
        .catch((err: unknown) => onError('commit poll', err))
        .finally(() => {
          if (this.following) this.pollTimer = setTimeout(tick, pollMs).unref();
        });
    };
    this.following = true;
    this.pollTimer = setTimeout(tick, pollMs).unref();
  }

  private following = false;

  /** One poll of `follow`: whether another instance had committed (tests call it to skip the wait). */
  async poll(): Promise<boolean> {
    // Looked for outside the turn: a read that waits out its deadline (the database frozen) must
    // not hold up the writes queued behind it, which the guard refuses at once once it knows.
    const found = await this.log.read(this.head + 1);
    if (!found) return false;
    return await this.inTurn(() => this.catchUp(found));
  }

  /** After an outage: reads what was committed meanwhile and appends the events whose append failed. */
  async reconcile(): Promise<void> {
    await this.poll();
    await this.flusher.retry();
  }

  stopFollowing(): void {
    this.following = false;
    clearTimeout(this.pollTimer);
    this.flusher.stop();
  }

  /** Resolves once the events of every write this process acknowledged so far are in the log (or their append failed). */
  async flushed(): Promise<void> {
    await this.flusher.flushed();
  }

  /** Runs every queued append now (tests that read the stored log; closing, with `close`). */
  async settle(): Promise<void> {
    await this.inTurn(async () => undefined);
    await this.flusher.flushed();
    await this.checkpoints.settled();
  }

  /** A clean stop: every queued append, then a snapshot of what was committed since the last one. */
  async close(): Promise<void> {
    this.stopFollowing();
    await this.settle();
    await this.checkpoints.close();
  }

  /** Writes a snapshot of the state now (snapshots.ts): a start reads it and the commits after it. */
  async checkpoint(): Promise<void> {
    await this.checkpoints.now();
  }

  /** See LogWriter.maintenanceTurn (src/db/event-log/index.ts). */
  async maintenanceTurn(hurry: () => boolean): Promise<() => void> {
    return await this.pacer.turn(hurry);
  }
}
