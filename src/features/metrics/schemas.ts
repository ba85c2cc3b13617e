import { Type, type Static } from 'typebox';
import { NullableString } from '../../schemas/common.js';

/** A time as SDKs send it: ISO string or epoch milliseconds. */
const Instant = Type.Union([Type.String({ format: 'date-time' }), Type.Integer()]);

const Counts = Type.Record(Type.String(), Type.Number());

/** Key order decides which missing field is named first (Unleash 8: appName, interval, started, strategies). */
export const RegisterBody = Type.Object({
  appName: Type.String({ minLength: 1 }),
  instanceId: Type.Optional(Type.String()),
  sdkVersion: Type.Optional(Type.String()),
  environment: Type.Optional(Type.String()),
  interval: Type.Number(),
  started: Instant,
  strategies: Type.Array(Type.String()),
  description: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
  color: Type.Optional(Type.String()),
  icon: Type.Optional(Type.String()),
});

export const ToggleCountsSchema = Type.Object({
  yes: Type.Optional(Type.Number()),
  no: Type.Optional(Type.Number()),
  variants: Type.Optional(Counts),
});

export const MetricsBody = Type.Object({
  appName: Type.String({ minLength: 1 }),
  instanceId: Type.Optional(Type.String()),
  environment: Type.Optional(Type.String()),
  bucket: Type.Optional(Type.Object({
    start: Instant,
    stop: Instant,
    toggles: Type.Record(Type.String(), ToggleCountsSchema),
  })),
});

/** The shape Unleash Edge forwards in. */
export const BulkMetricsBody = Type.Object({
  applications: Type.Array(Type.Object({
    appName: Type.String({ minLength: 1 }),
    instanceId: Type.String(),
    environment: Type.String(),
    sdkVersion: Type.Optional(Type.String()),
    interval: Type.Optional(Type.Number()),
    started: Type.Optional(Instant),
    strategies: Type.Optional(Type.Array(Type.String())),
  })),
  metrics: Type.Array(Type.Object({
    featureName: Type.String({ minLength: 1 }),
    appName: Type.String({ minLength: 1 }),
    environment: Type.String(),
    timestamp: Type.Optional(Instant),
    yes: Type.Optional(Type.Number()),
    no: Type.Optional(Type.Number()),
    variants: Type.Optional(Counts),
  })),
});

export const FeatureUsageSchema = Type.Object({
  version: Type.Literal(1),
  maturity: Type.String(),
  featureName: Type.String(),
  lastHourUsage: Type.Array(Type.Object({
    environment: Type.String(),
    timestamp: Type.String({ format: 'date-time' }),
    yes: Type.Integer(),
    no: Type.Integer(),
  })),
  seenApplications: Type.Array(Type.String()),
});

export const ApplicationsSchema = Type.Object({
  applications: Type.Array(Type.Object({
    appName: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    description: Type.Union([Type.String(), Type.Null()]),
    strategies: Type.Array(Type.String()),
    createdBy: Type.Union([Type.String(), Type.Null()], { description: 'unleash_system_user when an SDK registered it, null when created by its metrics or an admin' }),
    url: Type.Union([Type.String(), Type.Null()]),
    color: Type.Union([Type.String(), Type.Null()]),
    icon: Type.Union([Type.String(), Type.Null()]),
    project: Type.String(),
    environment: Type.String(),
    usage: Type.Array(Type.Object({ project: Type.String(), environments: Type.Array(Type.String()) })),
  })),
  total: Type.Integer(),
});

export type FeatureUsage = Static<typeof FeatureUsageSchema>;
export type Applications = Static<typeof ApplicationsSchema>;

export const FeatureNameParams = Type.Object({ featureName: Type.String() });

/**
 * An object serialised with its own key order (an open schema): Unleash answers two shapes in one
 * list, each in its own order (a reported hour, a filled one; a known strategy, an unknown one).
 */
const Open = (description: string) => Type.Object({}, { additionalProperties: true, description });

interface MetricsEntry {
  featureName: string;
  appName: string;
  environment: string;
  timestamp: string;
  yes: number;
  no: number;
  variants?: Record<string, number>;
}

export const FeatureMetricsSchema = Type.Object({
  version: Type.Literal(1),
  maturity: Type.String(),
  data: Type.Array(Type.Unsafe<MetricsEntry>({
    ...Open('One hour of one application in one environment: {featureName, appName, environment, timestamp, yes, no, variants} when reported, {timestamp, no, yes, appName, environment, featureName} when filled'),
  })),
});
export type FeatureMetrics = Static<typeof FeatureMetricsSchema>;

export const FeatureMetricsParams = Type.Object({ name: Type.String() });
export const HoursBackQuery = Type.Object({
  hoursBack: Type.Optional(Type.String({ description: '1 to 48; anything else is the default 24' })),
});

export const AppNameParams = Type.Object({ appName: Type.String() });
export const InstanceParams = Type.Object({ appName: Type.String(), environment: Type.String() });
export const ProjectParams = Type.Object({ projectId: Type.String() });

