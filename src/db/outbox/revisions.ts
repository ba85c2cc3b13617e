import type { BackgroundJob } from '../background-failures.js';
import { inBackground } from '../guard.js';
import { randomUUID } from 'node:crypto';
import { BSON, type Collection, type Db } from 'mongodb';

/**
 * How instances learn of each other's writes. Each instance writes only its own revision document
 * (`meta`, `_id: rev:<instance>`): its write count, the documents its latest writes changed and
 * the newest event id it claimed. Other instances poll these (see watch) and re-read just those
 * documents by `_id`; an instance never mistakes its own writes for someone else's, which a
 * single shared token could not tell apart (it reloaded the whole state after every one of its
 * own writes).
 */

interface MetaDocument {
  _id: string;
  lastId?: number;
  token?: string;
  /** Revision documents (`rev:<instance>`): this instance's write count and its latest changes. */
  seq?: number;
  at?: Date;
  /** The latest changes as Extended JSON (see publish); `recent` is the array older releases write. */
  changes?: string;
  recent?: ChangedDocument[];
}

function changesOf(doc: MetaDocument): ChangedDocument[] {
  return typeof doc.changes === 'string' ? (BSON.EJSON.parse(doc.changes) as ChangedDocument[]) : (doc.recent ?? []);
}

/** One document written by an instance, as its revision document lists it. */
export interface ChangedDocument {
  seq: number;
  coll: string;
  id: unknown;
}

/** What a poll found other instances changed: the listed documents, or too many to list (`whole`). */
export interface RemoteChanges {
  whole: boolean;
  documents: ChangedDocument[];
}

/** The `events` document of `meta`: the newest id, as written before revision documents existed. */
const EVENTS_META = 'events';
const REVISION_PREFIX = 'rev:';
/** Changes listed per revision document: another instance that missed more reloads its state whole. */
const RECENT_CHANGES = 64;
/**
 * How long a revision waits for more writes before it is published (publishAfterResponse). Every
 * command costs the embedded database about 2 ms whatever it does, and it runs one write at a
 * time: a client toggling flags one after another (bench/scale.ts's writes, 5 000 flags, 27 Nov)
 * sent four commands per toggle (the flag, the event's claim and copy, the revision), each toggle
 * queued behind the last one's. Published after a delay, one revision covers several toggles:
 * with 30 ms, toggle p50 8.2–9.9 → 6.1–6.3 ms, variants 6.8–7.4 → 4.5–5.7 (two interleaved runs
 * each, 200 writes per kind); with these 25 ms and the clears and tail pruning waiting for a pause
 * (Outbox.maintenanceTurn), toggle 7.7/10.3 against 11.5/12.9 ms in a slower hour. Other instances poll every REVISION_POLL_MS (250 ms by default), so they see a
 * change these milliseconds later at most. An instance that dies within them leaves its last
 * writes unannounced: the others reload their state whole once its revision document goes silent
 * (`poll`, goneAfterMs).
 */
const PUBLISH_COALESCE_MS = 25;
/**
 * The same while the last read of the revision documents found no other instance running: no one
 * is waiting to see the change, so a burst of writes shares one revision write per this many
 * milliseconds. The 2 000-flag replay (bench/replay.ts, one request after another) sent 1 828
 * revision writes in 49 s, 3.2 s of the embedded database's one writer (command monitoring,
 * 27 Nov). An instance that starts is seen by the next poll (REVISION_POLL_MS) or othersAlive,
 * and it re-reads whatever changed after it marked the revisions seen (markSeen) once this
 * revision is published: it sees a write at most these milliseconds later than otherwise.
 */
const ALONE_PUBLISH_COALESCE_MS = 250;
/** Revision documents of instances silent this long are removed (their changes were seen long ago). */
const REVISION_DOCUMENT_TTL_MS = 24 * 3600_000;

/**
 * How often an instance rewrites its revision document when it has nothing to publish, so the
 * others know it is running (see othersAlive).
 */
const HEARTBEAT_MS = 10_000;

export class Revisions {
  /**
   * Another instance whose revision document is older than this is taken for gone (it crashed;
   * one that stops cleanly removes its document: retire). Six missed heartbeats.
   */
  goneAfterMs = 6 * HEARTBEAT_MS;
  private readonly meta: Collection<MetaDocument>;
  /** An instance id for this process's revision document. */
  readonly instance = randomUUID();
  private seq = 0;
  private recent: ChangedDocument[] = [];
  private changedSincePublish: Array<{ coll: string; id: unknown }> = [];
  /** The newest event id other instances published (their revision documents, see otherRevisions). */
  private othersLastId = 0;

  /**
   * @param lastEventId the newest event id this process claimed, published with each revision
   * @param onRemote told what another instance changed, before the poll returns
   */
  constructor(
    db: Db,
    private readonly lastEventId: () => number,
    private readonly onRemote: (changes: RemoteChanges) => Promise<void>,
  ) {
    this.meta = db.collection<MetaDocument>('meta');
  }

