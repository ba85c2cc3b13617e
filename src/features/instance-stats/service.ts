import { createHash } from 'node:crypto';
import type { InstanceStats } from './schemas.js';
import type { InstanceStatsSources, StatsMetricsBucket, StatsUser } from './sources.js';

const DAY_MS = 86_400_000;

/** Roles an open-source Unleash 8.2 holds (measured: 6, and no route of OSS adds one). */
const PREDEFINED_ROLES = 6;
/** The release template an Unleash 8.2 database is seeded with (measured: 1; OSS has no route to add one). */
const SEEDED_RELEASE_TEMPLATES = 1;
/** The order Unleash's `GROUP BY type` gave the token counts in (measured: client, admin, frontend, backend). */
const TOKEN_TYPE_ORDER = ['client', 'admin', 'frontend', 'backend'];
/** Months of Edge usage reported, this one included (measured: 12). */
const EDGE_MONTHS = 12;

function monthsBefore(now: Date, months: number): Date {
  const at = new Date(now);
  at.setUTCMonth(at.getUTCMonth() - months);
  return at;
}

/** Midnight UTC of `now`'s day. */
function dayStart(now: Date): Date {
  return new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS);
}

function countBy<T>(items: readonly T[], keep: (item: T) => boolean): number {
  let n = 0;
  for (const item of items) if (keep(item)) n++;
  return n;
}

/**
 * `GET /api/admin/instance-admin/statistics` (and its CSV): usage counts of the whole installation,
 * computed on each request from the held state (Unleash 8.2 caches none by default: a created flag
 * moved `featureToggles` on the next call, measured). What Vane has no notion of (service accounts,
 * groups, custom roles, SAML, OIDC, SCIM, release plans, Edge) answers what an open-source Unleash does.
 */
export class InstanceStatsService {
  constructor(private readonly sources: InstanceStatsSources) {}

  async stats(now = new Date()): Promise<InstanceStats> {
    const s = this.sources;
    const [users, tokenTypes, flags, projects, contextFields, environments, segments, strategies, instances, buckets] = await Promise.all([
      s.users(), s.apiTokenTypes(), s.flags(), s.projects(), s.contextFieldCount(), s.environments(), s.segmentCount(),
      s.strategyTypeCount(), s.sdkInstances(), s.metricsBuckets(),
    ]);
    const live = flags.filter((f) => !f.archived);
    const production = environments.filter((e) => e.type === 'production').map((e) => e.name);
    const [featureExports, featureImports, productionChanges] = await Promise.all([
      s.eventCount({ type: 'features-exported' }),
      s.eventCount({ type: 'features-imported' }),
      this.productionChanges(production, now),
    ]);
    const featureToggles = live.length;
    const projectCount = countBy(projects, (p) => p.archivedAt === null);
    const seenSince = (days: number) => new Set(
      instances.filter((i) => i.lastSeen.getTime() > now.getTime() - days * DAY_MS).map((i) => i.appName),
    ).size;
    const stats: InstanceStats = {
      timestamp: now.toISOString(),
      instanceId: s.instanceId,
      versionOSS: s.version,
      versionEnterprise: '',
      users: users.length,
      serviceAccounts: 0,
      apiTokens: this.tokenCounts(tokenTypes),
      activeUsers: this.activeUsers(users, now),
      licensedUsers: countBy(users, (u) => u.email !== null && u.email !== ''),
      featureToggles,
      archivedFeatureToggles: flags.length - featureToggles,
      projects: projectCount,
      contextFields,
      roles: PREDEFINED_ROLES,
      customRootRoles: 0,
      customRootRolesInUse: 0,
      groups: 0,
      environments: environments.length,
      segments,
      strategies,
      SAMLenabled: false,
      OIDCenabled: false,
      passwordAuthEnabled: true,
      SCIMenabled: false,
      clientApps: [
        { range: '7d', count: seenSince(7) },
        { range: '30d', count: seenSince(30) },
        { range: 'allTime', count: new Set(instances.map((i) => i.appName)).size },
      ],
      featureExports,
      featureImports,
      productionChanges,
      previousDayMetricsBucketsCount: this.previousDayBuckets(buckets, now),
      ...this.strategyMaxima(live),
      releaseTemplates: SEEDED_RELEASE_TEMPLATES,
      releasePlans: 0,
      edgeInstanceUsage: this.edgeMonths(now),
      readOnlyUsers: 0,
      sum: '',
    };
    stats.sum = createHash('sha256').update(
      `${stats.instanceId}${stats.users}${featureToggles}${projectCount}${stats.roles}${stats.groups}${stats.environments}${segments}`,
    ).digest('hex');
    return stats;
  }

