import { randomUUID } from 'node:crypto';
import type { ApplicationDocument, LastSeenDocument, MetricsBucketDocument, MetricsStore } from './store.js';
import type { Applications, FeatureUsage } from './schemas.js';

const HOUR_MS = 3_600_000;
/** Hours of this instance's totals kept in memory (an SDK may report a bucket that started last hour). */
const KEEP_HOURS = 2;

export interface ToggleCounts {
  yes?: number;
  no?: number;
  variants?: Record<string, number>;
}

export interface RegisteredApplication {
  appName: string;
  strategies?: string[];
  description?: string;
  url?: string;
  color?: string;
  icon?: string;
}

/** What the admin flag view shows per environment (Unleash's feature environment lastSeenAt, yes, no). */
export interface EnvironmentUsage {
  lastSeenAt: Date | null;
  yes: number;
  no: number;
}

/**
 * How long an environment-usage answer is reused. A report to this instance clears its flags'
 * entries at once (read-your-writes); reports to other instances reach their database documents
 * within their FLUSH_MS anyway. Without it every admin GET of a flag would add two metrics reads
 * (~2–4 ms on FerretDB) to a view otherwise served from memory.
 */
const USAGE_TTL_MS = 1000;
/** Bound on the usage answers held (one per flag read); beyond it the map starts over. */
const USAGE_MAX = 10_000;

export interface AppScope {
  projects: readonly string[];
  environment: string;
}

interface Totals {
  doc: MetricsBucketDocument;
  dirty: boolean;
}

