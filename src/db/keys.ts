import type { Collection } from 'mongodb';

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
