import type { Collection, Db } from 'mongodb';
import { isDuplicateKey } from '../keys.js';
import type { NumberedEvent } from '../outbox/commit-log.js';
import type { PendingEvent } from '../outbox/events.js';
import { searchTextOf, storedEventJson, type EventDocument } from './stored.js';

/**
 * Appending to the event log: each event is stored under the id its commit gave it
 * (src/db/outbox/commit-log.ts), once in `event_tail` (one document per id: where other instances
 * read recent events, pruned as blocks are sealed) and once in `events`. Both inserts are keyed,
 * so appending the same events again (a flush repeated after a crash, or by another instance
 * finishing one whose writer died) stores nothing twice.
 */

export const EVENT_TAIL = 'event_tail';

/** An id claimed in `event_tail`: the event's key and JSON. */
export interface TailEntry {
  _id: string;
  id: number;
  key: string;
  body: string;
}

export function tailKey(id: number): string {
  return `e${id}`;
}

/** The stored form of an event under its id. */
function eventDocument(event: PendingEvent, id: number): EventDocument {
  const { key, ...rest } = event;
  return { _id: key, id, ...rest, searchText: searchTextOf(event) };
}

/** The write errors of a failed insert of many documents (the driver's MongoBulkWriteError). */
function writeErrorsOf(err: unknown): Array<{ index?: unknown }> {
  const errors = (err as { writeErrors?: unknown }).writeErrors;
  const list: unknown[] = Array.isArray(errors) ? errors : errors === undefined ? [] : [errors];
  return list as Array<{ index?: unknown }>;
}

/**
 * Inserts `docs`, each that is not there already; returns the indexes of those that were (a
 * duplicate key: stored before, or the key taken by another document, which the caller tells apart).
 */
async function insertMissing(collection: Collection<TailEntry> | Collection<EventDocument>, docs: Array<TailEntry | EventDocument>): Promise<number[]> {
  try {
    await (collection as Collection<TailEntry | EventDocument>).insertMany(docs, { ordered: false });
    return [];
  } catch (err) {
    const errors = writeErrorsOf(err);
    if (!errors.length || !errors.every(isDuplicateKey)) throw err;
    return errors.flatMap((e) => (typeof e.index === 'number' ? [e.index] : []));
  }
}

/** An event id its commit gave it, held by another event: a log this code did not write. */
export class EventIdTaken extends Error {
  override name = 'EventIdTaken';
}

export class EventAppender {
  readonly events: Collection<EventDocument>;
  /**
   * The newest events, one document per id (see appendMany): where other instances find events
   * they have not seen. Kept small: the event log's mirror moves complete blocks of it into
   * `event_blocks` and prunes it (mirror.ts).
   */
  readonly tail: Collection<TailEntry>;
  private readonly appendedListeners = new Set<(entry: TailEntry) => void>();
  /** The newest id this process appended. */
  lastEventId = 0;

  constructor(db: Db) {
    this.events = db.collection<EventDocument>('events');
    this.tail = db.collection<TailEntry>(EVENT_TAIL);
  }

  async createIndexes(): Promise<void> {
    await this.events.createIndex({ id: 1 }, { unique: true, name: 'id_unique' });
  }

  /**
   * Stores events under their ids, in two commands (the tail's documents, then the copies): each
   * command costs the embedded database's one writer about 2 ms whatever it holds. Idempotent.
   */
  async appendMany(events: readonly NumberedEvent[]): Promise<void> {
    if (!events.length) return;
    const claims: TailEntry[] = events.map(({ id, event }) => ({ _id: tailKey(id), id, key: event.key, body: storedEventJson(id, event) }));
    for (const index of await insertMissing(this.tail, claims)) {
      const held = await this.tail.findOne({ _id: claims[index]!._id });
      if (held && held.key !== claims[index]!.key) throw new EventIdTaken(`event id ${claims[index]!.id} is held by another event`);
    }
    for (const index of await insertMissing(this.events, events.map(({ id, event }) => eventDocument(event, id)))) {
      const { id, event } = events[index]!;
      const held = await this.events.findOne({ _id: event.key }, { projection: { id: 1 } });
      if (held?.id !== id) throw new EventIdTaken(`event id ${id} is held by another event`);
    }
    for (const claim of claims) {
      this.lastEventId = Math.max(this.lastEventId, claim.id);
      this.emitAppended(claim);
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
