import type { Collection, Filter, WithoutId } from 'mongodb';
import { DEFAULT_MAX_STATEMENTS, inBatches } from '../../db/guard.js';
import type { Outbox } from '../../db/outbox/index.js';

/**
 * One instance's counts for one flag reported by one application in one environment in one hour
 * (the flag's metrics page shows them per application). Each instance writes only its own
 * documents (the instance id is in `_id`), always with absolute totals, so two instances never
 * race on a document and no update is lost; readers sum over instances.
 */
export interface MetricsBucketDocument {
  /** `instance \0 flag \0 environment \0 hour-ms \0 appName` (without `\0 appName` before the page counted per application). */
  _id: string;
  instance: string;
  flag: string;
  environment: string;
  hour: Date;
  yes: number;
  no: number;
  variants: Record<string, number>;
  appNames: string[];
  lastSeenAt: Date;
  /** The start of the latest SDK bucket counted here (an unknown flag's report time, as Unleash 8.2 shows it). */
  lastStart?: Date;
  /** When the writing instance flushed it (its clock): other instances poll by it. Absent on documents from before it was written. */
  flushedAt?: Date;
}

/** When a flag was last evaluated in an environment, as this instance heard it (max over instances on read). */
export interface LastSeenDocument {
  /** `instance \0 flag \0 environment` */
  _id: string;
  flag: string;
  environment: string;
  lastSeenAt: Date;
  /** As MetricsBucketDocument.flushedAt. */
  flushedAt?: Date;
}

/** One SDK instance of an application in an environment, as its registrations and reports announce it. */
export interface InstanceDocument {
  /** `appName \0 environment \0 instanceId` */
  _id: string;
  appName: string;
  instanceId: string;
  environment: string;
  sdkVersion: string | null;
  sdkType: 'backend' | 'frontend' | null;
  clientIp: string | null;
  lastSeen: Date;
  createdAt: Date;
}

export interface ApplicationDocument {
  _id: string;
  appName: string;
  createdAt: Date;
  updatedAt: Date;
  description: string | null;
  strategies: string[];
  createdBy: string | null;
  url: string | null;
  color: string | null;
  icon: string | null;
  project: string;
  environment: string;
  usage: Array<{ project: string; environments: string[] }>;
}

/**
 * Replaces (or inserts) each document by `_id`, in ordered commands of at most
 * `statementsPerCommand`, one after another: the guard bounds statements per command
 * (src/db/guard.ts: FerretDB wedges on one `update` command of 100 statements or more).
 */
async function upsertAll<T extends { _id: string }>(collection: Collection<T>, docs: readonly T[], statementsPerCommand: number): Promise<void> {
  await inBatches(docs, statementsPerCommand, (batch) =>
    collection.bulkWrite(
      batch.map((doc) => ({ replaceOne: { filter: { _id: doc._id } as Filter<T>, replacement: doc as WithoutId<T>, upsert: true } })),
      { ordered: true },
    ));
}

/** A null set on insert comes back absent (FerretDB 1.24, measured): the fields an application may lack read as null. */
function withNulls(doc: ApplicationDocument): ApplicationDocument {
  return { ...doc, description: doc.description ?? null, url: doc.url ?? null, color: doc.color ?? null, icon: doc.icon ?? null, createdBy: doc.createdBy ?? null,
    strategies: doc.strategies ?? [], usage: doc.usage ?? [] };
}

export class MetricsStore {
  readonly buckets: Collection<MetricsBucketDocument>;
  readonly lastSeen: Collection<LastSeenDocument>;
  readonly applications: Collection<ApplicationDocument>;
  readonly instances: Collection<InstanceDocument>;

  constructor(outbox: Outbox, private readonly statementsPerCommand = DEFAULT_MAX_STATEMENTS) {
    // Metrics are not configuration: written without events and without a revision, so SDK
    // traffic never invalidates the caches the SDK routes read from.
    this.buckets = outbox.collection<MetricsBucketDocument & { _rev?: number }>('client_metrics');
    this.lastSeen = outbox.collection<LastSeenDocument & { _rev?: number }>('client_metrics_last_seen');
    this.applications = outbox.collection<ApplicationDocument & { _rev?: number }>('client_applications');
    this.instances = outbox.collection<InstanceDocument & { _rev?: number }>('client_instances');
  }

