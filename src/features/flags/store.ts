import type { Collection } from 'mongodb';
import { LIVE, OUTBOX_FIELD, REV_FIELD, withoutBookkeeping, type Outbox, type PendingEvent, type StoredDocument } from '../../db/outbox.js';
import type { DependencyConfig, FlagConfig, FlagEnvironmentConfig, StrategyConfig, VariantConfig } from '../../evaluation/types.js';

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
  /** 0 or 1 entries: a child has at most one parent (SPEC §1.4 S7). */
  dependencies: DependencyConfig[];
  environments: Record<string, FlagEnvironment>;
  /** Denormalised ids of every strategy in every environment (finds a strategy's flag). */
  strategyIds: string[];
}

export interface FlagDocument extends FlagData, StoredDocument {
  _id: string;
}

/** A flag document as the evaluation engine wants it (SPEC §3.3). */
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
 * Environment names may contain `.` (SPEC §1.4 pattern), which MongoDB-compatible servers refuse
 * in keys; stored keys escape it as `%2E` (`%` cannot occur in a name). Readers get real names.
 */
function encodeKey(name: string): string {
  return name.replace(/\./g, '%2E');
}

function decodeKey(key: string): string {
  return key.replace(/%2E/g, '.');
}

function mapEnvironmentKeys<T extends { environments?: Record<string, FlagEnvironment> }>(doc: T, fn: (k: string) => string): T {
  if (!doc.environments || !Object.keys(doc.environments).some((k) => fn(k) !== k)) return doc;
  const environments: Record<string, FlagEnvironment> = {};
  for (const [k, v] of Object.entries(doc.environments)) environments[fn(k)] = v;
  return { ...doc, environments };
}

/** The stored form of a flag (escaped environment keys). */
export function encodeFlag<T extends FlagData>(doc: T): T {
  return mapEnvironmentKeys(doc, encodeKey);
}

/** A flag as read from the collection, with real environment names. */
export function decodeFlag<T extends FlagData>(doc: T): T {
  return mapEnvironmentKeys(doc, decodeKey);
}

export class FlagStore {
  readonly collection: Collection<FlagDocument>;

  constructor(private readonly outbox: Outbox) {
    this.collection = outbox.collection<FlagDocument>('flags');
  }

  async init(): Promise<void> {
    await this.collection.createIndex({ 'dependencies.feature': 1 }, { name: 'dependencies_feature' });
    await this.collection.createIndex({ project: 1 }, { name: 'project' });
    await this.collection.createIndex({ strategyIds: 1 }, { name: 'strategy_ids' });
  }

  /** The flag as stored (with `_rev`), archived or not; null when unknown. */
  async get(name: string): Promise<FlagDocument | null> {
    const doc = await this.collection.findOne({ _id: name, ...LIVE });
    return doc ? decodeFlag(doc) : null;
  }

  async listByProject(project: string, options: { archived?: boolean } = {}): Promise<FlagDocument[]> {
    const docs = await this.collection
      .find({ project, archived: options.archived ?? false, ...LIVE })
      .sort({ createdAt: 1, _id: 1 })
      .toArray();
    return docs.map(decodeFlag);
  }

  /** Every flag (archived ones too), for operations that touch all of them. */
  async all(): Promise<FlagDocument[]> {
    return (await this.collection.find({ ...LIVE }).toArray()).map(decodeFlag);
  }

  /** Names of the non-archived flags that depend on `name`. */
  async children(name: string): Promise<string[]> {
    const docs = await this.collection
      .find({ 'dependencies.feature': name, archived: false, ...LIVE }, { projection: { _id: 1 } })
      .sort({ createdAt: 1, _id: 1 })
      .toArray();
    return docs.map((d) => d._id);
  }

  /** Inserts a new flag with its pending events, without flushing them (the caller flushes). */
  async insertPending(doc: FlagData, events: PendingEvent[]): Promise<void> {
    await this.collection.insertOne({ ...encodeFlag(doc), [REV_FIELD]: 1, ...(events.length ? { [OUTBOX_FIELD]: events } : {}) } as FlagDocument);
  }

  /** Replaces `current` (as read) by `next`, with its events (see Outbox.replace). */
  async replace(current: FlagDocument, next: FlagData, events: PendingEvent[]): Promise<void> {
    await this.outbox.replace(this.collection, current, encodeFlag(next) as FlagDocument, events);
  }

  async countActive(): Promise<number> {
    return await this.collection.countDocuments({ archived: false, ...LIVE });
  }

  async findByStrategyId(id: string): Promise<FlagDocument | null> {
    const doc = await this.collection.findOne({ strategyIds: id, ...LIVE });
    return doc ? decodeFlag(doc) : null;
  }

  async projectHasDependencies(project: string): Promise<boolean> {
    const doc = await this.collection.findOne(
      { project, archived: false, 'dependencies.0': { $exists: true }, ...LIVE },
      { projection: { _id: 1 } },
    );
    return doc !== null;
  }

  /** Every non-archived flag, without bookkeeping: what the playground evaluates. */
  async snapshotSource(): Promise<FlagData[]> {
    const docs = await this.collection.find({ archived: false, ...LIVE }).sort({ createdAt: 1, _id: 1 }).toArray();
    return docs.map((d) => decodeFlag(withoutBookkeeping(d) as FlagData));
  }
}
