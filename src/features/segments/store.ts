import type { Collection } from 'mongodb';
import { LIVE, withoutBookkeeping, type Outbox, type PendingEvent, type StoredDocument } from '../../db/outbox.js';
import type { ConstraintConfig, SegmentConfig } from '../../evaluation/types.js';
import { EnvironmentStore } from '../environments/store.js';
import { isDuplicateKey, nextIntegerId } from '../../db/keys.js';

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
}

/** What the playground snapshot needs of a segment (src/evaluation/types.ts). */
export function toSegmentConfig(segment: Pick<Segment, 'id' | 'name' | 'constraints'> | SegmentDocument): SegmentConfig {
  const id = 'id' in segment ? segment.id : (segment as SegmentDocument)._id;
  return { id, name: segment.name, constraints: segment.constraints };
}

export function toSegment(doc: SegmentDocument): Segment {
  const { _id, name, description, project, constraints, createdBy, createdAt } = withoutBookkeeping(doc);
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


export class SegmentStore {
  readonly collection: Collection<SegmentDocument>;
  private readonly ids: Collection<SegmentIdDocument>;
  /** Flags keep their strategies (and so their segment references) inside the flag document. */
  private readonly flags: Collection<StoredDocument>;

  constructor(
    private readonly outbox: Outbox,
    private readonly environments: EnvironmentStore = new EnvironmentStore(outbox),
  ) {
    this.collection = outbox.collection<SegmentDocument>('segments');
    this.ids = outbox.collection<SegmentIdDocument>('segment_ids');
    this.flags = outbox.collection<StoredDocument>('flags');
  }

  async init(): Promise<void> {
    // Sparse: a deletion's tombstone has no name and must not collide with another one.
    await this.collection.createIndex({ name: 1 }, { unique: true, sparse: true, name: 'name_unique' });
  }

  async get(id: number): Promise<Segment | null> {
    if (!Number.isSafeInteger(id)) return null;
    const doc = await this.collection.findOne({ _id: id, ...LIVE });
    return doc ? toSegment(doc) : null;
  }

  /** The stored document with its revision, for read-modify-write. */
  async getDocument(id: number): Promise<SegmentDocument | null> {
    return await this.collection.findOne({ _id: id, ...LIVE });
  }

  /** Ordered by name, as Unleash lists them. */
  async list(): Promise<Segment[]> {
    const docs = await this.collection.find({ ...LIVE }).toArray();
    return docs.map(toSegment).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id));
  }

  async count(): Promise<number> {
    return await this.collection.countDocuments({ ...LIVE });
  }

  async existsByName(name: string): Promise<boolean> {
    return (await this.collection.findOne({ name, ...LIVE }, { projection: { _id: 1 } })) !== null;
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
    const environments = await this.environments.list();
    if (environments.length === 0) return false;
    if (environments.some((env) => env.name.includes('.') || env.name.startsWith('$'))) return await this.isInUseByScan(id);
    const filter = {
      $or: environments.map((env) => ({ [`environments.${env.name}.strategies.segments`]: id })),
      ...LIVE,
    };
    return (await this.flags.findOne(filter as never, { projection: { _id: 1 } })) !== null;
  }

  /**
   * Which flags and projects use each segment: `features`/`projects` count flags that are not
   * archived (Unleash's usedInFeatures/usedInProjects), `allProjects` includes archived ones.
   */
  async usage(ids: number[]): Promise<Map<number, SegmentUsage>> {
    const result = new Map<number, SegmentUsage>();
    if (ids.length === 0) return result;
    const wanted = new Set(ids);
    const environments = await this.environments.list();
    const dotted = environments.some((env) => env.name.includes('.') || env.name.startsWith('$'));
    if (environments.length === 0) return result;
    const filter = dotted
      ? { ...LIVE }
      : { $or: environments.map((env) => ({ [`environments.${env.name}.strategies.segments`]: { $in: ids } })), ...LIVE };
    const cursor = this.flags.find(filter as never, { projection: { name: 1, project: 1, archived: 1, environments: 1 } });
    for await (const flag of cursor) {
      const name = String(flag.name ?? flag._id);
      const project = String(flag.project ?? '');
      const archived = Boolean(flag.archived);
      const envs = (flag.environments ?? {}) as Record<string, { strategies?: Array<{ segments?: unknown[] }> }>;
      for (const env of Object.values(envs)) {
        for (const strategy of env?.strategies ?? []) {
          for (const segmentId of Array.isArray(strategy?.segments) ? strategy.segments : []) {
            if (typeof segmentId !== 'number' || !wanted.has(segmentId)) continue;
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
  }

  /** The same check without dotted paths (an environment name may contain a dot). */
  private async isInUseByScan(id: number): Promise<boolean> {
    const cursor = this.flags.find({ ...LIVE } as never, { projection: { environments: 1 } });
    for await (const flag of cursor) {
      const environments = (flag.environments ?? {}) as Record<string, { strategies?: Array<{ segments?: unknown[] }> }>;
      for (const env of Object.values(environments)) {
        if ((env?.strategies ?? []).some((s) => Array.isArray(s?.segments) && s.segments.includes(id))) {
          await cursor.close();
          return true;
        }
      }
    }
    return false;
  }
}
