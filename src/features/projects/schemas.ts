import { Type, type Static } from 'typebox';
import { inOrder } from '../../schemas/common.js';
import { ConstraintOutput } from '../constraints/schemas.js';

const ProjectSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  health: Type.Number(),
  featureCount: Type.Number(),
  memberCount: Type.Number(),
  defaultStickiness: Type.String(),
  mode: Type.String(),
  favorite: Type.Boolean(),
  archivedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const ProjectResponse = ProjectSchema;
export type ProjectView = Static<typeof ProjectSchema>;
export const ProjectListResponse = Type.Object({ version: Type.Number(), projects: Type.Array(ProjectSchema) });

export const CreateProjectBody = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

/** Unleash's `projectEnvironmentSchema`: closed (measured: another key is a 400 naming it). */
export const ProjectEnvironmentBody = Type.Object({
  environment: Type.String(),
  changeRequestsEnabled: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });

/** A default strategy as stored and answered: the keys sent, in jsonb order (measured). */
export const DefaultStrategyResponse = inOrder(Type.Object({
  name: Type.String(),
  title: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  disabled: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  segments: Type.Optional(Type.Array(Type.Number())),
  variants: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
  sortOrder: Type.Optional(Type.Number()),
  parameters: Type.Optional(Type.Record(Type.String(), Type.String())),
  constraints: Type.Optional(Type.Array(ConstraintOutput)),
}));
