import type { LastSeenDocument, MetricsBucketDocument } from './store.js';
import type { FeatureUsage } from './schemas.js';

const HOUR_MS = 3_600_000;

/** One flag's usage as an instance knows it: its own live totals and other instances' last flushed ones. */
export interface FlagUsage {
  /** Bucket documents by `_id` (this instance's are the live objects MetricsService.record adds to). */
  buckets: Map<string, MetricsBucketDocument>;
  /** Last-seen documents by `_id`. */
  seen: Map<string, LastSeenDocument>;
}

/** What the admin flag view shows per environment (Unleash's feature environment lastSeenAt, yes, no). */
export interface EnvironmentUsage {
  lastSeenAt: Date | null;
  yes: number;
  no: number;
}

/** The start of the previous hour: the last-hour figures count its bucket and the current one. */
function lastHourStart(now: Date): Date {
  return new Date(Math.floor((now.getTime() - HOUR_MS) / HOUR_MS) * HOUR_MS);
}

/** `GET /api/admin/client-metrics/features/:name`: the last hour, summed over instances. */
export function featureUsageOf(flag: string, usage: FlagUsage | undefined, now: Date): FeatureUsage {
  const since = lastHourStart(now);
  const sums = new Map<string, { environment: string; hour: number; yes: number; no: number }>();
  const apps = new Set<string>();
  for (const doc of usage?.buckets.values() ?? []) {
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

/** Per environment: when the flag was last evaluated there (max over instances). */
export function lastSeenIn(usage: FlagUsage | undefined): Map<string, Date> {
  const result = new Map<string, Date>();
  for (const doc of usage?.seen.values() ?? []) {
    const known = result.get(doc.environment);
    if (!known || known < doc.lastSeenAt) result.set(doc.environment, doc.lastSeenAt);
  }
  return result;
}

/** Per environment: when the flag was last seen and its yes/no counts over the last hour (this hour's buckets and the previous one's). */
export function environmentUsageOf(usage: FlagUsage | undefined, now: Date): Map<string, EnvironmentUsage> {
  const seen = lastSeenIn(usage);
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
