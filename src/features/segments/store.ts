import type { Collection } from 'mongodb';
import { type Outbox, type PendingEvent, type StoredDocument } from '../../db/outbox/index.js';
import type { CollectionMirror, ConfigState } from '../../db/state.js';
import { isDuplicateKey, nextIntegerId } from '../../db/keys.js';
import type { Segment } from './read-model.js';

/** What the configuration state holds of the collection (src/db/state.ts). */
declare module '../../db/state.js' {
  interface HeldDocuments {
    segments: SegmentDocument;
  }
}

/** A segment as the store keeps it: `_id` is the segment's integer id. */
export interface SegmentDocument extends StoredDocument, Omit<Segment, 'id'> {
  _id: number;
  /** Set while a deletion checks that no strategy uses the segment (SegmentService.delete). */
  deleting?: boolean;
}

export function toSegment(doc: SegmentDocument): Segment {
  const { _id, name, description, project, constraints, createdBy, createdAt } = doc;
  return { id: _id, name, description, project, constraints, createdBy, createdAt };
}

/** Allocated ids, never deleted, so a deleted segment's id is not handed out again (like a SQL sequence). */
interface SegmentIdDocument extends StoredDocument {
  _id: number;
}

const byName = (a: Segment, b: Segment) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id);

/**
 * Segments, read from the configuration state (src/db/state.ts). Which flags use a segment is the
 * flags' answer (SegmentService asks it through `FlagUsage`).
 */
export class SegmentStore {
  readonly collection: Collection<SegmentDocument>;
  private readonly ids: Collection<SegmentIdDocument>;
  private readonly mirror: CollectionMirror<SegmentDocument>;
  private readonly state: ConfigState;

  constructor(private readonly outbox: Outbox) {
    this.collection = outbox.collection<SegmentDocument>('segments');
    this.ids = outbox.collection<SegmentIdDocument>('segment_ids');
    this.state = outbox.state;
    this.mirror = outbox.state.mirror('segments');
    outbox.unique('segments', ['name']);
  }

  async get(id: number): Promise<Segment | null> {
    const doc = this.mirror.get(id);
    return doc && !doc.deleting ? toSegment(doc) : null;
  }

  /**
   * Of `ids`, those the state does not hold (or holds as being deleted). Exact right after a write
   * of this process: the commit log orders every write, and a write is committed only once this
   * process has applied every commit before it; a deletion committed after it sees its use.
   */
  async missingNow(ids: number[]): Promise<number[]> {
    return [...new Set(ids)].filter((id) => {
      const doc = this.mirror.get(id);
      return !doc || doc.deleting;
    });
  }

  /** The stored document with its revision, for read-modify-write. */
  async getDocument(id: number): Promise<SegmentDocument | null> {
    return this.mirror.get(id) ?? null;
  }

  /** Ordered by name, as Unleash lists them. */
  async list(): Promise<Segment[]> {
    return this.state.derived('segments:list', () => [...this.mirror.values()].filter((d) => !d.deleting).map(toSegment).sort(byName));
  }

  async count(): Promise<number> {
    return this.mirror.size;
  }

  async existsByName(name: string): Promise<boolean> {
    return (await this.list()).some((s) => s.name === name);
  }

  /**
   * Allocates the next id: highest allocated + 1, claimed by inserting it under a unique `_id`;
   * a concurrent writer (this or another instance) that took it makes us retry with the next one.
   * Ids start at 1 and are never reused.
   */
  async allocateId(): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      const id = await nextIntegerId(this.ids);
      try {
        await this.ids.insertOne({ _id: id, allocatedAt: new Date() });
        return id;
      } catch (err) {
        if (!isDuplicateKey(err) || attempt > 100) throw err;
      }
    }
  }

  async insert(doc: SegmentDocument, events: PendingEvent[]): Promise<void> {
    await this.outbox.insert(this.collection, doc, events);
  }

  async replace(current: SegmentDocument, next: SegmentDocument, events: PendingEvent[]): Promise<void> {
    await this.outbox.replace(this.collection, current, next, events);
  }

  async remove(current: SegmentDocument, events: PendingEvent[]): Promise<void> {
    await this.outbox.remove(this.collection, current, events);
  }
}
