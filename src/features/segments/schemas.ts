import { Type, type Static } from 'typebox';
import { ConstraintInput, ConstraintOutput } from '../constraints/schemas.js';

/** `string | null` without anyOf (so coercion never turns a null into ""). */
const NullableString = (options: Record<string, unknown> = {}) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], ...options });

/** Unleash's upsertSegmentSchema: `name` and `constraints` required. */
/** Body of `POST /api/admin/segments/validate`: the name alone, no other key (measured: `extra` → 400). */
export const SegmentNameBody = Type.Object({ name: Type.String() }, { additionalProperties: false });

export const UpsertSegmentBody = Type.Object({
  name: Type.String({ description: 'Unique among segments' }),
  description: Type.Optional(NullableString()),
  project: Type.Optional(NullableString({ description: 'Restricts the segment to one project' })),
  constraints: Type.Array(ConstraintInput),
});

/**
 * Response keys: id, name, description, project?, constraints, createdBy, createdAt. All optional
 * in the schema because the serializer writes required keys first (that would move `project`).
 */
const segmentProperties = {
  id: Type.Optional(Type.Integer({ minimum: 1 })),
  name: Type.Optional(Type.String()),
  description: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  project: Type.Optional(Type.String({ description: 'Present only for project-scoped segments' })),
  constraints: Type.Optional(Type.Array(ConstraintOutput)),
  createdBy: Type.Optional(Type.String()),
  createdAt: Type.Optional(Type.String({ format: 'date-time' })),
};

export const SegmentSchema = Type.Object(segmentProperties);
export type SegmentView = Static<typeof SegmentSchema>;

export const SegmentListSchema = Type.Object({
  segments: Type.Array(
    Type.Object({
      ...segmentProperties,
      usedInProjects: Type.Optional(Type.Integer({ description: 'Projects whose live flags use the segment' })),
      usedInFeatures: Type.Optional(Type.Integer({ description: 'Live flags that use the segment' })),
    }),
  ),
});

export const SegmentParams = Type.Object({ id: Type.Integer() });

export const StrategyIdParams = Type.Object({ strategyId: Type.String() });

/** Segments of one strategy: the segment list's items without the usage counts. */
export const StrategySegmentsSchema = Type.Object({ segments: Type.Array(SegmentSchema) });

const StrategyUsingSegmentSchema = Type.Object({
  id: Type.String(),
  projectId: Type.String(),
  featureName: Type.String(),
  strategyName: Type.String(),
  environment: Type.String(),
});

export const SegmentStrategiesSchema = Type.Object({
  strategies: Type.Array(StrategyUsingSegmentSchema),
  changeRequestStrategies: Type.Array(Type.Object({}, { additionalProperties: true }), {
    description: 'Always empty: strategies in pending change requests are an Enterprise answer',
  }),
});

/**
 * Unleash's updateFeatureStrategySegmentsSchema; other keys are accepted and echoed (measured:
 * `extra: 1` → 201 with `extra: 1`).
 */
export const UpdateStrategySegmentsBody = Type.Object({
  projectId: Type.String({ description: 'Not checked, as in Unleash' }),
  strategyId: Type.String(),
  environmentId: Type.String({ description: 'Not checked, as in Unleash' }),
  segmentIds: Type.Array(Type.Integer({ minimum: 0 }), { description: 'The strategy\'s segments from now on' }),
}, { additionalProperties: true });
