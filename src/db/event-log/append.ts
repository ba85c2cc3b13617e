import type { Collection, Db } from 'mongodb';
import { isDuplicateKey } from '../keys.js';
import type { PendingEvent } from '../outbox/events.js';
import { searchTextOf, storedEventJson, type EventDocument } from './stored.js';

/**
 * Appending to the event log: each event claims the next id in `event_tail` (one document per id,
 * unique), then is stored in `events`. Both steps are idempotent, so appending an event again
 * (a flush repeated after a crash, by this or another instance) finds its claim and its stored
 * copy instead of writing twice, and ids stay dense across instances.
 */

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

/** The stored form of an event under its id. */
function eventDocument(event: PendingEvent, id: number): EventDocument {
  const { key, ...rest } = event;
  return { _id: key, id, ...rest, searchText: searchTextOf(event) };
}

/** The write errors of a failed insert of many documents (the driver's MongoBulkWriteError), by the documents' index. */
function failedIndexes(err: unknown): number[] {
  const errors = (err as { writeErrors?: unknown }).writeErrors;
  const list = Array.isArray(errors) ? errors : errors === undefined ? [] : [errors];
  return list.flatMap((e) => (typeof (e as { index?: unknown }).index === 'number' ? [(e as { index: number }).index] : []));
}

/** Where an ordered insert of many documents stopped: every document before it was inserted. */
function firstFailedIndex(err: unknown): number | undefined {
  const indexes = failedIndexes(err);
  return indexes.length ? Math.min(...indexes) : undefined;
}

export class EventAppender {
  readonly events: Collection<EventDocument>;
  /**
   * The newest events, one document per id (see append): where ids are claimed and where
   * other instances find events they have not seen. Kept small: the event log's mirror moves
   * complete blocks of it into `event_blocks` and prunes it (mirror.ts).
   */
  readonly tail: Collection<TailEntry>;
  private readonly appendedListeners = new Set<(entry: TailEntry) => void>();
  /** The next id to try; moved up to the other instances' newest id before each flush (startAfter). */
  private nextEventId = 1;
  /** The newest id this process claimed (published in its revision document as the others' hint). */
  lastEventId = 0;

  constructor(db: Db) {
    this.events = db.collection<EventDocument>('events');
    this.tail = db.collection<TailEntry>(EVENT_TAIL);
  }

  async createIndexes(): Promise<void> {
    await this.events.createIndex({ id: 1 }, { unique: true, name: 'id_unique' });
    await this.tail.createIndex({ key: 1 }, { unique: true, name: 'key_unique' });
  }

  /**
   * The next id starts from the newest id other instances published in their revision documents,
   * as of the last poll (no read here: a write costs a few round trips on FerretDB already). One
   * that appended since makes the claim collide and move on (claimId); ids below the tail's
   * window would only be found taken by the slow path of append, which the hint avoids.
   */
  startAfter(othersLastId: number): void {
    this.nextEventId = Math.max(this.nextEventId, othersLastId + 1);
  }

  /**
   * Appends one event: 1. claims its id in `event_tail` (a unique `_id` per id; the tail is small,
   * so reading it back is cheap even on FerretDB, which scans a collection for any read); 2. stores
   * it in `events` (unique key and id). Both steps are idempotent, so a flush repeated after a
   * crash finds its claim (by key) and its stored event (duplicate key) instead of writing twice.
   */
  async append(event: PendingEvent): Promise<void> {
    for (;;) {
      const claim = await this.claimId(event);
      if (claim.void) return; // stored before, under another id (see storedElsewhere)
      try {
        await this.events.insertOne(eventDocument(event, claim.id));
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        if (await this.storedElsewhere(event, claim)) continue;
        return;
      }
      this.emitAppended(claim);
      return;
    }
  }

  /**
   * Appends events in order, as `append` does one by one, in two commands when nothing collides:
   * their claims in one ordered insert of consecutive ids, then their copies in one insert. A
   * flush of several writes' events (Outbox.flushWritten) then costs the embedded database's one
   * writer two commands instead of two per event; each command costs it about 2 ms whatever it
   * holds. A claim that collides (another instance took the id, or the event was claimed before:
   * a repeated flush) ends the ordered insert there, and the events from it on are appended one by
   * one; a copy that collides is settled as `append` settles it.
   */
  async appendMany(events: readonly PendingEvent[]): Promise<void> {
    if (events.length <= 1) {
      for (const event of events) await this.append(event);
      return;
    }
    const first = this.nextEventId;
    const claims: TailEntry[] = events.map((event, i) => ({ _id: tailKey(first + i), id: first + i, key: event.key, body: storedEventJson(first + i, event) }));
    let claimed = claims.length;
    try {
      await this.tail.insertMany(claims, { ordered: true });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      claimed = firstFailedIndex(err) ?? 0;
    }
    const collided = new Set<number>();
    if (claimed > 0) {
      this.nextEventId = first + claimed;
      this.lastEventId = Math.max(this.lastEventId, first + claimed - 1);
      try {
        await this.events.insertMany(events.slice(0, claimed).map((event, i) => eventDocument(event, first + i)), { ordered: false });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        for (const index of failedIndexes(err)) collided.add(index);
      }
    }
    for (let i = 0; i < claimed; i++) {
      if (!collided.has(i)) this.emitAppended(claims[i]!);
      // Stored before (a repeated flush), or the id was taken by an event stored without a claim
      // (a log older than the tail): then appended again under a new id, after the others.
      else if (await this.storedElsewhere(events[i]!, claims[i]!)) await this.append(events[i]!);
    }
    for (const event of events.slice(claimed)) await this.append(event);
  }

  /**
   * The event's copy collided in `events`: either this key is stored (a repeated flush), or the id
   * is taken by an event stored without a claim (a log written before the tail existed). A scan on
   * FerretDB, but only on this path. True when the event must be claimed again (its claim was
   * given back); otherwise it is settled (announced to the listeners, or its claim made void).
   */
  private async storedElsewhere(event: PendingEvent, claim: TailEntry): Promise<boolean> {
    const key = event.key;
    const stored = await this.events.findOne({ _id: key }, { projection: { id: 1 } });
    if (!stored) {
      await this.tail.deleteOne({ _id: tailKey(claim.id), key });
      // The hint is behind a log this instance never heard of (written by an older Vane, or
      // ids that left the tail before it polled): jump past the newest stored id at once
      // instead of colliding once per id (2 100 ids took 490 s on FerretDB).
      const newest = await this.events.find({}, { projection: { id: 1 } }).sort({ id: -1 }).limit(1).next();
      this.nextEventId = Math.max(this.nextEventId, claim.id, newest?.id ?? 0) + 1;
      return true;
    }
    if (stored.id !== claim.id) {
      // Stored under an older id whose claim has left the tail: this claim becomes a void slot
      // (ids stay dense: the log's blocks are sealed only when every slot is known).
      await this.tail.replaceOne({ _id: tailKey(claim.id), key }, { id: claim.id, key, void: true });
      this.emitAppended({ ...claim, void: true, body: undefined });
      return false;
    }
    this.emitAppended(claim);
    return false;
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

  /** Told of every event this process appends, as soon as it is stored. */
  onAppended(listener: (entry: TailEntry) => void): () => void {
    this.appendedListeners.add(listener);
    return () => this.appendedListeners.delete(listener);
  }
}
