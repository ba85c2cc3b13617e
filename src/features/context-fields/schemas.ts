import { Type, type Static } from 'typebox';
import { NullableString, inOrder } from '../../schemas/common.js';

/** Unleash's legalValueSchema (request side): `value` required, nothing else but `description`. */
export const LegalValueBody = Type.Object(
  {
    value: Type.String({ description: 'The allowed value (1–100 characters)' }),
    description: Type.Optional(Type.String({ description: 'What the value means' })),
  },
  { additionalProperties: false },
);

/**
 * A stored legal value: declared without properties so the serializer keeps the keys in the order
 * they were sent ({"description":"C","value":"c"} came back so from the reference).
 */
const LegalValueOut = Type.Unsafe<{ value: string; description?: string }>({
  type: 'object',
  required: ['value'],
  additionalProperties: { type: 'string' },
  description: '{value, description?}, keys in the order they were sent',
});

/** Unleash's createContextFieldSchema: only `name` required, other keys allowed (and ignored). */
export const CreateContextFieldBody = Type.Object({
  name: Type.String({ description: 'URL-friendly, 1–100 characters, unique among context fields' }),
  description: Type.Optional(Type.String({ description: 'At most 250 characters' })),
  stickiness: Type.Optional(Type.Boolean({ description: 'Whether the field may be used for custom stickiness' })),
  sortOrder: Type.Optional(Type.Integer({ description: 'Position when no other order is chosen' })),
  legalValues: Type.Optional(Type.Array(LegalValueBody, { description: 'Allowed values, unique by `value`' })),
  project: Type.Optional(Type.String({ description: 'Makes the field project-scoped' })),
});
export type CreateContextFieldInput = Static<typeof CreateContextFieldBody>;

/** Unleash's updateContextFieldSchema: the create body without `name` (the path names the field). */
export const UpdateContextFieldBody = Type.Object({
  description: Type.Optional(Type.String({ description: 'At most 250 characters; absent keeps the stored one' })),
  stickiness: Type.Optional(Type.Boolean({ description: 'Absent means false' })),
  sortOrder: Type.Optional(Type.Integer({ description: 'Accepted but not applied: Unleash resets it to 0 on update' })),
  legalValues: Type.Optional(Type.Array(LegalValueBody, { description: 'Replaces the list; absent empties it' })),
  project: Type.Optional(Type.String({ description: 'Moves the field to this project' })),
});
export type UpdateContextFieldInput = Static<typeof UpdateContextFieldBody>;

/** Unleash's nameSchema. */
export const NameBody = Type.Object({ name: Type.String() }, { additionalProperties: false });

const fieldProperties = {
  name: Type.String(),
  description: NullableString(),
  stickiness: Type.Boolean(),
  sortOrder: Type.Integer(),
  legalValues: Type.Array(LegalValueOut),
  createdAt: Type.String({ format: 'date-time' }),
};

/** One field: keys name, description, stickiness, sortOrder, legalValues, createdAt, project? */
export const ContextFieldSchema = inOrder(Type.Object({
  ...fieldProperties,
  project: Type.Optional(Type.String({ description: 'Present only for a project-scoped field' })),
}));
export type ContextFieldView = Static<typeof ContextFieldSchema>;

/** A list item: the field with its use by live flags' strategy constraints, then project? */
export const ContextFieldListItem = inOrder(Type.Object({
  ...fieldProperties,
  usedInProjects: Type.Integer({ minimum: 0, description: 'Projects whose non-archived flags have a strategy constraint on the field' }),
  usedInFeatures: Type.Integer({ minimum: 0, description: 'Non-archived flags with a strategy constraint on the field' }),
  project: Type.Optional(Type.String({ description: 'Present only for a project-scoped field' })),
}));
export type ContextFieldListItemView = Static<typeof ContextFieldListItem>;

export const ContextFieldListSchema = Type.Array(ContextFieldListItem, { description: 'Ordered by name' });

export const ContextFieldStrategiesSchema = Type.Object({
  strategies: Type.Array(inOrder(Type.Object({
    id: Type.String(),
    projectId: Type.String(),
    featureName: Type.String(),
    strategyName: Type.String(),
    environment: Type.String(),
  }))),
});
export type ContextFieldStrategiesView = Static<typeof ContextFieldStrategiesSchema>;

export const ListQuery = Type.Object({
  include: Type.Optional(Type.String({
    description: '`project` (root list, any case): add project-scoped fields; `root` (project list): add root fields',
  })),
});

export const FieldParams = Type.Object({ contextField: Type.String() });
export const ProjectParams = Type.Object({ projectId: Type.String() });
export const ProjectFieldParams = Type.Object({ projectId: Type.String(), contextField: Type.String() });
export const LegalValueParams = Type.Object({ contextField: Type.String(), legalValue: Type.String() });
export const ProjectLegalValueParams = Type.Object({ projectId: Type.String(), contextField: Type.String(), legalValue: Type.String() });
