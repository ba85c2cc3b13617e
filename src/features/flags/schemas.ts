import { Type } from 'typebox';
import { ConstraintInput } from '../constraints/index.js';
import { FLAG_TYPES } from './rules.js';

const OpenObject = (description: string) => Type.Object({}, { additionalProperties: true, description });

export const ProjectParams = Type.Object({ projectId: Type.String() });
export const FeatureParams = Type.Object({ projectId: Type.String(), featureName: Type.String() });
export const EnvironmentParams = Type.Object({ projectId: Type.String(), featureName: Type.String(), environment: Type.String() });
export const StrategyParams = Type.Object({
  projectId: Type.String(), featureName: Type.String(), environment: Type.String(), strategyId: Type.String(),
});
export const DependencyParams = Type.Object({ projectId: Type.String(), featureName: Type.String(), parent: Type.String() });
export const ReviveParams = Type.Object({ featureName: Type.String() });

/** `createFeatureSchema`: open at the top level, closed tag objects (docs/rules.md §6). */
export const CreateFeatureBody = Type.Object(
  {
    name: Type.String(),
    type: Type.Optional(Type.String({ enum: [...FLAG_TYPES] })),
    description: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    impressionData: Type.Optional(Type.Boolean()),
    tags: Type.Optional(Type.Array(Type.Object(
      {
        value: Type.String({ minLength: 2, maxLength: 50 }),
        type: Type.String({ minLength: 2, maxLength: 50 }),
        color: Type.Optional(Type.Union([Type.String({ pattern: '^#[0-9a-fA-F]{6}$' }), Type.Null()])),
      },
      { additionalProperties: false },
    ))),
  },
  { additionalProperties: true },
);

const Payload = Type.Object({
  type: Type.String({ enum: ['json', 'csv', 'string', 'number'] }),
  value: Type.String(),
});

export const StrategyVariantBody = Type.Object({
  name: Type.String(),
  weight: Type.Integer({ minimum: 0, maximum: 1000 }),
  weightType: Type.String({ enum: ['variable', 'fix'] }),
  stickiness: Type.String(),
  payload: Type.Optional(Payload),
});

/** `createFeatureStrategySchema` (docs/rules.md §1.4 S4). */
export const StrategyBody = Type.Object({
  name: Type.String(),
  title: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  disabled: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  sortOrder: Type.Optional(Type.Number()),
  constraints: Type.Optional(Type.Array(ConstraintInput)),
  variants: Type.Optional(Type.Array(StrategyVariantBody)),
  parameters: Type.Optional(Type.Record(Type.String(), Type.String())),
  segments: Type.Optional(Type.Array(Type.Number())),
});

export const VariantBody = Type.Object({
  name: Type.String(),
  weight: Type.Number({ minimum: 0, maximum: 1000 }),
  weightType: Type.Optional(Type.String({ enum: ['variable', 'fix'] })),
  stickiness: Type.Optional(Type.String()),
  payload: Type.Optional(Payload),
  overrides: Type.Optional(Type.Array(Type.Object({ contextName: Type.String(), values: Type.Array(Type.String()) }))),
});

export const VariantsBody = Type.Array(VariantBody);

export const PatchBody = Type.Array(Type.Object({
  op: Type.String({ enum: ['add', 'remove', 'replace', 'move', 'copy', 'test'] }),
  path: Type.String(),
  from: Type.Optional(Type.String()),
  value: Type.Optional(Type.Unknown()),
}));

export const VariantsBatchBody = Type.Object({
  variants: VariantsBody,
  environments: Type.Array(Type.String()),
});

export const DependencyBody = Type.Object({
  feature: Type.String(),
  enabled: Type.Optional(Type.Boolean()),
  variants: Type.Optional(Type.Array(Type.String())),
});

export const FeatureResponse = OpenObject('The feature resource (docs/rules.md §1.4 S3; creation per D6)');
export const FeatureListResponse = Type.Object({ version: Type.Number(), features: Type.Array(OpenObject('A flag of the project')) });
export const StrategyResponse = OpenObject('A strategy of a flag environment');
export const StrategyListResponse = Type.Array(OpenObject('A strategy of a flag environment'));
export const VariantsResponse = Type.Object({ version: Type.Number(), variants: Type.Array(OpenObject('An environment variant')) });
