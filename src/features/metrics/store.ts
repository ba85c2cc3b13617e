import type { Collection } from 'mongodb';
import type { Outbox } from '../../db/outbox/index.js';
import type { HeadDocument, SheetDocument } from './sheets.js';

/**
 * One instance's counts for one flag reported by one application in one environment in one hour
 * (the flag's metrics page shows them per application), as the service keeps them in memory. Each
 * instance writes only its own, in its sheets (sheets.ts), always with absolute totals, so two
 * instances never race on a document and no update is lost; readers sum over instances.
 */
export interface MetricsBucketDocument {
  /** sheets.ts `bucketKey`: instance, flag, environment, hour, application. */
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
}

/** When a flag was last evaluated in an environment, as one instance heard it (max over instances on read). */
export interface LastSeenDocument {
  /** `instance \0 flag \0 environment` */
  _id: string;
  flag: string;
  environment: string;
  lastSeenAt: Date;
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

/** A null set on insert comes back absent (FerretDB 1.24, measured): the fields an application may lack read as null. */
function withNulls(doc: ApplicationDocument): ApplicationDocument {
  return { ...doc, description: doc.description ?? null, url: doc.url ?? null, color: doc.color ?? null, icon: doc.icon ?? null, createdBy: doc.createdBy ?? null,
    strategies: doc.strategies ?? [], usage: doc.usage ?? [] };
}

export class MetricsStore {
  readonly sheets: Collection<SheetDocument>;
  readonly heads: Collection<HeadDocument>;
  readonly applications: Collection<ApplicationDocument>;
  readonly instances: Collection<InstanceDocument>;

  constructor(outbox: Outbox) {
    // Metrics are not configuration: written without events and without a revision, so SDK
    // traffic never invalidates the caches the SDK routes read from.
    this.sheets = outbox.collection<SheetDocument & { _rev?: number }>('client_metrics_sheets');
    this.heads = outbox.collection<HeadDocument & { _rev?: number }>('client_metrics_heads');
    this.applications = outbox.collection<ApplicationDocument & { _rev?: number }>('client_applications');
    this.instances = outbox.collection<InstanceDocument & { _rev?: number }>('client_instances');
  }

  /** A sheet, then the head that lists it: a reader that sees the head finds the sheet. */
  async writeSheets(sheets: readonly SheetDocument[], head: HeadDocument): Promise<void> {
    for (const sheet of sheets) await this.sheets.replaceOne({ _id: sheet._id }, sheet, { upsert: true });
    await this.heads.replaceOne({ _id: head._id }, head, { upsert: true });
  }

  /** Every instance's head: a few small documents (the poll's one scan; FerretDB uses no secondary index). */
  async allHeads(): Promise<HeadDocument[]> {
    return await this.heads.find({}).toArray();
  }

  /** One sheet by `_id` (an index lookup everywhere). */
  async sheet(id: string): Promise<SheetDocument | null> {
    return await this.sheets.findOne({ _id: id });
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
