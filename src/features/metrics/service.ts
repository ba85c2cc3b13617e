import { randomUUID } from 'node:crypto';
import { inBackground } from '../../db/guard.js';
import type { LastSeenDocument, MetricsBucketDocument, MetricsStore } from './store.js';
import { HistoryCompactor, reopened } from './history.js';
import type { FeatureUsage } from './schemas.js';

const HOUR_MS = 3_600_000;
/** Hours of this instance's totals kept for writing (an SDK may report a bucket that started last hour). */
const KEEP_HOURS = 2;
/**
 * Hours of every instance's buckets kept in memory: the flag's metrics page asks for up to 48
 * (Unleash 8.2's hoursBack maximum, measured: 49 is answered as the default 24), plus the current one.
 */
export const HISTORY_HOURS = 49;

export interface ToggleCounts {
  yes?: number;
  no?: number;
  variants?: Record<string, number>;
}

/** What the admin flag view shows per environment (Unleash's feature environment lastSeenAt, yes, no). */
export interface EnvironmentUsage {
  lastSeenAt: Date | null;
  yes: number;
  no: number;
}

/**
 * How often other instances' metrics documents are read into memory (besides the flush, on the
 * same timer), and how far back a poll looks: a poll reads the documents flushed since the last
 * one began, minus this slack, so a flush that was in flight while the last poll read is not
 * missed. A full read every FULL_REFRESH_MS bounds what clock skew between instances could hide.
 */
const REFRESH_SLACK_MS = 10_000;
const FULL_REFRESH_MS = 60_000;

/** One flag's usage as this instance knows it: its own live totals and other instances' last flushed ones. */
interface FlagUsage {
  /** Bucket documents by `_id` (this instance's are the live objects `record` adds to). */
  buckets: Map<string, MetricsBucketDocument>;
  /** Last-seen documents by `_id`. */
  seen: Map<string, LastSeenDocument>;
}

/** Where the metrics' background failures go (the app's log). */
export interface MetricsFailureReporter {
  report(failure: { job: 'flush' | 'refresh'; err?: unknown; recovered?: boolean }): void;
}

export interface MetricsListener {
  used(environment: string, flags: readonly string[]): void;
}

interface Totals {
  doc: MetricsBucketDocument;
  dirty: boolean;
}

/** The start of the previous hour: the last-hour figures count its bucket and the current one. */
function lastHourStart(now: Date): Date {
  return new Date(Math.floor((now.getTime() - HOUR_MS) / HOUR_MS) * HOUR_MS);
}

