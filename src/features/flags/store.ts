import { BSON, type Collection } from 'mongodb';
import { withoutBookkeeping, type Outbox, type PendingEvent, type StoredDocument } from '../../db/outbox.js';
import type { CollectionMirror, ConfigState } from '../../db/state.js';
import type { DependencyConfig, FlagConfig, FlagEnvironmentConfig, StrategyConfig, VariantConfig } from '../../evaluation/types.js';

/** What the configuration state holds of the collection (src/db/state.ts). */
declare module '../../db/state.js' {
  interface HeldDocuments {
    flags: StoredFlag;
  }
}

export interface FlagTag {
  type: string;
  value: string;
}

export interface FlagEnvironment extends FlagEnvironmentConfig {
  enabled: boolean;
  strategies: StrategyConfig[];
  variants: VariantConfig[];
}

export type LifecycleStage = 'initial' | 'pre-live' | 'live' | 'completed' | 'archived';

/**
 * One document per flag: metadata plus every environment's configuration. A flag change of any
 * kind is therefore one document write, carrying its events (see src/db/outbox.ts).
 */
export interface FlagData {
  /** The flag name: unique across projects, archived flags included. */
  _id: string;
  name: string;
  project: string;
  description: string | null;
  type: string;
  impressionData: boolean;
  stale: boolean;
  archived: boolean;
  archivedAt: Date | null;
  createdAt: Date;
  createdBy: { id: number | null; name: string };
  tags: FlagTag[];
  lifecycle: { stage: LifecycleStage; enteredStageAt: Date };
  /** 0 or 1 entries: a child has at most one parent (docs/rules.md §1.4 S7). */
  dependencies: DependencyConfig[];
  environments: Record<string, FlagEnvironment>;
  /** Denormalised ids of every strategy in every environment (finds a strategy's flag). */
  strategyIds: string[];
}

export interface FlagDocument extends FlagData, StoredDocument {
  _id: string;
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

/** A flag document as the evaluation engine wants it (docs/rules.md §3.3). */
export function toFlagConfig(doc: FlagData): FlagConfig {
  const environments: FlagConfig['environments'] = {};
  for (const [name, env] of Object.entries(doc.environments ?? {})) {
    environments[name] = { enabled: env.enabled, strategies: env.strategies, variants: env.variants };
  }
  return {
    name: doc.name,
    project: doc.project,
    createdAt: doc.createdAt.toISOString(),
    archived: doc.archived,
    environments,
    dependencies: doc.dependencies ?? [],
  };
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

  /** Every non-archived flag, without bookkeeping: what the playground evaluates. */
  async snapshotSource(): Promise<FlagData[]> {
    return this.state.derived('flags:snapshot', () =>
      this.ordered().filter((f) => !f.archived).map((d) => withoutBookkeeping(d) as FlagData));
  }
}
