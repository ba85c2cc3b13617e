import { Type } from 'typebox';
import { inOrder, NullableString } from '../../schemas/common.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const Stage = Type.Object({ averageDays: Type.Union([Type.Number(), Type.Null()]), currentFlags: Type.Integer() });

export const ProjectParams = Type.Object({ projectId: Type.String() });

export const ProjectOverviewSchema = Type.Object({
  stats: Type.Object({
    avgTimeToProdCurrentWindow: Type.Number(),
    createdCurrentWindow: Type.Integer({ description: 'Flags created in the last 30 days' }),
    createdPastWindow: Type.Integer({ description: 'Flags created in the 30 days before' }),
    archivedCurrentWindow: Type.Integer(),
    archivedPastWindow: Type.Integer(),
    projectActivityCurrentWindow: Type.Integer({ description: 'Events of the project in the last 30 days' }),
    projectActivityPastWindow: Type.Integer(),
    projectMembersAddedCurrentWindow: Type.Integer(),
  }),
  name: Type.String(),
  description: Nullable(Type.String()),
  mode: Type.String(),
  featureLimit: Type.Null(),
  featureNaming: Type.Object({ pattern: Type.Null(), example: Type.Null(), description: Type.Null() }),
  linkTemplates: Type.Array(Type.Object({})),
  defaultStickiness: Type.String(),
  health: Type.Integer({ description: 'Percent of live flags neither stale nor past their type\'s lifetime' }),
  technicalDebt: Type.Integer(),
  favorite: Type.Boolean(),
  updatedAt: Type.String({ format: 'date-time' }),
  createdAt: Type.String({ format: 'date-time' }),
  onboardingStatus: Type.Object({ status: Type.String(), feature: Type.Optional(Type.String()) }),
  environments: Type.Array(Type.Object({ environment: Type.String() })),
  featureTypeCounts: Type.Array(Type.Object({ type: Type.String(), count: Type.Integer() })),
  members: Type.Integer(),
  version: Type.Integer(),
});

export const ProjectStatusSchema = Type.Object({
  resources: Type.Object({ members: Type.Integer(), apiTokens: Type.Integer(), segments: Type.Integer() }),
  activityCountByDate: Type.Array(Type.Object({ date: Type.String({ description: 'YYYY-MM-DD (UTC)' }), count: Type.Integer() })),
  health: Type.Object({ current: Type.Integer() }),
  technicalDebt: Type.Object({ current: Type.Integer() }),
  lifecycleSummary: Type.Object({
    initial: Stage,
    preLive: Stage,
    live: Stage,
    completed: Stage,
    archived: Type.Object({ currentFlags: Type.Integer(), last30Days: Type.Integer() }),
  }),
  staleFlags: Type.Object({ total: Type.Integer({ description: 'Live flags stale or past their type\'s lifetime' }) }),
});

/** Unleash's projectDoraMetricsSchema. */
export const ProjectDoraSchema = Type.Object({
  features: Type.Array(Type.Object({
    name: Type.String(),
    timeToProduction: Type.Integer({ description: 'Whole days from creation to first turned on in a production environment' }),
  })),
  projectAverage: Type.Number({ description: 'To one decimal; 0.1 when that rounds to 0; 0 without any flag in production' }),
});

/** One environment of a flag, as the project's flag list shows it. */
const FlagEnvironmentSummary = inOrder(Type.Object({
  name: Type.String(), enabled: Type.Boolean(), type: Type.String(), sortOrder: Type.Number(),
  variantCount: Type.Integer(), lastSeenAt: NullableString(), hasStrategies: Type.Boolean(), hasEnabledStrategies: Type.Boolean(),
}));

/** Unleash's healthReportSchema: the project's overview fields, its live flags, and the counts its health comes from. */
export const ProjectHealthReportSchema = inOrder(Type.Object({
  stats: ProjectOverviewSchema.properties.stats,
  name: Type.String(),
  description: Nullable(Type.String()),
  mode: Type.String(),
  featureLimit: Type.Null(),
  featureNaming: ProjectOverviewSchema.properties.featureNaming,
  defaultStickiness: Type.String(),
  health: Type.Integer(),
  technicalDebt: Type.Integer(),
  favorite: Type.Boolean(),
  updatedAt: Type.String({ format: 'date-time' }),
  createdAt: Type.String({ format: 'date-time' }),
  environments: ProjectOverviewSchema.properties.environments,
  features: Type.Array(inOrder(Type.Object({
    type: Type.String(), description: Nullable(Type.String()), favorite: Type.Boolean(), name: Type.String(),
    createdAt: Type.String({ format: 'date-time' }), stale: Type.Boolean(), impressionData: Type.Boolean(),
    environments: Type.Array(FlagEnvironmentSummary),
    tags: Type.Optional(Type.Array(inOrder(Type.Object({ value: Type.String(), type: Type.String() })), { description: 'Only when the flag has tags' })),
  }))),
  members: Type.Integer(),
  version: Type.Integer(),
  potentiallyStaleCount: Type.Integer({ description: 'Live flags past their type\'s lifetime, not marked stale' }),
  activeCount: Type.Integer({ description: 'Live flags not marked stale' }),
  staleCount: Type.Integer(),
}));

const StaleCounts = {
  activeCount: Type.Integer({ description: 'Live flags not marked stale' }),
  potentiallyStaleCount: Type.Integer({ description: 'Live flags past their type\'s lifetime, not marked stale' }),
  staleCount: Type.Integer(),
};

/** Unleash's projectInsightsSchema. */
export const ProjectInsightsSchema = Type.Object({
  stats: ProjectOverviewSchema.properties.stats,
  featureTypeCounts: ProjectOverviewSchema.properties.featureTypeCounts,
  technicalDebt: Type.Object({ rating: Type.Integer({ description: '100 minus the health' }), ...StaleCounts }),
  leadTime: ProjectDoraSchema,
  members: Type.Object({ currentMembers: Type.Integer(), change: Type.Integer() }, { description: 'Always 0: Vane has no project members (D11)' }),
  health: Type.Object({ rating: Type.Integer(), ...StaleCounts }),
});