function count(value: number | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

/**
 * Client metrics, aggregated per flag × environment × hour.
 *
 * Requests only add to in-memory totals (no database work on the SDK's path: SDKs report every
 * 60 s per instance, Edge in bulk). A flush every FLUSH_MS writes the totals that changed as this
 * instance's documents with absolute values; the same timer reads the documents other instances
 * flushed since the last poll into memory. Reads sum over instances from memory and never touch
 * the database (the admin flag view asks for every flag it shows): this instance's reports are
 * visible at once, other instances' within their FLUSH_MS plus this instance's.
 */
export class MetricsService {
  readonly instance = randomUUID();
  private readonly totals = new Map<string, Totals>();
  private readonly seen = new Map<string, LastSeenDocument & { dirty: boolean }>();
  private flushing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private readonly byFlag = new Map<string, FlagUsage>();
  /** Shares what the history's buckets repeat (history.ts). */
  private readonly compactor = new HistoryCompactor();
  /** The first full read of every instance's documents; reads wait for it once. */
  private loaded: Promise<void> | undefined;
  /** When the last poll began and the last full read began (this instance's clock, ms). */
  private polledAt = 0;
  private fullAt = 0;
  /** lastSeenAll's answer until a last-seen time is recorded or read from another instance. */
  private lastSeenMemo: ReadonlyMap<string, ReadonlyMap<string, Date>> | undefined;

  constructor(
    private readonly store: MetricsStore,
    private readonly failures: MetricsFailureReporter = { report: () => undefined },
    private readonly flushMs = 1000,
    /** Told which flags an SDK reported as evaluated (their lifecycle follows it: FlagRewrites.metricsSeen). */
    private readonly listener: MetricsListener = { used: () => undefined },
  ) {}

  /** Failures of the background work, reported once per streak (every tick retries it). */
  private readonly failing = new Set<'flush' | 'refresh'>();

  private background(job: 'flush' | 'refresh', run: Promise<void>): Promise<void> {
    return run.then(
      () => {
        if (this.failing.delete(job)) this.failures.report({ job, recovered: true });
      },
      (err: unknown) => {
        if (this.failing.has(job)) return;
        this.failing.add(job);
        this.failures.report({ job, err });
      },
    );
  }

  start(): void {
    this.ensureLoaded().catch(() => undefined);
    // One flush and one poll at a time (totals stay dirty until written: a skipped tick loses
    // nothing), each at most a fifth of the database's time: after d ms the next waits 4·d. At
    // 2 000 flags a flush is 4 000 upserts, seconds of FerretDB's one writer; the poll is a scan
    // of the collection, and polled every second it missed its 2 s deadline 195 times in a
    // 5-minute two-instance soak.
    const paced = (job: 'flush' | 'refresh', run: () => Promise<void>) => {
      let busy = false;
      let nextAt = 0;
      return () => {
        if (busy || Date.now() < nextAt) return;
        busy = true;
        const started = Date.now();
        void this.background(job, inBackground(run)).finally(() => {
          busy = false;
          nextAt = Date.now() + 4 * (Date.now() - started);
        });
      };
    };
    const flush = paced('flush', () => this.flush());
    const poll = paced('refresh', () => this.refresh());
    this.timer = setInterval(() => {
      flush();
      poll();
    }, this.flushMs);
    this.timer.unref();
  }

  private usageOf(flag: string): FlagUsage {
    let usage = this.byFlag.get(flag);
    if (!usage) this.byFlag.set(flag, (usage = { buckets: new Map(), seen: new Map() }));
    return usage;
  }

  /** Views (last seen, yes/no) read memory when loading the counts fails: none waits on a frozen database again. */
  private async loadedForReaders(): Promise<void> {
    await this.ensureLoaded().catch(() => undefined);
  }

  private async ensureLoaded(): Promise<void> {
    // The indexes only make the poll cheaper: a server that refuses one still gets its reads.
    this.loaded ??= this.store.init().catch(() => undefined).then(() => this.refresh(true)).catch((err: unknown) => {
      this.loaded = undefined;
      throw err;
    });
    await this.loaded;
  }

  /**
   * Reads what other instances flushed since the last poll (everything when `full`, and every
   * FULL_REFRESH_MS) into memory, and drops buckets too old for any read. The timer runs it every
   * FLUSH_MS; tests run it at once, as the revision poll is run in the streaming tests.
   */
  async refresh(full = false): Promise<void> {
    const startedAt = Date.now();
    const whole = full || startedAt - this.fullAt >= FULL_REFRESH_MS;
    const changedSince = whole ? undefined : new Date(this.polledAt - REFRESH_SLACK_MS);
    const hourOf = (hours: number) => new Date(Math.floor((startedAt - hours * HOUR_MS) / HOUR_MS) * HOUR_MS);
    const oldest = hourOf(HISTORY_HOURS);
    // The periodic whole read looks at the hours SDKs still report into; the older history was read at start.
    const [buckets, seen] = await Promise.all([
      this.store.bucketsSince(full ? oldest : hourOf(KEEP_HOURS), changedSince), this.store.lastSeenSince(changedSince),
    ]);
    const own = `${this.instance}\0`;
    const recent = hourOf(KEEP_HOURS);
    for (const doc of buckets) {
      if (doc.instance !== this.instance) this.usageOf(doc.flag).buckets.set(doc._id, doc.hour < recent ? this.compactor.compact(doc) : doc);
    }
    for (const doc of seen) {
      if (doc._id.startsWith(own)) continue;
      this.usageOf(doc.flag).seen.set(doc._id, doc);
      this.lastSeenMemo = undefined;
    }
    for (const usage of this.byFlag.values()) {
      for (const [id, doc] of usage.buckets) if (doc.hour < oldest && !this.totals.has(id)) usage.buckets.delete(id);
    }
    this.polledAt = startedAt;
    if (whole) this.fullAt = startedAt;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush().catch(() => undefined);
  }

  /** Adds one report: `toggles` as the SDK counted them in the bucket that started at `start`. */
  record(environment: string, appName: string, start: Date, toggles: Record<string, ToggleCounts>, now = new Date()): void {
    const startMs = Number.isNaN(start.getTime()) ? now.getTime() : start.getTime();
    const hourMs = Math.floor(startMs / HOUR_MS) * HOUR_MS;
    const used: string[] = [];
    for (const [flag, counts] of Object.entries(toggles)) {
      if (count(counts.yes) + count(counts.no) > 0) used.push(flag);
      const usage = this.usageOf(flag);
      const key = `${this.instance}\0${flag}\0${environment}\0${hourMs}\0${appName}`;
      let entry = this.totals.get(key);
      if (!entry) {
        // A late report for an hour no longer being written adds to the totals kept in memory.
        entry = {
          doc: reopened(usage.buckets.get(key)) ?? {
            _id: key, instance: this.instance, flag, environment, hour: new Date(hourMs),
            yes: 0, no: 0, variants: {}, appNames: [appName], lastSeenAt: now,
          },
          dirty: true,
        };
        this.totals.set(key, entry);
        usage.buckets.set(key, entry.doc);
      }
      const doc = entry.doc;
      doc.yes += count(counts.yes);
      doc.no += count(counts.no);
      for (const [variant, n] of Object.entries(counts.variants ?? {})) {
        doc.variants[variant] = (doc.variants[variant] ?? 0) + count(n);
      }
      if (!doc.appNames.includes(appName)) doc.appNames.push(appName);
      doc.lastSeenAt = now;
      doc.lastStart = new Date(startMs);
      entry.dirty = true;
      const seenKey = `${this.instance}\0${flag}\0${environment}`;
      const seen = { _id: seenKey, flag, environment, lastSeenAt: now, dirty: true };
      this.seen.set(seenKey, seen);
      usage.seen.set(seenKey, seen);
      this.lastSeenMemo = undefined;
    }
    if (used.length > 0) this.listener.used(environment, used);
  }

  /** Writes what changed since the last flush; one flush at a time. */
  async flush(): Promise<void> {
    const run = this.flushing.then(() => this.writeChanges());
    this.flushing = run.catch(() => undefined);
    await run;
  }

  private async writeChanges(): Promise<void> {
    const oldest = Date.now() - KEEP_HOURS * HOUR_MS;
    // What other instances' polls look for (store.ts: bucketsSince, lastSeenSince).
    const flushedAt = new Date();
    const buckets: MetricsBucketDocument[] = [];
    for (const [key, entry] of this.totals) {
      if (entry.dirty) {
        buckets.push({ ...entry.doc, variants: { ...entry.doc.variants }, appNames: [...entry.doc.appNames], flushedAt });
        entry.dirty = false;
      } else if (entry.doc.hour.getTime() < oldest) {
        // Written and no longer reported into: kept for the history (refresh drops it after HISTORY_HOURS).
        this.totals.delete(key);
        this.byFlag.get(entry.doc.flag)?.buckets.set(key, this.compactor.compact(entry.doc));
      }
    }
    const seen: LastSeenDocument[] = [];
    for (const [key, entry] of this.seen) {
      if (!entry.dirty) continue;
      seen.push({ _id: key, flag: entry.flag, environment: entry.environment, lastSeenAt: entry.lastSeenAt, flushedAt });
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
    await this.loadedForReaders();
    const since = lastHourStart(now);
    const sums = new Map<string, { environment: string; hour: number; yes: number; no: number }>();
    const apps = new Set<string>();
    for (const doc of this.byFlag.get(flag)?.buckets.values() ?? []) {
      if (doc.hour < since) continue;
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

  /** Every instance's buckets of the last HISTORY_HOURS, of one flag or of all (the applications' views). */
  async history(flag?: string): Promise<MetricsBucketDocument[]> {
    await this.loadedForReaders();
    if (flag !== undefined) return [...(this.byFlag.get(flag)?.buckets.values() ?? [])];
    return [...this.byFlag.values()].flatMap((usage) => [...usage.buckets.values()]);
  }

  /** Per environment: when the flag was last evaluated there (max over instances). */
  async lastSeen(flag: string): Promise<Map<string, Date>> {
    await this.loadedForReaders();
    return this.lastSeenIn(this.byFlag.get(flag));
  }

  private lastSeenIn(usage: FlagUsage | undefined): Map<string, Date> {
    const result = new Map<string, Date>();
    for (const doc of usage?.seen.values() ?? []) {
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
    await this.loadedForReaders();
    const usage = this.byFlag.get(flag);
    const seen = this.lastSeenIn(usage);
    const since = lastHourStart(now);
    const result = new Map<string, EnvironmentUsage>();
    const entry = (environment: string): EnvironmentUsage => {
      let found = result.get(environment);
      if (!found) {
        found = { lastSeenAt: seen.get(environment) ?? null, yes: 0, no: 0 };
        result.set(environment, found);
      }
      return found;
    };
    for (const environment of seen.keys()) entry(environment);
    for (const doc of usage?.buckets.values() ?? []) {
      if (doc.hour < since) continue;
      const found = entry(doc.environment);
      found.yes += doc.yes;
      found.no += doc.no;
    }
    return result;
  }

  /**
   * flag → environment → lastSeenAt, over every flag (the project flag list). The same map until a
   * last-seen time changes, so what is built from it can be kept by its identity (the list's JSON).
   */
  async lastSeenAll(): Promise<ReadonlyMap<string, ReadonlyMap<string, Date>>> {
    await this.loadedForReaders();
    if (this.lastSeenMemo !== undefined) return this.lastSeenMemo;
    const result = new Map<string, Map<string, Date>>();
    for (const [flag, usage] of this.byFlag) {
      if (usage.seen.size > 0) result.set(flag, this.lastSeenIn(usage));
    }
    this.lastSeenMemo = result;
    return result;
  }
}
