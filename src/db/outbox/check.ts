import type { ConfigState } from '../state.js';
import { ConcurrentModificationError, DuplicateKeyError, type DocumentId, type StoredDocument } from './documents.js';

/** One document a write changes: the version it read (`base`: null when it must not exist) and the next. */
export interface Change {
  coll: string;
  id: DocumentId;
  base: number | null;
  doc: StoredDocument | null;
}

/**
 * Refuses `changes` that do not apply to the state as it is: a document changed since its `base`
 * (ConcurrentModificationError), an `_id` taken, or a value of a unique field (`uniques`, by
 * collection) held by another document (DuplicateKeyError). The commit log's order makes this the
 * conditional write: it runs against the state at the commit's place in the log (index.ts).
 */
export function checkChanges(state: ConfigState, uniques: ReadonlyMap<string, readonly string[]>, changes: readonly Change[]): void {
  for (const { coll, id, base, doc } of changes) {
    const mirror = state.mirrorOf(coll);
    const held = mirror.get(id);
    if (base === null) {
      if (held) throw new DuplicateKeyError(coll, '_id', id);
    } else if (!held || (held._rev ?? 0) !== base) {
      throw new ConcurrentModificationError(`${coll} ${String(id)} changed meanwhile`);
    }
    if (!doc) continue;
    for (const field of uniques.get(coll) ?? []) {
      const value: unknown = doc[field];
      if (value === undefined || value === null) continue;
      for (const other of mirror.values()) {
        if (other._id !== id && other[field] === value) throw new DuplicateKeyError(coll, field, value);
      }
    }
  }
}