function count(value: number | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

/**
 * Client metrics, aggregated per flag × environment × hour.
 *
 * Requests only add to in-memory totals (no database work on the SDK's path: SDKs report every
 * 60 s per instance, Edge in bulk). A flush every FLUSH_MS writes the totals that changed as this
 * instance's documents with absolute values; readers sum over instances (store.ts). Reads on this
 * instance flush first, so a report is visible to the next admin read here.
 */
export class MetricsService {
  readonly instance = randomUUID();
  private readonly totals = new Map<string, Totals>();
  private readonly seen = new Map<string, LastSeenDocument & { dirty: boolean }>();
  private flushing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private readonly usage = new Map<string, { at: number; value: Promise<Map<string, EnvironmentUsage>> }>();

  constructor(private readonly store: MetricsStore, private readonly flushMs = 1000) {}

  start(): void {
    this.timer = setInterval(() => {
      this.flush().catch(() => undefined);
    }, this.flushMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush().catch(() => undefined);
  }

  /** Adds one report: `toggles` as the SDK counted them in the bucket that started at `start`. */
  record(environment: string, appName: string, start: Date, toggles: Record<string, ToggleCounts>, now = new Date()): void {
    const startMs = Number.isNaN(start.getTime()) ? now.getTime() : start.getTime();
    const hourMs = Math.floor(startMs / HOUR_MS) * HOUR_MS;
    for (const [flag, counts] of Object.entries(toggles)) {
      this.usage.delete(flag);
      this.allSeenStale = true;
      const key = `${this.instance}\0${flag}\0${environment}\0${hourMs}`;
      let entry = this.totals.get(key);
      if (!entry) {
        entry = {
          doc: {
            _id: key, instance: this.instance, flag, environment, hour: new Date(hourMs),
            yes: 0, no: 0, variants: {}, appNames: [], lastSeenAt: now,
          },
          dirty: true,
        };
        this.totals.set(key, entry);
      }
      const doc = entry.doc;
      doc.yes += count(counts.yes);
      doc.no += count(counts.no);
      for (const [variant, n] of Object.entries(counts.variants ?? {})) {
        doc.variants[variant] = (doc.variants[variant] ?? 0) + count(n);
      }
      if (!doc.appNames.includes(appName)) doc.appNames.push(appName);
      doc.lastSeenAt = now;
      entry.dirty = true;
      const seenKey = `${this.instance}\0${flag}\0${environment}`;
      this.seen.set(seenKey, { _id: seenKey, flag, environment, lastSeenAt: now, dirty: true });
    }
  }

  /** Writes what changed since the last flush; one flush at a time. */
  async flush(): Promise<void> {
    const run = this.flushing.then(() => this.writeChanges());
    this.flushing = run.catch(() => undefined);
    await run;
  }

  private async writeChanges(): Promise<void> {
    const oldest = Date.now() - KEEP_HOURS * HOUR_MS;
    const buckets: MetricsBucketDocument[] = [];
    for (const [key, entry] of this.totals) {
      if (entry.dirty) {
        buckets.push({ ...entry.doc, variants: { ...entry.doc.variants }, appNames: [...entry.doc.appNames] });
        entry.dirty = false;
      } else if (entry.doc.hour.getTime() < oldest) {
        this.totals.delete(key);
      }
    }
    const seen: LastSeenDocument[] = [];
    for (const [key, entry] of this.seen) {
      if (!entry.dirty) continue;
      seen.push({ _id: key, flag: entry.flag, environment: entry.environment, lastSeenAt: entry.lastSeenAt });
      entry.dirty = false;
    }
    try {
      await this.store.writeBuckets(buckets);
      await this.store.writeLastSeen(seen);
    } catch (err) {
      // Keep them for the next flush: totals are absolute, so writing them later loses nothing.
      for (const doc of buckets) {
        const entry = this.totals.get(doc._id);
        if (entry) entry.dirty = true;
      }
      for (const doc of seen) {
        const entry = this.seen.get(doc._id);
        if (entry) entry.dirty = true;
      }
      throw err;
    }
  }

  /** `GET /api/admin/client-metrics/features/:name`: the last hour, summed over instances. */
  async featureUsage(flag: string, now = new Date()): Promise<FeatureUsage> {
    await this.flush();
    const since = new Date(Math.floor((now.getTime() - HOUR_MS) / HOUR_MS) * HOUR_MS);
    const sums = new Map<string, { environment: string; hour: number; yes: number; no: number }>();
    const apps = new Set<string>();
    for (const doc of await this.store.bucketsOf(flag, since)) {
      const key = `${doc.environment}\0${doc.hour.getTime()}`;
      const sum = sums.get(key) ?? { environment: doc.environment, hour: doc.hour.getTime(), yes: 0, no: 0 };
      sum.yes += doc.yes;
      sum.no += doc.no;
      sums.set(key, sum);
      for (const app of doc.appNames) apps.add(app);
    }
    const lastHourUsage = [...sums.values()]
      .sort((a, b) => (a.environment < b.environment ? -1 : a.environment > b.environment ? 1 : a.hour - b.hour))
      .map((s) => ({ environment: s.environment, timestamp: new Date(s.hour).toISOString(), yes: s.yes, no: s.no }));
    return { version: 1, maturity: 'stable', featureName: flag, lastHourUsage, seenApplications: [...apps].sort() };
  }

  /** Per environment: when the flag was last evaluated there (max over instances). */
  async lastSeen(flag: string): Promise<Map<string, Date>> {
    await this.flush();
    const result = new Map<string, Date>();
    for (const doc of await this.store.lastSeenOf(flag)) {
      const known = result.get(doc.environment);
      if (!known || known < doc.lastSeenAt) result.set(doc.environment, doc.lastSeenAt);
    }
    return result;
  }

  /**
   * Per environment: when the flag was last seen and its yes/no counts over the last hour (the
   * buckets of this hour and the previous one, as featureUsage's lastHourUsage counts them).
   */
  async environmentUsage(flag: string, now = new Date()): Promise<Map<string, EnvironmentUsage>> {
    const held = this.usage.get(flag);
    if (held && now.getTime() - held.at < USAGE_TTL_MS) return await held.value;
    if (this.usage.size >= USAGE_MAX) this.usage.clear();
    const value = this.readUsage(flag, now);
    this.usage.set(flag, { at: now.getTime(), value });
    value.catch(() => this.usage.delete(flag));
    return await value;
  }

  private async readUsage(flag: string, now: Date): Promise<Map<string, EnvironmentUsage>> {
    const since = new Date(Math.floor((now.getTime() - HOUR_MS) / HOUR_MS) * HOUR_MS);
    const [seen, buckets] = await Promise.all([this.lastSeen(flag), this.flush().then(() => this.store.bucketsOf(flag, since))]);
    const result = new Map<string, EnvironmentUsage>();
    const entry = (environment: string): EnvironmentUsage => {
      let usage = result.get(environment);
      if (!usage) {
        usage = { lastSeenAt: seen.get(environment) ?? null, yes: 0, no: 0 };
        result.set(environment, usage);
      }
      return usage;
    };
    for (const environment of seen.keys()) entry(environment);
    for (const doc of buckets) {
      const usage = entry(doc.environment);
      usage.yes += doc.yes;
      usage.no += doc.no;
    }
    return result;
  }

  /** flag → environment → lastSeenAt, over every flag (the project flag list); reused for USAGE_TTL_MS. */
  async lastSeenAll(now = new Date()): Promise<ReadonlyMap<string, ReadonlyMap<string, Date>>> {
    if (this.allSeen && now.getTime() - this.allSeen.at < USAGE_TTL_MS && !this.allSeenStale) return await this.allSeen.value;
    this.allSeenStale = false;
    const value = this.flush().then(() => this.store.lastSeenAll()).then((docs) => {
      const result = new Map<string, Map<string, Date>>();
      for (const doc of docs) {
        let envs = result.get(doc.flag);
        if (!envs) result.set(doc.flag, (envs = new Map()));
        const known = envs.get(doc.environment);
        if (!known || known < doc.lastSeenAt) envs.set(doc.environment, doc.lastSeenAt);
      }
      return result;
    });
    this.allSeen = { at: now.getTime(), value };
    value.catch(() => { this.allSeen = undefined; });
    return await value;
  }

  private allSeen: { at: number; value: Promise<ReadonlyMap<string, ReadonlyMap<string, Date>>> } | undefined;
  private allSeenStale = false;

  async register(app: RegisteredApplication, scope: AppScope, now = new Date()): Promise<void> {
    const projects = scope.projects.length === 0 ? ['*'] : [...scope.projects];
    const doc: ApplicationDocument = {
      _id: app.appName,
      appName: app.appName,
      createdAt: now,
      updatedAt: now,
      description: app.description ?? null,
      strategies: app.strategies ?? [],
      createdBy: 'unleash_system_user',
      url: app.url ?? null,
      color: app.color ?? null,
      icon: app.icon ?? null,
      project: projects.join(','),
      environment: scope.environment,
      usage: projects.map((project) => ({ project, environments: [scope.environment] })),
    };
    await this.store.upsertApplication(doc);
  }

  async applications(): Promise<Applications> {
    const docs = await this.store.listApplications();
    const applications = docs.map((d) => ({
      appName: d.appName, createdAt: d.createdAt.toISOString(), updatedAt: d.updatedAt.toISOString(),
      description: d.description, strategies: d.strategies, createdBy: d.createdBy, url: d.url, color: d.color,
      icon: d.icon, project: d.project, environment: d.environment, usage: d.usage,
    }));
    return { applications, total: applications.length };
  }
}
