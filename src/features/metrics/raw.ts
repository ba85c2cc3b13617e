import type { FeatureMetrics } from './schemas.js';
import type { MetricsBucketDocument } from './store.js';

const HOUR_MS = 3_600_000;
/** Unleash 8.2's hoursBack: 1 to 48, fractions too (2.5 is three hours), anything else (absent, 0, 49, not a number) the default 24 (measured). */
const HOURS_BACK_DEFAULT = 24;
const HOURS_BACK_MAX = 48;
/** Unleash shows at most the first 100 applications that reported the flag. */
const MAX_APPLICATIONS = 100;

export function hoursBackOf(value: string | undefined): number {
  if (value === undefined) return HOURS_BACK_DEFAULT;
  const parsed = Number(value);
  return parsed >= 1 && parsed <= HOURS_BACK_MAX ? parsed : HOURS_BACK_DEFAULT;
}

type Entry = FeatureMetrics['data'][number];

/**
 * `GET /api/admin/client-metrics/features/:name/raw`: for each environment and application that
 * reported the flag within `hoursBack`, one entry per hour from the current hour back (zeros where
 * nothing was reported, with Unleash's key order for them), summed over Vane's instances, ordered
 * by hour (environments and applications in name order within an hour).
 */
export function rawMetrics(flag: string, buckets: readonly MetricsBucketDocument[], hoursBack: number, now = Date.now()): FeatureMetrics {
  const currentHour = Math.floor(now / HOUR_MS) * HOUR_MS;
  const oldest = currentHour - (Math.ceil(hoursBack) - 1) * HOUR_MS;
  // Unleash selects rows newer than now - hoursBack hours, then fills the hours it generated.
  const since = now - hoursBack * HOUR_MS;
  const sums = new Map<string, Entry & { variants: Record<string, number> }>();
  const environments = new Set<string>();
  const applications = new Set<string>();
  for (const doc of buckets) {
    const hour = doc.hour.getTime();
    if (hour < since) continue;
    for (const appName of doc.appNames) {
      environments.add(doc.environment);
      applications.add(appName);
      if (hour < oldest || hour > currentHour) continue;
      const key = `${doc.environment}\0${appName}\0${hour}`;
      let sum = sums.get(key);
      if (!sum) {
        sum = { featureName: flag, appName, environment: doc.environment, timestamp: new Date(hour).toISOString(), yes: 0, no: 0, variants: {} };
        sums.set(key, sum);
      }
      // A bucket written before counts were kept per application names several; its counts go to the first.
      if (appName !== doc.appNames[0]) continue;
      sum.yes += doc.yes;
      sum.no += doc.no;
      for (const [variant, n] of Object.entries(doc.variants)) sum.variants[variant] = (sum.variants[variant] ?? 0) + n;
    }
  }
  const apps = [...applications].sort().slice(0, MAX_APPLICATIONS);
  const data: Entry[] = [];
  for (let hour = oldest; hour <= currentHour; hour += HOUR_MS) {
    const timestamp = new Date(hour).toISOString();
    for (const environment of [...environments].sort()) {
      for (const appName of apps) {
        data.push(sums.get(`${environment}\0${appName}\0${hour}`) ?? { timestamp, no: 0, yes: 0, appName, environment, featureName: flag });
      }
    }
  }
  return { version: 1, maturity: 'stable', data };
}
