import { randomUUID } from 'node:crypto';
import { inBackground } from '../../db/guard.js';
import type { LastSeenDocument, MetricsBucketDocument, MetricsStore } from './store.js';
import { bucketKey, bucketSheet, readSheet, seenKey, seenSheet, type SheetDocument, type SheetRef } from './sheets.js';
import { HistoryCompactor, reopened } from './history.js';
import type { FeatureUsage } from './schemas.js';
import { environmentUsageOf, featureUsageOf, lastSeenIn, type EnvironmentUsage, type FlagUsage } from './usage.js';

export type { EnvironmentUsage } from './usage.js';

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

function count(value: number | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

/**
 * Client metrics, aggregated per flag × environment × hour.
 *
 * Requests only add to in-memory totals (no database work on the SDK's path: SDKs report every
 * 60 s per instance, Edge in bulk). A flush every FLUSH_MS writes each hour whose totals changed
 * as one sheet of this instance's absolute values, then its head, which lists its sheets and
 * their versions (sheets.ts); the same timer reads every head and the sheets newer than it has
 * read. Reads sum over instances from memory and never touch the database (the admin flag view
 * asks for every flag it shows): this instance's reports are visible at once, other instances'
 * within their FLUSH_MS plus this instance's.
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
  /** The first read of every instance's sheets; reads wait for it once. */
  private loaded: Promise<void> | undefined;
  /** This instance's flushes, numbered: each sheet carries the one that wrote it. */
  private version = 0;
  /** This instance's sheets as its head lists them. */
  private written: ReadonlyMap<string, SheetRef> = new Map();
  /** Other instances' sheets read, and the version read. */
  private readonly known = new Map<string, number>();
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
    this.loaded ??= this.refresh().catch((err: unknown) => {
      this.loaded = undefined;
      throw err;
    });
    await this.loaded;
  }

  /**
   * Reads every instance's head and the sheets of the last HISTORY_HOURS it lists that are newer
   * than the ones read (all of them the first time) into memory, and drops buckets too old for any
   * read. The timer runs it every FLUSH_MS; tests run it at once, as the revision poll is run in
   * the streaming tests.
   */
  async refresh(): Promise<void> {
    const now = Date.now();
    const hourOf = (hours: number) => Math.floor((now - hours * HOUR_MS) / HOUR_MS) * HOUR_MS;
    const oldest = hourOf(HISTORY_HOURS);
    const recent = hourOf(KEEP_HOURS);
    for (const head of await this.store.allHeads()) {
      if (head._id === this.instance) continue;
      for (const ref of head.sheets) {
        if (ref.hour !== null && ref.hour < oldest) continue;
        if ((this.known.get(ref.id) ?? -1) >= ref.version) continue;
        const doc = await this.store.sheet(ref.id);
        if (doc) await this.apply(doc, recent);
      }
    }
    for (const id of this.known.keys()) if (Number(id.slice(id.lastIndexOf('\0') + 1)) < oldest) this.known.delete(id);
    for (const usage of this.byFlag.values()) {
      for (const [id, doc] of usage.buckets) if (doc.hour.getTime() < oldest && !this.totals.has(id)) usage.buckets.delete(id);
    }
  }

  /** Another instance's sheet, into memory: its entries replace the ones read before (totals are absolute). */
  private async apply(doc: SheetDocument, recent: number): Promise<void> {
    const { buckets, seen } = await readSheet(doc);
    for (const bucket of buckets) {
      this.usageOf(bucket.flag).buckets.set(bucket._id, bucket.hour.getTime() < recent ? this.compactor.compact(bucket) : bucket);
    }
    for (const entry of seen) this.usageOf(entry.flag).seen.set(entry._id, entry);
    if (seen.length) this.lastSeenMemo = undefined;
    this.known.set(doc._id, doc.version);
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
      const key = bucketKey(this.instance, flag, environment, hourMs, appName);
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
      const seen = { _id: seenKey(this.instance, flag, environment), flag, environment, lastSeenAt: now, dirty: true };
      this.seen.set(seen._id, seen);
      usage.seen.set(seen._id, seen);
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
    const now = Date.now();
    const oldest = now - KEEP_HOURS * HOUR_MS;
    const hours = new Map<number, MetricsBucketDocument[]>();
    const dirtyHours = new Set<number>();
    for (const [key, entry] of this.totals) {
      const hour = entry.doc.hour.getTime();
      if (entry.dirty) {
        dirtyHours.add(hour);
        entry.dirty = false;
      } else if (hour < oldest) {
        // Written and no longer reported into: kept for the history (refresh drops it after HISTORY_HOURS).
        this.totals.delete(key);
        this.byFlag.get(entry.doc.flag)?.buckets.set(key, this.compactor.compact(entry.doc));
        continue;
      }
      const list = hours.get(hour) ?? hours.set(hour, []).get(hour)!;
      list.push(entry.doc);
    }
    const seenDirty = [...this.seen.values()].some((entry) => entry.dirty);
    if (dirtyHours.size === 0 && !seenDirty) return;
    const version = ++this.version;
    const flushedAt = new Date(now);
    const sheets: Array<Promise<SheetDocument>> = [];
    for (const hour of dirtyHours) {
      // A late report into an hour no longer kept in `totals`: its sheet holds the hour's compacted buckets too.
      const buckets = hour < oldest ? [...hours.get(hour)!, ...this.ownCompacted(hour)] : hours.get(hour)!;
      sheets.push(bucketSheet(this.instance, hour, version, flushedAt, buckets));
    }
    if (seenDirty) {
      for (const entry of this.seen.values()) entry.dirty = false;
      sheets.push(seenSheet(this.instance, version, flushedAt, [...this.seen.values()]));
    }
    try {
      const written = await Promise.all(sheets);
      const refs = new Map(this.written);
      for (const sheet of written) refs.set(sheet._id, { id: sheet._id, hour: sheet.hour?.getTime() ?? null, version });
      const historyStart = now - HISTORY_HOURS * HOUR_MS;
      for (const [id, ref] of refs) if (ref.hour !== null && ref.hour < historyStart - HOUR_MS) refs.delete(id);
      await this.store.writeSheets(written, { _id: this.instance, flushedAt, sheets: [...refs.values()] });
      this.written = refs;
    } catch (err) {
      // Kept for the next flush: totals are absolute, so writing them later loses nothing.
      for (const entry of this.totals.values()) if (dirtyHours.has(entry.doc.hour.getTime())) entry.dirty = true;
      if (seenDirty) for (const entry of this.seen.values()) entry.dirty = true;
      throw err;
    }
  }

  /** This instance's buckets of an hour that left `totals` (compacted in the history). */
  private ownCompacted(hour: number): MetricsBucketDocument[] {
    const own: MetricsBucketDocument[] = [];
    for (const usage of this.byFlag.values()) {
      for (const [key, doc] of usage.buckets) {
        if (doc.instance === this.instance && doc.hour.getTime() === hour && !this.totals.has(key)) own.push(doc);
      }
    }
    return own;
  }

  /** `GET /api/admin/client-metrics/features/:name`: the last hour, summed over instances. */
  async featureUsage(flag: string, now = new Date()): Promise<FeatureUsage> {
    await this.loadedForReaders();
    return featureUsageOf(flag, this.byFlag.get(flag), now);
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
    return lastSeenIn(this.byFlag.get(flag));
  }

  /**
   * Per environment: when the flag was last seen and its yes/no counts over the last hour (the
   * buckets of this hour and the previous one, as featureUsage's lastHourUsage counts them).
   */
  async environmentUsage(flag: string, now = new Date()): Promise<Map<string, EnvironmentUsage>> {
    await this.loadedForReaders();
    return environmentUsageOf(this.byFlag.get(flag), now);
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
      if (usage.seen.size > 0) result.set(flag, lastSeenIn(usage));
    }
    this.lastSeenMemo = result;
    return result;
  }
}
