import { jsonbOrder } from '../../json.js';
import type { MetricsBucketDocument } from './store.js';

const DAY_MS = 86_400_000;
/** Unleash 8.2 lists at most this many. */
const LIMIT = 1000;

export interface UnknownFlag {
  name: string;
  lastSeenAt: string;
  lastEventAt: string | null;
  reports: Array<{ appName: string; environments: Array<{ environment: string; seenAt: string }> }>;
}

/**
 * `GET /api/admin/metrics/unknown-flags`: names SDKs reported in the last 24 hours that are not
 * flags, by name, each with the latest report per application and environment (the start of the
 * SDK's bucket). Applications and environments come in Unleash's jsonb key order (length, then
 * bytes), as its `jsonb_object_agg` gives them. Vane shows them at once; Unleash after its flush,
 * every 2 minutes (measured).
 */
export function unknownFlags(
  buckets: readonly MetricsBucketDocument[], flags: ReadonlySet<string>, lastEventAt: (name: string) => Date | null, now = Date.now(),
): UnknownFlag[] {
  const seen = new Map<string, Record<string, Record<string, number>>>();
  for (const doc of buckets) {
    if (flags.has(doc.flag)) continue;
    const at = (doc.lastStart ?? doc.lastSeenAt).getTime();
    if (now - at > DAY_MS) continue;
    const apps = seen.get(doc.flag) ?? {};
    for (const app of doc.appNames) {
      const environments = (apps[app] ??= {});
      environments[doc.environment] = Math.max(environments[doc.environment] ?? 0, at);
    }
    seen.set(doc.flag, apps);
  }
  return [...seen.keys()].sort().slice(0, LIMIT).map((name) => {
    const apps = jsonbOrder(seen.get(name) ?? {});
    const reports = Object.entries(apps).map(([appName, environments]) => ({
      appName,
      environments: Object.entries(environments).map(([environment, at]) => ({ environment, seenAt: new Date(at).toISOString() })),
    }));
    const latest = Math.max(...Object.values(apps).flatMap((environments) => Object.values(environments)));
    return { name, lastSeenAt: new Date(latest).toISOString(), lastEventAt: lastEventAt(name)?.toISOString() ?? null, reports };
  });
}