  /**
   * A document write the database acknowledged: published as a revision soon (without holding up
   * the caller: publishAfterResponse), so other instances see it.
   */
  changed(coll: string, id: unknown): void {
    this.changedSincePublish.push({ coll, id });
    this.publishAfterResponse();
  }

  /** The publish `changed` asked for, until it starts (see publishAfterResponse). */
  private scheduled: Promise<void> | undefined;

  /**
   * Starts the publish PUBLISH_COALESCE_MS after the first write it carries: the write's response
   * goes out first, and the writes of those milliseconds are published by one revision write.
   * Started at once, its database write was issued before the response and held it up (1 ms of a
   * 7–9 ms flag write at 2 000 flags, `strace` of the server, 27 Nov); started in the next turn of
   * the loop, one revision write followed nearly every write of a client writing one change after
   * another, and on the embedded database's one writer it came before that client's next write
   * (see PUBLISH_COALESCE_MS for the figures).
   */
  private publishAfterResponse(): void {
    const delay = this.othersRunning ? PUBLISH_COALESCE_MS : ALONE_PUBLISH_COALESCE_MS;
    this.scheduled ??= new Promise<void>((resolve) => setTimeout(resolve, delay)).then(() => {
      this.scheduled = undefined;
      this.publishSoon();
    });
  }

  /**
   * Writes this instance's revision document: with `bump`, the writes since the last publish as a
   * new revision; without, the same revision again with a new `at` (the heartbeat).
   */
  private async publish(bump: boolean): Promise<void> {
    if (!bump) {
      const doc = { seq: this.seq, at: new Date(), lastId: this.lastEventId(), changes: BSON.EJSON.stringify(this.recent) };
      await this.meta.replaceOne({ _id: REVISION_PREFIX + this.instance }, doc, { upsert: true });
      return;
    }
    const changed = this.changedSincePublish.splice(0);
    const before = { seq: this.seq, recent: this.recent };
    this.seq++;
    const recent = [...this.recent];
    for (const c of changed) recent.push({ seq: this.seq, coll: c.coll, id: c.id });
    if (changed.length === 0) recent.push({ seq: this.seq, coll: '', id: null });
    this.recent = recent.slice(-RECENT_CHANGES);
    // The list as one string: FerretDB converts every field of a document on each write and read,
    // and 64 entries of three fields cost it 4.3–4.9 ms of CPU per revision write, the same list
    // as one string 1.9–2.2 ms, as much as eight entries (FerretDB 1.24, SQLite, loaded machine).
    // One revision write follows each write. An older instance finds no `recent` array and reloads
    // its whole state, which is slower but correct.
    const doc = { seq: this.seq, at: new Date(), lastId: this.lastEventId(), changes: BSON.EJSON.stringify(this.recent) };
    try {
      await this.meta.replaceOne({ _id: REVISION_PREFIX + this.instance }, doc, { upsert: true });
    } catch (err) {
      // Published with the next write, or by the next poll (watch).
      this.seq = before.seq;
      this.recent = before.recent;
      this.changedSincePublish.unshift(...changed);
      throw err;
    }
  }

  private publishing: Promise<void> | undefined;
  private publishAgain = false;
  /** Whether the next write of the revision document is a new revision (else a heartbeat). */
  private bumpDue = false;
  private publishError: (err: unknown) => void = () => undefined;
  private pollError: (err: unknown) => void = () => undefined;

  /**
   * Publishes the revision without holding up the write's response: the write is applied to this
   * instance's state already, and the database write of the revision document (4–15 ms on
   * FerretDB) overlaps the flush of the events. Writes meanwhile are published together by one
   * more write. Other instances see the change within a poll interval plus these milliseconds.
   */
  private publishSoon(bump = true): void {
    this.bumpDue ||= bump;
    if (this.publishing) {
      this.publishAgain = true;
      return;
    }
    // One writer of the revision document at a time: a heartbeat overtaking a publish would put
    // back the older `seq`, which the others read as a restart (and reload their whole state).
    this.publishing = inBackground(async () => {
      try {
        do {
          this.publishAgain = false;
          const bump = this.bumpDue;
          this.bumpDue = false;
          await this.publish(bump);
        } while (this.publishAgain);
      } catch (err) {
        this.publishError(err);
      } finally {
        this.publishing = undefined;
      }
    });
  }

  /** Resolves once every write of this process so far is published (tests, closing). */
  async published(): Promise<void> {
    while (this.scheduled || this.publishing) await (this.scheduled ?? this.publishing);
  }

  /**
   * Writes this instance's revision document now (whether or not it wrote anything yet) and every
   * HEARTBEAT_MS from then on, so the others know it runs (othersAlive); resolves with whether
   * another instance is running. Called before this instance writes anything.
   */
  async announce(): Promise<boolean> {
    this.publishSoon(false);
    await this.published();
    this.stopHeartbeat();
    this.heartbeat = setInterval(() => this.publishSoon(false), HEARTBEAT_MS);
    this.heartbeat.unref();
    return await this.othersAlive();
  }

