import { BSON, type Collection } from 'mongodb';
import { DELETED_FIELD, withoutBookkeeping, type Outbox, type PendingEvent, type StoredDocument } from '../../db/outbox/index.js';
import type { CollectionMirror, ConfigState } from '../../db/state.js';
import type { FlagData, FlagDocument, FlagEnvironment } from './read-model.js';

/** What the configuration state holds of the collection (src/db/state.ts). */
declare module '../../db/state.js' {
  interface HeldDocuments {
    flags: StoredFlag;
  }
}

/**
 * How a flag is stored: the flag as one Extended JSON string (`body`, Dates kept), beside the
 * bookkeeping fields and the two fields queries and indexes use. Why: FerretDB converts every
 * field of a document on each read and write, and a flag is deeply nested (environments,
 * strategies, constraints, variants). Measured on FerretDB 1.24 (SQLite), a 4.8 KB bench flag
 * among 100: reading it by `_id` cost FerretDB 10.5 ms of CPU and replacing it 28 ms; the same
 * flag as one string 1.1 ms and 3.8 ms. The write replay's flag writes are one read and one
 * replace each, so this is most of the database's work. Reads never parse it on the hot path:
 * the configuration state holds stored documents and unpackFlag parses each revision once.
 * A document without `body` is in the nested form of older releases; it is read as it is and
 * rewritten packed by its next write.
 */
export interface PackedFlag extends StoredDocument {
  _id: string;
  project: string;
  /** Kept outside `body` for the `project` index and for tools that look at stored documents. */
  strategyIds: string[];
  body: string;
}

export type StoredFlag = PackedFlag | FlagDocument;

function isPacked(doc: StoredFlag): doc is PackedFlag {
  return typeof (doc as PackedFlag).body === 'string';
}

/** The stored form of a flag (bookkeeping fields are left to the outbox). */
export function packFlag(doc: FlagData): PackedFlag {
  const { _id, ...data } = withoutBookkeeping(doc as FlagDocument);
  return { _id: _id as string, project: doc.project, strategyIds: doc.strategyIds ?? [], body: BSON.EJSON.stringify(data) };
}

/** Stored documents are shared and never changed, so each is parsed once. */
const unpacked = new WeakMap<StoredFlag, FlagDocument>();

/** A stored flag (either form) as the flag it holds, with its bookkeeping fields and real environment names. */
export function unpackFlag(stored: StoredFlag): FlagDocument {
  let flag = unpacked.get(stored);
  if (!flag) {
    if (isPacked(stored)) {
      const { body, project: _p, strategyIds: _s, ...bookkeeping } = stored;
      flag = { ...(BSON.EJSON.parse(body) as Omit<FlagData, '_id'>), ...bookkeeping };
    } else {
      flag = decodeFlag(stored);
    }
    unpacked.set(stored, flag);
  }
  return flag;
}

/** Keeps the denormalised fields in step with the environments (call before every write). */
export function finalise<T extends FlagData>(doc: T): T {
  const ids: string[] = [];
  for (const env of Object.values(doc.environments)) for (const s of env.strategies) ids.push(s.id);
  return { ...doc, strategyIds: ids };
}

/**
 * Environment names may contain `.` (docs/rules.md §1.4 pattern), which MongoDB-compatible servers
 * refuse in keys: the nested form escapes it as `%2E` (`%` cannot occur in a name). The packed form keeps real names inside its string.
 */
function decodeKey(key: string): string {
  return key.replace(/%2E/g, '.');
}

/** A flag in the nested stored form, with real environment names. */
function decodeFlag<T extends FlagData>(doc: T): T {
  if (!doc.environments || !Object.keys(doc.environments).some((k) => decodeKey(k) !== k)) return doc;
  const environments: Record<string, FlagEnvironment> = {};
  for (const [k, v] of Object.entries(doc.environments)) environments[decodeKey(k)] = v;
  return { ...doc, environments };
}

/** The segments a flag's strategies use, in any environment (a stored flag may lack any part). */
function segmentsUsedBy(flag: Pick<FlagData, 'environments'>): Set<number> {
  const ids = new Set<number>();
  for (const env of Object.values(flag.environments ?? {})) {
    for (const strategy of env?.strategies ?? []) {
      for (const id of Array.isArray(strategy?.segments) ? strategy.segments : []) if (typeof id === 'number') ids.add(id);
    }
  }
  return ids;
}

/** The flags and projects that use one segment (FlagStore.segmentUsage). */
export interface SegmentUse {
  features: Set<string>;
  projects: Set<string>;
  allProjects: Set<string>;
}

const byCreation = (a: FlagData, b: FlagData) =>
  a.createdAt.getTime() - b.createdAt.getTime() || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);

/**
 * Flags, read from the configuration state (src/db/state.ts): no read here goes to the database.
 * Lists and indexes are derived once per revision.
 */
export class FlagStore {
  readonly collection: Collection<StoredFlag>;
  private readonly mirror: CollectionMirror<StoredFlag>;
  private readonly state: ConfigState;

  constructor(private readonly outbox: Outbox) {
    this.collection = outbox.collection<StoredFlag>('flags');
    this.state = outbox.state;
    this.mirror = outbox.state.mirror('flags');
  }

