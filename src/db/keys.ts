import type { Collection } from 'mongodb';
import { DuplicateKeyError } from './outbox/documents.js';

/**
 * A unique-index violation. MongoDB and FerretDB report 11000 on inserts; FerretDB's SQLite
 * backend reports a conflicting replace as code 1 with SQLite's message.
 */
export function isDuplicateKey(err: unknown): boolean {
  const e = err as { code?: number; message?: string } | undefined;
  return e?.code === 11000 || (typeof e?.message === 'string' && e.message.includes('UNIQUE constraint failed'));
}

/**
 * The next integer `_id` of a collection whose ids are sequential integers: the highest + 1.
 * Only a proposal — callers insert with it and retry on a duplicate key, since the unique `_id`
 * is the one arbiter across processes (FerretDB has no atomic counter).
 */
export async function nextIntegerId(collection: Collection<{ _id: number }>): Promise<number> {
  const last = await collection.find({}, { projection: { _id: 1 } }).sort({ _id: -1 }).limit(1).next();
  return (last?._id ?? 0) + 1;
}

/**
 * Inserts a new document under the next free integer `_id`, `firstFree()` as the configuration
 * state knows it. The change writer checks the insert at its place in the commit log
 * (src/db/outbox/), with the state brought up to that place: an `_id` taken meanwhile is in the
 * state when the insert fails, so the next attempt takes the one after. A duplicate of another
 * unique field is the caller's to answer (`otherKey`: throw, or a result).
 */
export async function insertUnderNextId<R>(options: {
  firstFree: () => number;
  insert: (id: number) => Promise<R>;
  otherKey: (err: DuplicateKeyError, id: number) => Promise<R>;
  maxAttempts: number;
}): Promise<R> {
  for (let attempt = 0; ; attempt++) {
    const id = options.firstFree();
    try {
      return await options.insert(id);
    } catch (err) {
      if (!(err instanceof DuplicateKeyError) || attempt >= options.maxAttempts) throw err;
      if (err.field !== '_id') return await options.otherKey(err, id);
    }
  }
}