  private tokenCounts(types: readonly string[]): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const type of TOKEN_TYPE_ORDER) {
      const n = countBy(types, (t) => t === type);
      if (n > 0) counts[type] = n;
    }
    return counts;
  }

  /** Distinct users whose sign-in or personal access token was seen after each window's start (calendar months, as Postgres' intervals). */
  private activeUsers(users: readonly StatsUser[], now: Date): InstanceStats['activeUsers'] {
    const starts = [new Date(now.getTime() - 7 * DAY_MS), monthsBefore(now, 1), monthsBefore(now, 2), monthsBefore(now, 3)];
    const counts = [0, 0, 0, 0];
    for (const user of users) {
      let latest = user.seenAt?.getTime() ?? -Infinity;
      for (const seen of this.sources.tokensSeenAt(user.id)) latest = Math.max(latest, seen?.getTime() ?? -Infinity);
      starts.forEach((start, i) => { if (latest > start.getTime()) counts[i]!++; });
    }
    return { last7: counts[0]!, last30: counts[1]!, last60: counts[2]!, last90: counts[3]! };
  }

  /** Unleash sums per-day counters whose day is after now minus the window: the UTC days from (today - window + 1) on. */
  private async productionChanges(environments: readonly string[], now: Date): Promise<InstanceStats['productionChanges']> {
    if (environments.length === 0) return { last30: 0, last60: 0, last90: 0 };
    const since = (days: number) => this.sources.eventCount({ environments, from: new Date(dayStart(now).getTime() - (days - 1) * DAY_MS) });
    const [last30, last60, last90] = await Promise.all([since(30), since(60), since(90)]);
    return { last30, last60, last90 };
  }

  /** Unleash's hourly rows of yesterday: one per flag, application, environment and hour (and variant); Vane keeps one per SDK instance, so they are counted distinct. */
  private previousDayBuckets(buckets: readonly StatsMetricsBucket[], now: Date): InstanceStats['previousDayMetricsBucketsCount'] {
    const end = dayStart(now).getTime();
    const start = end - DAY_MS;
    const enabled = new Set<string>();
    const variants = new Set<string>();
    for (const b of buckets) {
      const hour = b.hour.getTime();
      if (hour < start || hour >= end) continue;
      for (const app of b.appNames) {
        const row = `${b.flag}\0${app}\0${b.environment}\0${hour}`;
        enabled.add(row);
        for (const variant of Object.keys(b.variants)) variants.add(`${row}\0${variant}`);
      }
    }
    return { enabledCount: enabled.size, variantCount: variants.size };
  }

  private strategyMaxima(live: readonly StatsFlag[]): Pick<InstanceStats, 'maxEnvironmentStrategies' | 'maxConstraintValues' | 'maxConstraints'> {
    let maxEnvironmentStrategies = 0;
    let maxConstraintValues = 0;
    let maxConstraints = 0;
    for (const flag of live) {
      for (const env of Object.values(flag.environments ?? {})) {
        maxEnvironmentStrategies = Math.max(maxEnvironmentStrategies, env.strategies.length);
        for (const strategy of env.strategies) {
          maxConstraints = Math.max(maxConstraints, strategy.constraints.length);
          for (const c of strategy.constraints) maxConstraintValues = Math.max(maxConstraintValues, c.values?.length ?? 0);
        }
      }
    }
    return { maxEnvironmentStrategies, maxConstraintValues, maxConstraints };
  }

  /** No Edge reports to Vane: every month 0, keyed YYYY-MM from this month back. */
  private edgeMonths(now: Date): Record<string, number> {
    const months: Record<string, number> = {};
    for (let i = 0; i < EDGE_MONTHS; i++) {
      const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1));
      months[`${month.getUTCFullYear()}-${String(month.getUTCMonth() + 1).padStart(2, '0')}`] = 0;
    }
    return months;
  }

  /** The statistics as Unleash's CSV (json2csv): quoted headers, quoted strings, objects as JSON, `"` doubled; no final newline. */
  csv(stats: InstanceStats): string {
    const cell = (value: unknown): string => {
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      return `"${text.replaceAll('"', '""')}"`;
    };
    const entries = Object.entries(stats);
    return `${entries.map(([key]) => cell(key)).join(',')}\n${entries.map(([, value]) => cell(value)).join(',')}`;
  }
}

type StatsFlag = Awaited<ReturnType<InstanceStatsSources['flags']>>[number];
