import { Type, type Static } from 'typebox';

const Parameter = Type.Object({
  name: Type.String(),
  type: Type.String(),
  description: Type.String(),
  required: Type.Boolean(),
});

export const StrategyTypeSchema = Type.Object({
  displayName: Type.Union([Type.String(), Type.Null()]),
  name: Type.String(),
  editable: Type.Boolean(),
  description: Type.Union([Type.String(), Type.Null()]),
  parameters: Type.Array(Parameter),
  deprecated: Type.Boolean(),
  title: Type.Union([Type.String(), Type.Null()]),
});

export type StrategyTypeView = Static<typeof StrategyTypeSchema>;

export const StrategyTypeListSchema = Type.Object({ version: Type.Number(), strategies: Type.Array(StrategyTypeSchema) });

/** `PUT`: the path names the type (a `name` in the body is ignored, as Unleash ignores it). */
export const UpdateStrategyTypeBody = Type.Object({
  name: Type.String({ minLength: 1 }),
  title: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  description: Type.Optional(Type.String()),
  parameters: Type.Array(Type.Object({
    name: Type.String({ minLength: 1 }),
    type: Type.String({ enum: ['string', 'percentage', 'list', 'number', 'boolean'] }),
    description: Type.Optional(Type.String()),
    required: Type.Optional(Type.Boolean()),
  })),
  editable: Type.Optional(Type.Boolean()),
  deprecated: Type.Optional(Type.Boolean()),
});

export const StrategyNameParams = Type.Object({ name: Type.String() });

export const CreateStrategyTypeBody = Type.Object({
  name: Type.String({ minLength: 1 }),
  title: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  description: Type.Optional(Type.String()),
  parameters: Type.Optional(Type.Array(Type.Object({
    name: Type.String({ minLength: 1 }),
    type: Type.String({ enum: ['string', 'percentage', 'list', 'number', 'boolean'] }),
    description: Type.Optional(Type.String()),
    required: Type.Optional(Type.Boolean()),
  }))),
});
