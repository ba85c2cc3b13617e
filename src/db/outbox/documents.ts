import { BSON, type Document } from 'mongodb';
import type { PendingEvent } from './events.js';

/**
 * The bookkeeping every document written through the outbox carries, and the optimistic
 * concurrency around it: `_rev` (its revision, checked before each write), `_outbox` (events
 * written with the change and not yet in the log), `_deleted` (a tombstone holding a delete's
 * events until they are flushed).
 */

export const OUTBOX_FIELD = '_outbox';
export const REV_FIELD = '_rev';
export const DELETED_FIELD = '_deleted';

/**
 * The `_id` of every document written through the outbox: a name or an integer id. Named rather
 * than `unknown` so that filters on it type-check against StoredDocument (the driver treats an
 * `_id` of type `unknown` as `never` in a filter).
 */
export type DocumentId = string | number;

export function isDocumentId(value: unknown): value is DocumentId {
  return typeof value === 'string' || typeof value === 'number';
}

export interface StoredDocument extends Document {
  _id: DocumentId;
  _rev?: number;
  _outbox?: StoredOutbox;
  _deleted?: boolean;
}

/**
 * `_outbox` as stored: the pending events as one Extended JSON string (packEvents); documents
 * written before it was packed hold an array, read the same way (pendingEvents).
 *
 * Why one string: FerretDB converts every field of a document on each read and write, and an
 * event carries the changed object twice (`data`, `preData`). Measured on FerretDB 1.24 (SQLite),
 * a packed 5 KB flag document with one pending strategy event, 200 writes: the pre-write `_rev`
 * read 6.9 → 2.8 ms and the replace 15.8 → 5.2 ms; with a whole-flag event 18.9 → 3.4 ms and
 * 54.8 → 6.8 ms. Both sit on every write's path to its response.
 */
export type StoredOutbox = string | PendingEvent[];

export function packEvents(events: PendingEvent[]): string {
  return BSON.EJSON.stringify(events);
}

/** The events a stored `_outbox` holds (none when absent). */
export function pendingEvents(outbox: StoredOutbox | undefined): PendingEvent[] {
  if (outbox === undefined) return [];
  if (typeof outbox !== 'string') return outbox;
  const parsed: unknown = BSON.EJSON.parse(outbox);
  return Array.isArray(parsed) ? parsed.filter(isPendingEvent) : [];
}

function isPendingEvent(value: unknown): value is PendingEvent {
  return typeof value === 'object' && value !== null && typeof (value as { key?: unknown }).key === 'string';
}

/** Strips the bookkeeping fields before a document leaves the store. */
export function withoutBookkeeping<T extends Document>(doc: T): Omit<T, '_outbox' | '_rev' | '_deleted'> {
  const { _outbox: _o, _rev: _r, _deleted: _d, ...rest } = doc;
  return rest;
}

export const LIVE = { [DELETED_FIELD]: { $ne: true } } as const;

export class ConcurrentModificationError extends Error {
  override name = 'ConcurrentModificationError';
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
