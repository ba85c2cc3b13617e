import { createHash } from 'node:crypto';
import { BSON, type Collection, type Db } from 'mongodb';
import { isDuplicateKey } from '../keys.js';
import type { DocumentId, StoredDocument } from './documents.js';

/**
 * Snapshots of the configuration state at a commit number, so that a start reads the newest
 * snapshot and the commits after it instead of the whole commit log (src/db/outbox/commit-log.ts),
 * which grows with every write.
 *
 * Like the log, they are only ever inserted: a snapshot is a list of parts (`snapshot_marks`,
 * `_id: s<commit number>`), each part the documents of one bucket of ids as one Extended JSON
 * string, stored under the hash of its content (`snapshot_parts`). A bucket no commit changed
 * since the last snapshot keeps its part, so a snapshot writes only the buckets its commits
 * changed. Any instance may write one; two writing the same content insert the same keys.
 *
 * Parts no snapshot needs any more are deleted; a snapshot whose parts are not all there (another
 * instance deleted one it still referred to) is passed over for an older one, and with none left
 * the start reads the whole log: snapshots only ever make a start faster.
 */

export const SNAPSHOT_MARKS = 'snapshot_marks';
export const SNAPSHOT_PARTS = 'snapshot_parts';

/**
 * Buckets of ids. At 5 000 bench flags (~5 KB each) a part holds one to three flags, so a
 * snapshot after 512 strategy adds writes at most ~512 parts of ~6 KB.
 */
export const BUCKETS = 4096;

interface MarkDocument {
  _id: string;
  seq: number;
  /** The id the first event after this commit takes. */
  nextEvent: number;
  /** The part of each bucket ('' for an empty one). */
  parts: string[];
  at: Date;
}

interface PartDocument {
  _id: string;
  body: string;
  at: Date;
}

/** The state at commit `seq`: every document by collection and id. */
export interface Snapshot {
  seq: number;
  nextEvent: number;
  docs: Map<string, Map<unknown, StoredDocument>>;
  /** The part of each bucket, which the next snapshot keeps where nothing changed. */
  parts: string[];
}

function markKey(seq: number): string {
  return `s${String(seq).padStart(12, '0')}`;
}

/** The bucket of a document (FNV-1a of its collection and id). */
export function bucketOf(coll: string, id: DocumentId): number {
  const text = `${coll}\u0000${typeof id}\u0000${String(id)}`;
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % BUCKETS;
}

/** A bucket's part: its documents, ordered, as one string, and the key its content gives it. */
export function encodePart(docs: Array<[coll: string, doc: StoredDocument]>): { key: string; body: string } {
  const ordered = [...docs].sort(([ca, a], [cb, b]) => (ca < cb ? -1 : ca > cb ? 1 : String(a._id) < String(b._id) ? -1 : String(a._id) > String(b._id) ? 1 : 0));
  const body = BSON.EJSON.stringify(ordered);
  return { key: `p${createHash('sha256').update(body).digest('hex').slice(0, 40)}`, body };
}

export class SnapshotStore {
  private readonly marks: Collection<MarkDocument>;
  private readonly parts: Collection<PartDocument>;

  constructor(db: Db) {
    this.marks = db.collection<MarkDocument>(SNAPSHOT_MARKS);
    this.parts = db.collection<PartDocument>(SNAPSHOT_PARTS);
  }

  /** The newest snapshot whose parts are all stored, or undefined. */
  async latest(): Promise<Snapshot | undefined> {
    const marks = (await this.marks.find({}).toArray()).sort((a, b) => b.seq - a.seq);
    if (!marks.length) return undefined;
    // One scan: on FerretDB any query but an `_id` equality reads the whole collection anyway.
    const bodies = new Map((await this.parts.find({}).toArray()).map((part) => [part._id, part.body]));
    for (const mark of marks) {
      if (!mark.parts.every((key) => key === '' || bodies.has(key))) continue;
      const docs = new Map<string, Map<unknown, StoredDocument>>();
      for (const key of mark.parts) {
        if (key === '') continue;
        for (const [coll, doc] of BSON.EJSON.parse(bodies.get(key)!) as Array<[string, StoredDocument]>) {
          let held = docs.get(coll);
          if (!held) docs.set(coll, (held = new Map<unknown, StoredDocument>()));
          held.set(doc._id, doc);
        }
      }
      return { seq: mark.seq, nextEvent: mark.nextEvent, docs, parts: mark.parts };
    }
    return undefined;
  }

  static readonly PARTS_PER_COMMAND = 32;

  /** Whether the snapshot at `seq` is still stored (then so are its parts: see prune). */
  async has(seq: number): Promise<boolean> {
    return (await this.marks.findOne({ _id: markKey(seq) }, { projection: { _id: 1 } })) !== null;
  }

  /** Stores the parts not stored yet, then the snapshot that lists them. */
  async write(seq: number, nextEvent: number, parts: string[], bodies: Array<{ key: string; body: string }>): Promise<void> {
    const at = new Date();
    // A few parts to a command: the embedded database runs one write at a time, and a user's
    // write that comes meanwhile waits for the whole command (a first snapshot at 2 000 flags is
    // ~10 MB).
    for (let i = 0; i < bodies.length; i += SnapshotStore.PARTS_PER_COMMAND) {
      const docs = bodies.slice(i, i + SnapshotStore.PARTS_PER_COMMAND).map(({ key, body }) => ({ _id: key, body, at }));
      await this.parts.insertMany(docs, { ordered: false }).catch((err: unknown) => {
        const errors = (err as { writeErrors?: unknown[] }).writeErrors ?? [];
        if (!errors.length || !errors.every(isDuplicateKey)) throw err;
      });
    }
    await this.marks.insertOne({ _id: markKey(seq), seq, nextEvent, parts, at }).catch((err: unknown) => {
      if (!isDuplicateKey(err)) throw err; // another instance wrote the same snapshot
    });
  }

  /**
   * Deletes the snapshots older than the one before `seq`, and the parts only they listed. Sent
   * as deletes by `_id`, 64 to a command (FerretDB reads every document for any other filter).
   */
  async prune(seq: number): Promise<void> {
    const marks = (await this.marks.find({}, { projection: { seq: 1, parts: 1 } }).toArray()).sort((a, b) => b.seq - a.seq);
    const newer = marks.filter((m) => m.seq >= seq);
    const kept = new Set([...newer, ...marks.filter((m) => m.seq < seq).slice(0, 1)]);
    const dropped = marks.filter((m) => !kept.has(m));
    if (!dropped.length) return;
    const referenced = new Set([...kept].flatMap((m) => m.parts));
    const parts = [...new Set(dropped.flatMap((m) => m.parts))].filter((key) => key !== '' && !referenced.has(key));
    await this.marks.bulkWrite(dropped.map((m) => ({ deleteOne: { filter: { _id: m._id } } })), { ordered: false });
    for (let i = 0; i < parts.length; i += 64) {
      await this.parts.bulkWrite(parts.slice(i, i + 64).map((key) => ({ deleteOne: { filter: { _id: key } } })), { ordered: false });
    }
  }
}
