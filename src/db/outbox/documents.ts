import type { Document } from 'mongodb';

/**
 * What every document of the configuration state carries, and the errors a write can end in.
 * `_rev` counts a document's versions: a write names the version it read, and the change writer
 * refuses it when another write came first (ConcurrentModificationError).
 */

export const REV_FIELD = '_rev';

/**
 * The `_id` of every document written through the change writer: a name or an integer id. Named
 * rather than `unknown` so that filters on it type-check (the driver treats an `_id` of type
 * `unknown` as `never` in a filter).
 */
export type DocumentId = string | number;

export function isDocumentId(value: unknown): value is DocumentId {
  return typeof value === 'string' || typeof value === 'number';
}

export interface StoredDocument extends Document {
  _id: DocumentId;
  _rev?: number;
}

/** Strips the bookkeeping field before a document leaves the store. */
export function withoutBookkeeping<T extends Document>(doc: T): Omit<T, '_rev'> {
  const { _rev: _r, ...rest } = doc;
  return rest;
}

export class ConcurrentModificationError extends Error {
  override name = 'ConcurrentModificationError';
}

/**
 * A write that would give a document an `_id`, or a unique field a value, that another document
 * has. Code 11000, as MongoDB reports a unique-index violation (src/db/keys.ts, isDuplicateKey).
 */
/** Whether another writer came first: the document changed meanwhile, or its `_id` or unique value was taken. */
export function lostRace(err: unknown): boolean {
  return err instanceof ConcurrentModificationError || err instanceof DuplicateKeyError;
}

export class DuplicateKeyError extends Error {
  override name = 'DuplicateKeyError';
  readonly code = 11000;
  constructor(readonly coll: string, readonly field: string, readonly value: unknown) {
    super(`E11000 duplicate key error collection: ${coll} index: ${field} dup key: ${JSON.stringify(value)}`);
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