/** Unleash 8.2 coerces scalars to strings here and ignores unknown keys (measured). */
export const ApplicationEditBody = Type.Object({
  appName: Type.Optional(Type.String({ description: 'Ignored: the path names the application' })),
  description: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
  color: Type.Optional(Type.String()),
  icon: Type.Optional(Type.String()),
  strategies: Type.Optional(Type.Array(Type.String())),
});

interface FlagSummary {
  name: string; description: string | null; type: string; project: string; stale: boolean; createdAt: string; impressionData: boolean; archived: boolean;
}

export const ApplicationSchema = Type.Object({
  appName: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  description: NullableString(),
  url: NullableString(),
  color: NullableString(),
  icon: NullableString(),
  strategies: Type.Array(Type.Unsafe<Record<string, unknown>>(Open('The strategy type as GET /api/admin/strategies shows it with title, or {name, notFound: true}'))),
  instances: Type.Array(Type.Object({
    appName: Type.String(), instanceId: Type.String(), sdkVersion: NullableString(), sdkType: NullableString(), clientIp: NullableString(),
    lastSeen: Type.String({ format: 'date-time' }), createdAt: Type.String({ format: 'date-time' }), environment: Type.String(),
  })),
  seenToggles: Type.Array(Type.Unsafe<FlagSummary | { name: string; notFound: true }>(Open('A flag its metrics named, in name order'))),
  links: Type.Object({ self: Type.String() }),
});
export type ApplicationView = Static<typeof ApplicationSchema>;

export const ApplicationOverviewSchema = Type.Object({
  projects: Type.Array(Type.String()),
  featureCount: Type.Integer(),
  environments: Type.Array(Type.Object({
    name: Type.String(),
    instanceCount: Type.Integer(),
    sdks: Type.Array(Type.String()),
    frontendSdks: Type.Array(Type.String()),
    backendSdks: Type.Array(Type.String()),
    lastSeen: NullableString({ description: 'date-time of the latest instance seen in the last 24 hours' }),
    issues: Type.Object({ missingFeatures: Type.Array(Type.String()), outdatedSdks: Type.Array(Type.String()) }),
  })),
  issues: Type.Object({ missingStrategies: Type.Array(Type.String()) }),
});
export type ApplicationOverview = Static<typeof ApplicationOverviewSchema>;

export const InstancesSchema = Type.Object({
  instances: Type.Array(Type.Object({
    instanceId: Type.String(), clientIp: NullableString(), sdkVersion: NullableString(), lastSeen: Type.String({ format: 'date-time' }),
  })),
});

export const OutdatedSdksSchema = Type.Object({
  sdks: Type.Array(Type.Object({ sdkVersion: Type.String(), applications: Type.Array(Type.String()) })),
});
export type OutdatedSdks = Static<typeof OutdatedSdksSchema>;

export const ApplicationsQuerySchema = Type.Object({
  query: Type.Optional(Type.String({ description: 'Part of the application name, case-insensitively (trimmed)' })),
  offset: Type.Optional(Type.String({ description: 'Applications skipped; anything but a positive integer is 0' })),
  limit: Type.Optional(Type.String({ description: 'Applications in the page; anything but a positive integer is 1000' })),
  sortBy: Type.Optional(Type.String({ description: 'Ignored: ordered by name, as Unleash 8.2 orders them whatever is asked (measured)' })),
  sortOrder: Type.Optional(Type.String({ description: '`desc` for descending; anything else ascending' })),
});
export type ApplicationsQuery = Static<typeof ApplicationsQuerySchema>;

export const ProjectApplicationsQuerySchema = Type.Object({
  query: Type.Optional(Type.String({ description: 'Comma-separated; each matches part of a name, environment, instance or SDK version' })),
  offset: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String({ description: '1 to 100; anything else is 50' })),
  sortBy: Type.Optional(Type.String({ description: 'Ignored: the applications are ordered by name, as Unleash orders them' })),
  sortOrder: Type.Optional(Type.String({ description: 'asc (default) or desc' })),
});

export const ProjectApplicationsSchema = Type.Object({
  applications: Type.Array(Type.Object({
    name: Type.String(),
    environments: Type.Array(Type.String()),
    instances: Type.Array(Type.String()),
    sdks: Type.Array(Type.Object({ name: Type.String(), versions: Type.Array(Type.String()) })),
  })),
  total: Type.Integer(),
});
export type ProjectApplications = Static<typeof ProjectApplicationsSchema>;

export const UnknownFlagsSchema = Type.Object({
  unknownFlags: Type.Array(Type.Object({
    name: Type.String(),
    lastSeenAt: Type.String({ format: 'date-time' }),
    lastEventAt: NullableString({ description: 'Always null in Vane (Unleash: the latest event naming it)' }),
    reports: Type.Array(Type.Object({
      appName: Type.String(),
      environments: Type.Array(Type.Object({ environment: Type.String(), seenAt: Type.String({ format: 'date-time' }) })),
    })),
  })),
});

export const Accepted = Type.Null({ description: 'Accepted: counted in memory, stored within a second' });
