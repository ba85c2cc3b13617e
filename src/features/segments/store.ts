import type { Collection } from 'mongodb';
import { DELETED_FIELD, type Outbox, type PendingEvent, type StoredDocument } from '../../db/outbox.js';
import type { CollectionMirror, ConfigState } from '../../db/state.js';
import type { ConstraintConfig, SegmentConfig } from '../../evaluation/types.js';
import { isDuplicateKey, nextIntegerId } from '../../db/keys.js';
import { unpackFlag, type FlagData, type StoredFlag } from '../flags/store.js';

/** What the configuration state holds of the collection (src/db/state.ts). */
declare module '../../db/state.js' {
  interface HeldDocuments {
    segments: SegmentDocument;
  }
}

export interface Segment {
  id: number;
  name: string;
  description: string | null;
  project: string | null;
  constraints: ConstraintConfig[];
  createdBy: string;
  createdAt: Date;
}

/** A segment as the store keeps it: `_id` is the segment's integer id. */
export interface SegmentDocument extends StoredDocument, Omit<Segment, 'id'> {
  _id: number;
  /** Set while a deletion checks that no strategy uses the segment (SegmentService.delete). */
  deleting?: boolean;
}

/** What the playground snapshot needs of a segment (src/evaluation/types.ts). */
export function toSegmentConfig(segment: Pick<Segment, 'id' | 'name' | 'constraints'> | SegmentDocument): SegmentConfig {
  const id = 'id' in segment ? (segment.id as number) : segment._id;
  return { id, name: segment.name, constraints: segment.constraints };
}

export function toSegment(doc: SegmentDocument): Segment {
  const { _id, name, description, project, constraints, createdBy, createdAt } = doc;
  return { id: _id, name, description, project, constraints, createdBy, createdAt };
}

export interface SegmentUsage {
  features: Set<string>;
  projects: Set<string>;
  allProjects: Set<string>;
}

/** Allocated ids, never deleted, so a deleted segment's id is not handed out again (like a SQL sequence). */
interface SegmentIdDocument extends StoredDocument {
  _id: number;
}


/** Whether a flag's strategies use the segment (environment keys do not matter here). */
function flagUses(flag: Pick<FlagData, 'environments'>, id: number): boolean {
  return Object.values(flag.environments ?? {}).some((env) =>
    (env?.strategies ?? []).some((s) => Array.isArray(s?.segments) && s.segments.includes(id)));
}

const byName = (a: Segment, b: Segment) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id);

/**
 * Segments, read from the configuration state (src/db/state.ts); usage is derived from the flags
 * held there once per revision instead of a scan of the flags collection per request.
 */
export class SegmentStore {
  readonly collection: Collection<SegmentDocument>;
  private readonly ids: Collection<SegmentIdDocument>;
  private readonly mirror: CollectionMirror<SegmentDocument>;
  /** Flags keep their strategies (and so their segment references) inside the flag document. */
  private readonly flags: CollectionMirror<StoredFlag>;
  private readonly flagDocuments: Collection<StoredFlag>;
  private readonly state: ConfigState;

  constructor(private readonly outbox: Outbox) {
    this.collection = outbox.collection<SegmentDocument>('segments');
    this.ids = outbox.collection<SegmentIdDocument>('segment_ids');
    this.state = outbox.state;
    this.mirror = outbox.state.mirror('segments');
    this.flagDocuments = outbox.collection<StoredFlag>('flags');
    this.flags = outbox.state.mirror('flags');
  }

  async init(): Promise<void> {
    // Sparse: a deletion's tombstone has no name and must not collide with another one.
    await this.collection.createIndex({ name: 1 }, { unique: true, sparse: true, name: 'name_unique' });
  }

  async get(id: number): Promise<Segment | null> {
    const doc = this.mirror.get(id);
    return doc && !doc.deleting ? toSegment(doc) : null;
  }

  /** Of `ids`, those the database does not hold (or holds as being deleted): one `_id` read each. */
  async missingInDatabase(ids: number[]): Promise<number[]> {
    const missing: number[] = [];
    for (const id of new Set(ids)) {
      const doc = await this.collection.findOne({ _id: id }, { projection: { [DELETED_FIELD]: 1, deleting: 1 } });
      if (!doc || doc._deleted || doc.deleting) missing.push(id);
    }
    return missing;
  }

  /**
   * Whether a flag uses the segment, as the database has the flags now (not the state, which may
   * not have heard of another instance's write yet). Reads every flag: for deletions only.
   */
  async isInUseInDatabase(id: number): Promise<boolean> {
    const flags = this.flagDocuments.find({ [DELETED_FIELD]: { $ne: true } });
    for await (const flag of flags) {
      if (flagUses(unpackFlag(flag), id)) {
        await flags.close();
        return true;
      }
    }
    return false;
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

  /** True while any strategy of any flag (archived ones included: they can be revived) uses the segment. */
  async isInUse(id: number): Promise<boolean> {
    return this.usageIndex().has(id);
  }

  /**
   * Which flags and projects use each segment: `features`/`projects` count flags that are not
   * archived (Unleash's usedInFeatures/usedInProjects), `allProjects` includes archived ones.
   */
  async usage(ids: number[]): Promise<Map<number, SegmentUsage>> {
    const index = this.usageIndex();
    const result = new Map<number, SegmentUsage>();
    for (const id of ids) {
      const entry = index.get(id);
      if (entry) result.set(id, entry);
    }
    return result;
  }

  /** Every segment's usage, derived from the flags once per revision. */
  private usageIndex(): Map<number, SegmentUsage> {
    return this.state.derived('segments:usage', () => {
      const result = new Map<number, SegmentUsage>();
      for (const stored of this.flags.values()) {
        const flag = unpackFlag(stored);
        const name = String(flag.name ?? flag._id);
        const project = String(flag.project ?? '');
        const archived = Boolean(flag.archived);
        for (const env of Object.values(flag.environments ?? {})) {
          for (const strategy of env?.strategies ?? []) {
            for (const segmentId of Array.isArray(strategy?.segments) ? strategy.segments : []) {
              if (typeof segmentId !== 'number') continue;
              let entry = result.get(segmentId);
              if (!entry) result.set(segmentId, (entry = { features: new Set(), projects: new Set(), allProjects: new Set() }));
              entry.allProjects.add(project);
              if (!archived) {
                entry.features.add(name);
                entry.projects.add(project);
              }
            }
          }
        }
      }
      return result;
    });
  }
}
