import { Type, type Static } from 'typebox';
import { inOrder } from '../../schemas/common.js';

const Count = Type.Integer({ minimum: 0 });

/** Unleash 8.2's `instanceAdminStatsSchema`, keys in the order it sends them (measured). */
export const InstanceStatsSchema = inOrder(Type.Object({
  timestamp: Type.String({ format: 'date-time' }),
  instanceId: Type.String(),
  versionOSS: Type.String(),
  versionEnterprise: Type.String({ description: 'Empty: open source' }),
  users: Count,
  serviceAccounts: Count,
  apiTokens: Type.Object({}, {
    additionalProperties: Count,
    description: 'Tokens by stored type, only the types that have some, in Unleash\'s order: client, admin, frontend, backend',
  }),
  activeUsers: inOrder(Type.Object({ last7: Count, last30: Count, last60: Count, last90: Count }, {
    description: 'Users seen (signed in or used a personal access token) in the last week, month, two and three months',
  })),
  licensedUsers: Type.Integer({ minimum: 0, description: 'Users with an e-mail address' }),
  featureToggles: Type.Integer({ minimum: 0, description: 'Flags not archived' }),
  archivedFeatureToggles: Count,
  projects: Type.Integer({ minimum: 0, description: 'Projects not archived' }),
  contextFields: Count,
  roles: Type.Integer({ minimum: 0, description: 'The predefined roles' }),
  customRootRoles: Count,
  customRootRolesInUse: Count,
  groups: Count,
  environments: Count,
  segments: Count,
  strategies: Type.Integer({ minimum: 0, description: 'Strategy types, deprecated and custom ones included' }),
  SAMLenabled: Type.Boolean(),
  OIDCenabled: Type.Boolean(),
  passwordAuthEnabled: Type.Boolean(),
  SCIMenabled: Type.Boolean(),
  clientApps: Type.Array(inOrder(Type.Object({
    range: Type.Union([Type.Literal('7d'), Type.Literal('30d'), Type.Literal('allTime')]),
    count: Count,
  })), { description: 'Applications with an SDK instance seen in the last 7 days, 30 days, ever' }),
  featureExports: Count,
  featureImports: Count,
  productionChanges: inOrder(Type.Object({ last30: Count, last60: Count, last90: Count }, {
    description: 'Events naming a production-type environment in the last 30, 60 and 90 days (by UTC day)',
  })),
  previousDayMetricsBucketsCount: inOrder(Type.Object({ enabledCount: Count, variantCount: Count }, {
    description: 'Hourly SDK usage rows of yesterday (UTC): per flag, application, environment and hour; and per variant',
  })),
  maxEnvironmentStrategies: Type.Integer({ minimum: 0, description: 'Most strategies of a live flag in one environment' }),
  maxConstraintValues: Type.Integer({ minimum: 0, description: 'Most values of one constraint of a live flag\'s strategy' }),
  maxConstraints: Type.Integer({ minimum: 0, description: 'Most constraints of one strategy of a live flag' }),
  releaseTemplates: Type.Integer({ minimum: 0, description: 'The release template an open-source Unleash 8.2 is seeded with' }),
  releasePlans: Count,
  edgeInstanceUsage: Type.Object({}, {
    additionalProperties: Type.Number({ minimum: 0 }),
    description: 'Average Edge instances per month (YYYY-MM), this month and the 11 before, newest first',
  }),
  readOnlyUsers: Count,
  sum: Type.String({ description: 'SHA-256 of the instance id and the users, flags, projects, roles, groups, environments and segments counts' }),
}));

export type InstanceStats = Static<typeof InstanceStatsSchema>;

export const InstanceStatsCsvSchema = Type.String({
  description: 'text/csv: a header row of the statistics\' keys and one row of values (objects as JSON), every header and string quoted',
});
