import { Type } from 'typebox';
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
        createdBy: Type.String(),
        url: Type.Union([Type.String(), Type.Null()]),
        color: Type.Union([Type.String(), Type.Null()]),
        icon: Type.Union([Type.String(), Type.Null()]),
        project: Type.String(),
        environment: Type.String(),
        usage: Type.Array(Type.Object({ project: Type.String(), environments: Type.Array(Type.String()) })),
    })),
    total: Type.Integer(),
});
export const FeatureNameParams = Type.Object({ featureName: Type.String() });
export const Accepted = Type.Null({ description: 'Accepted: counted in memory, stored within a second' });
//# sourceMappingURL=schemas.js.map