  async init(): Promise<void> {
    await this.collection.createIndex({ project: 1 }, { name: 'project' });
  }

  /** The flag as stored (with `_rev`), archived or not; null when unknown. */
  async get(name: string): Promise<FlagDocument | null> {
    return this.getNow(name);
  }

  getNow(name: string): FlagDocument | null {
    const doc = this.mirror.get(name);
    return doc ? unpackFlag(doc) : null;
  }

  /** Every flag, decoded, in creation order (derived once per revision). */
  private ordered(): FlagDocument[] {
    return this.state.derived('flags:ordered', () => [...this.mirror.values()].map(unpackFlag).sort(byCreation));
  }

  async listByProject(project: string, options: { archived?: boolean } = {}): Promise<FlagDocument[]> {
    const archived = options.archived ?? false;
    return this.state.derived(`flags:project:${project}:${archived}`, () =>
      this.ordered().filter((f) => f.project === project && f.archived === archived));
  }

  /** Every flag (archived ones too), for operations that touch all of them. */
  async all(): Promise<FlagDocument[]> {
    return this.ordered();
  }

  /** Names of the non-archived flags that depend on each parent (derived once per revision). */
  private childIndex(): Map<string, string[]> {
    return this.state.derived('flags:children', () => {
      const index = new Map<string, string[]>();
      for (const flag of this.ordered()) {
        if (flag.archived) continue;
        for (const d of flag.dependencies ?? []) {
          const list = index.get(d.feature) ?? [];
          list.push(flag.name);
          index.set(d.feature, list);
        }
      }
      return index;
    });
  }

  /** Names of the non-archived flags that depend on `name`. */
  async children(name: string): Promise<string[]> {
    return this.childrenNow(name);
  }

  childrenNow(name: string): string[] {
    return this.childIndex().get(name) ?? [];
  }

  /** Inserts a new flag with its pending events, without flushing them (the caller flushes). */
  async insertPending(doc: FlagData, events: PendingEvent[]): Promise<void> {
    await this.outbox.insertPending<StoredFlag>(this.collection, packFlag(doc), events);
  }

  /** Replaces `current` (as read) by `next`, with its events (see Outbox.replace). */
  async replace(current: FlagDocument, next: FlagData, events: PendingEvent[]): Promise<void> {
    // The outbox reads only the bookkeeping of `current` (its `_id`, `_rev` and pending events).
    const { _rev, _outbox } = current;
    const stored: StoredFlag = { ...packFlag(current), ...(_rev === undefined ? {} : { _rev }), ...(_outbox ? { _outbox } : {}) };
    await this.outbox.replace<StoredFlag>(this.collection, stored, packFlag(next), events);
  }

  async countActive(): Promise<number> {
    return this.state.derived('flags:active', () => this.ordered().filter((f) => !f.archived).length);
  }

  async findByStrategyId(id: string): Promise<FlagDocument | null> {
    const owner = this.state.derived('flags:strategy-owner', () => {
      const index = new Map<string, FlagDocument>();
      for (const flag of this.ordered()) for (const sid of flag.strategyIds ?? []) index.set(sid, flag);
      return index;
    });
    return owner.get(id) ?? null;
  }

  async projectHasDependencies(project: string): Promise<boolean> {
    return (await this.listByProject(project)).some((f) => (f.dependencies ?? []).length > 0);
  }

  /**
   * Which flags and projects use each segment in a strategy (the segments feature's usage counts
   * and deletion check): `features`/`projects` count flags that are not archived (Unleash's
   * usedInFeatures/usedInProjects), `allProjects` includes archived ones. Derived once per revision.
   */
  segmentUsage(): ReadonlyMap<number, SegmentUse> {
    return this.state.derived('flags:segment-usage', () => {
      const result = new Map<number, SegmentUse>();
      // Straight from the held documents: a flag written by hand or by an older version may lack
      // the fields the ordered list sorts by, and must still count.
      for (const stored of this.mirror.values()) {
        const flag = unpackFlag(stored);
        const name = String(flag.name ?? flag._id);
        const project = String(flag.project ?? '');
        for (const segmentId of segmentsUsedBy(flag)) {
          let entry = result.get(segmentId);
          if (!entry) result.set(segmentId, (entry = { features: new Set(), projects: new Set(), allProjects: new Set() }));
          entry.allProjects.add(project);
          if (!flag.archived) {
            entry.features.add(name);
            entry.projects.add(project);
          }
        }
      }
      return result;
    });
  }

  /**
   * Whether a flag uses the segment, as the database has the flags now (not the state, which may
   * not have heard of another instance's write yet). Reads every flag: for deletions only.
   */
  async usesSegmentInDatabase(id: number): Promise<boolean> {
    const flags = this.collection.find({ [DELETED_FIELD]: { $ne: true } });
    for await (const flag of flags) {
      if (segmentsUsedBy(unpackFlag(flag)).has(id)) {
        await flags.close();
        return true;
      }
    }
    return false;
  }

  /** Every non-archived flag, without bookkeeping: what the playground evaluates. */
  async snapshotSource(): Promise<FlagData[]> {
    return this.state.derived('flags:snapshot', () =>
      this.ordered().filter((f) => !f.archived).map((d) => withoutBookkeeping(d) as FlagData));
  }
}