  /**
   * Indexes for MetricsService.refresh, which every instance runs every FLUSH_MS: documents
   * flushed since the last poll, buckets of the last hours. One command per index (FerretDB 1.24
   * fails a createIndexes that mixes existing and new ones).
   */
  async init(): Promise<void> {
    await this.buckets.createIndex({ flushedAt: 1 }, { name: 'flushed_at' });
    await this.buckets.createIndex({ hour: 1 }, { name: 'hour' });
    await this.lastSeen.createIndex({ flushedAt: 1 }, { name: 'flushed_at' });
  }

  /**
   * Upserts documents in ordered commands of at most `statementsPerCommand` (DatabaseGuard.maxStatements):
   * one unordered command of every changed bucket was what wedged FerretDB under SDK traffic (a
   * flush of 100 flags × 2 environments is 200 statements; src/db/guard.ts has why).
   */

  async writeBuckets(docs: MetricsBucketDocument[]): Promise<void> {
    await upsertAll(this.buckets, docs, this.statementsPerCommand);
  }

  async writeLastSeen(docs: LastSeenDocument[]): Promise<void> {
    await upsertAll(this.lastSeen, docs, this.statementsPerCommand);
  }

  /**
   * Every instance's buckets from `hour` on, only those flushed from `changedSince` on when given
   * (MetricsService.refresh: a background poll, never on a request's path; FerretDB scans either way).
   */
  async bucketsSince(hour: Date, changedSince: Date | undefined): Promise<MetricsBucketDocument[]> {
    return await this.buckets.find({ hour: { $gte: hour }, ...(changedSince ? { flushedAt: { $gte: changedSince } } : {}) }).toArray();
  }

  async lastSeenSince(changedSince: Date | undefined): Promise<LastSeenDocument[]> {
    return await this.lastSeen.find(changedSince ? { flushedAt: { $gte: changedSince } } : {}).toArray();
  }

  async upsertApplication(app: ApplicationDocument): Promise<void> {
    const { createdAt, ...rest } = app;
    await this.applications.updateOne({ _id: app._id }, { $set: rest, $setOnInsert: { createdAt } }, { upsert: true });
  }

  /** The fields set, the others kept (an admin's edit of description, url, color, icon). */
  async updateApplication(appName: string, fields: Partial<ApplicationDocument>, created: ApplicationDocument): Promise<void> {
    const onInsert = Object.fromEntries(Object.entries(created).filter(([key]) => key !== '_id' && !(key in fields)));
    await this.applications.updateOne({ _id: appName }, { $set: fields, $setOnInsert: onInsert }, { upsert: true });
  }

  async getApplication(appName: string): Promise<ApplicationDocument | null> {
    const doc = await this.applications.findOne({ _id: appName });
    return doc && withNulls(doc);
  }

  /** The application and its instances. */
  async deleteApplication(appName: string): Promise<void> {
    await this.instances.deleteMany({ appName });
    await this.applications.deleteOne({ _id: appName });
  }

  /** `insertOnly`: fields written only when the instance is new (a metrics report keeps the SDK its registration named). */
  async upsertInstance(instance: InstanceDocument, insertOnly: ReadonlyArray<keyof InstanceDocument> = []): Promise<void> {
    const { _id, ...fields } = instance;
    const onInsert = new Set<string>(['createdAt', ...insertOnly]);
    const set = Object.fromEntries(Object.entries(fields).filter(([key]) => !onInsert.has(key)));
    const setOnInsert = Object.fromEntries(Object.entries(fields).filter(([key]) => onInsert.has(key)));
    await this.instances.updateOne({ _id }, { $set: set, $setOnInsert: setOnInsert }, { upsert: true });
  }

  async listInstances(appName?: string): Promise<InstanceDocument[]> {
    const docs = await this.instances.find(appName === undefined ? {} : { appName }).toArray();
    return docs.map((doc) => ({ ...doc, sdkVersion: doc.sdkVersion ?? null, sdkType: doc.sdkType ?? null, clientIp: doc.clientIp ?? null }));
  }

  async listApplications(): Promise<ApplicationDocument[]> {
    return (await this.applications.find({}).sort({ _id: 1 }).toArray()).map(withNulls);
  }
}