  private heartbeat: NodeJS.Timeout | undefined;

  private stopHeartbeat(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  /**
   * Whether another instance may be writing to this database: one whose revision document was
   * written less than goneAfterMs ago. Read from the database, not from the last poll: an
   * instance that started since is seen at once.
   */
  async othersAlive(): Promise<boolean> {
    await this.otherRevisions();
    return this.othersRunning;
  }

  /**
   * Whether the last read of the revision documents (a poll, othersAlive) found another instance
   * running: one whose document was written less than goneAfterMs ago. Assumed until the first.
   */
  private othersRunning = true;

  /** Stops the heartbeat and removes this instance's revision document (a clean stop). */
  async retire(): Promise<void> {
    this.stopHeartbeat();
    await this.published();
    await this.meta.deleteOne({ _id: REVISION_PREFIX + this.instance });
  }

  private watchTimer: NodeJS.Timeout | undefined;
  /** The write count of every other instance as last seen. */
  private seen: Map<string, number> | undefined;
  /** Other instances taken for gone (their revision document silent for goneAfterMs), each reloaded for once. */
  private readonly silent = new Set<string>();

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
    const others = docs.filter((d) => d._id.startsWith(REVISION_PREFIX) && d._id !== REVISION_PREFIX + this.instance);
    const now = Date.now();
    this.othersRunning = others.some((d) => d.at !== undefined && now - d.at.getTime() < this.goneAfterMs);
    return others;
  }

  /**
   * Takes note of the other instances' revisions as they are now. Called before the state loads,
   * so a write that lands during the load is picked up by the next poll.
   */
  async markSeen(): Promise<void> {
    this.seen = new Map((await this.otherRevisions()).map((d) => [d._id, d.seq ?? 0]));
  }

  /** The newest event id other instances published, as of the last poll (read once if never polled). */
  async othersNewestEventId(): Promise<number> {
    if (!this.seen) await this.markSeen();
    return this.othersLastId;
  }

  /**
   * Watches for other instances' writes: polls their revision documents every `pollMs` (one
   * read of the small `meta` collection; change streams need a replica set, which FerretDB and a
   * standalone mongod do not offer).
   */
  watch(pollMs: number, onError: (job: BackgroundJob, err: unknown) => void): void {
    this.publishError = (err) => onError('revision publish', err);
    this.pollError = (err) => onError('revision poll', err);
    const poll = async () => {
      try {
        if (this.changedSincePublish.length) this.publishSoon();
        await inBackground(() => this.poll());
      } catch (err) {
        this.pollError(err);
      } finally {
        this.watchTimer = setTimeout(() => void poll(), pollMs);
        this.watchTimer.unref();
      }
    };
    this.watchTimer = setTimeout(() => void poll(), 0);
    this.watchTimer.unref();
  }

  stopWatching(): void {
    clearTimeout(this.watchTimer);
    this.watchTimer = undefined;
  }

  /** One poll: whether another instance wrote since the last (onRemote has been told what). */
  async poll(): Promise<boolean> {
    const docs = await this.otherRevisions();
    if (!this.seen) {
      this.seen = new Map(docs.map((d) => [d._id, d.seq ?? 0]));
      return false;
    }
    const documents: ChangedDocument[] = [];
    let whole = false;
    let changed = false;
    const now = Date.now();
    for (const doc of docs) {
      const seq = doc.seq ?? 0;
      const before = this.seen.get(doc._id) ?? 0;
      if (seq === before) {
        const silentMs = doc.at ? now - doc.at.getTime() : 0;
        if (silentMs > REVISION_DOCUMENT_TTL_MS) {
          await this.meta.deleteOne({ _id: doc._id, seq });
          this.seen.delete(doc._id);
          this.silent.delete(doc._id);
        } else if (silentMs > this.goneAfterMs && !this.silent.has(doc._id)) {
          // It died (a clean stop removes its document): its last writes may never have been
          // published (PUBLISH_COALESCE_MS), so the state is read again whole, once.
          this.silent.add(doc._id);
          changed = true;
          whole = true;
        }
        continue;
      }
      this.silent.delete(doc._id);
      changed = true;
      const recent = changesOf(doc);
      // Covered when the list reaches back to the first write not seen (a restarted instance
      // counts from 1 again: a seq below the one seen means a new run).
      const from = seq < before ? 1 : before + 1;
      if (recent.length === 0 || recent[0]!.seq > from) whole = true;
      else documents.push(...recent.filter((c) => c.seq >= from && c.coll !== ''));
      this.seen.set(doc._id, seq);
    }
    if (!changed) return false;
    await this.onRemote({ whole, documents });
    return true;
  }
}
