import { Type, type Static } from 'typebox';
import { ConstraintInput, ConstraintOutput } from '../constraints/index.js';
import { NullableString, inOrder } from '../../schemas/common.js';
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
  weightType: Type.Enum(['variable', 'fix'], { type: 'string' }),
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

/** `PUT` of a flag: every field optional, an absent one reset to its default. */
export const UpdateFeatureBody = Type.Object({
  name: Type.Optional(Type.String()),
  description: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  type: Type.Optional(Type.String({ enum: [...FLAG_TYPES] })),
  impressionData: Type.Optional(Type.Boolean()),
  stale: Type.Optional(Type.Boolean()),
  archived: Type.Optional(Type.Boolean()),
  project: Type.Optional(Type.String()),
});

export const ValidateNameBody = Type.Object({
  name: Type.String(),
  projectId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

export const StaleBody = Type.Object({
  features: Type.Array(Type.String(), { description: 'Flag names' }),
  stale: Type.Boolean(),
});

/** Unleash's `patchSchema`, its operations in its order (the 400 lists them: measured). */
export const PatchBody = Type.Array(Type.Object({
  op: Type.String({ enum: ['add', 'remove', 'replace', 'copy', 'move', 'test'] }),
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

// ---- responses. Each view has its own key order (Unleash's; docs/rules.md §1.4 S3/S4, §4.5), so
// each is its own schema, written with `inOrder`; views.ts builds values of their static types.

/** Strategy variants are stored in JSONB key order (rules.ts jsonbOrder); extra keys are kept. */
const StrategyVariantOutput = inOrder(Type.Object({
  name: Type.String(),
  weight: Type.Number(),
  payload: Type.Optional(Type.Object({ type: Type.String(), value: Type.String() })),
  stickiness: Type.String(),
  weightType: Type.String({ enum: ['variable', 'fix'] }),
}, { additionalProperties: true }));

const strategyFields = {
  id: Type.String(),
  name: Type.String(),
  title: NullableString(),
  disabled: Type.Boolean(),
  sortOrder: Type.Number(),
  constraints: Type.Array(ConstraintOutput),
  parameters: Type.Record(Type.String(), Type.String()),
  variants: Type.Array(StrategyVariantOutput),
  segments: Type.Array(Type.Number()),
};
const f = strategyFields;

/** "add strategy" and "get strategy". */
export const StrategyResponse = inOrder(Type.Object({
  id: f.id, name: f.name, constraints: f.constraints, parameters: f.parameters, variants: f.variants,
  segments: f.segments, title: f.title, disabled: f.disabled, sortOrder: f.sortOrder,
}, { description: 'A strategy of a flag environment' }));
export type StrategyView = Static<typeof StrategyResponse>;

/** "update strategy", and the data of strategy events. */
export const StrategyEventResponse = inOrder(Type.Object({
  id: f.id, name: f.name, title: f.title, disabled: f.disabled, constraints: f.constraints,
  parameters: f.parameters, variants: f.variants, sortOrder: f.sortOrder, segments: f.segments,
}, { description: 'A strategy of a flag environment (as its events show it)' }));
export type StrategyEventView = Static<typeof StrategyEventResponse>;

/** An element of the strategy list. */
const StrategyListItem = inOrder(Type.Object({
  id: f.id, name: f.name, constraints: f.constraints, parameters: f.parameters, variants: f.variants,
  title: f.title, disabled: f.disabled, sortOrder: f.sortOrder, milestoneId: Type.Null(), segments: f.segments,
}, { description: 'A strategy of a flag environment' }));
export const StrategyListResponse = Type.Array(StrategyListItem);
export type StrategyListView = Static<typeof StrategyListItem>;

/** A strategy inside the feature resource. */
const FeatureStrategy = inOrder(Type.Object({
  name: f.name, constraints: f.constraints, variants: f.variants, parameters: f.parameters,
  segments: f.segments, sortOrder: f.sortOrder, id: f.id, title: f.title, disabled: f.disabled,
}));
export type FeatureStrategyView = Static<typeof FeatureStrategy>;

const FeatureEnvironment = inOrder(Type.Object({
  name: Type.String(),
  lastSeenAt: NullableString({ description: 'From client metrics' }),
  enabled: Type.Boolean(),
  yes: Type.Integer(),
  no: Type.Integer(),
  type: Type.String(),
  sortOrder: Type.Number(),
  strategies: Type.Array(FeatureStrategy),
}));
export type FeatureEnvironmentView = Static<typeof FeatureEnvironment>;

/** A strategy in the one-environment view (`GET …/environments/:environment`): no segments, the flag named. */
const EnvironmentStrategy = inOrder(Type.Object({
  id: f.id, featureName: Type.String(), title: f.title, parameters: f.parameters, constraints: f.constraints,
  variants: f.variants, sortOrder: f.sortOrder, disabled: f.disabled, name: f.name,
}));

/** `GET …/features/:featureName/environments/:environment`: one environment of a flag, without its variants. */
export const EnvironmentViewResponse = inOrder(Type.Object({
  name: Type.String({ description: 'The flag' }),
  environment: Type.String(),
  enabled: Type.Boolean(),
  strategies: Type.Array(EnvironmentStrategy),
}));
export type EnvironmentView = Static<typeof EnvironmentViewResponse>;

/** `POST …/strategies/set-sort-order`: new sortOrders by strategy id (numbers; an integer column in Unleash: applyStrategyOrder). */
export const StrategyOrderBody = Type.Array(Type.Object({
  id: Type.String(),
  sortOrder: Type.Number(),
}));

const UserRef = inOrder(Type.Object({ id: Type.Union([Type.Integer(), Type.Null()]), name: Type.String(), imageUrl: Type.String() }));

/** Unleash's eight keys of flag creation, in its order (docs/rules.md §6); they lead the created view and list items. */
const createdFields = {
  name: Type.String(),
  description: NullableString(),
  type: Type.String(),
  project: Type.String(),
  stale: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
  impressionData: Type.Boolean(),
  archived: Type.Boolean(),
};
const c = createdFields;

/** Everything after `archived` of the GET body (docs/rules.md §1.4 S3), shared with the created view. */
const tailFields = {
  archivedAt: Type.Optional(Type.String({ format: 'date-time' })),
  dependencies: Type.Array(Type.Object({
    feature: Type.String(), enabled: Type.Optional(Type.Boolean()), variants: Type.Optional(Type.Array(Type.String())),
  })),
  children: Type.Array(Type.String()),
  lifecycle: Type.Optional(inOrder(Type.Object({
    stage: Type.String(), status: Type.Optional(Type.Enum(['kept', 'discarded'], { type: 'string' })), enteredStageAt: Type.String({ format: 'date-time' }),
  }))),
  links: Type.Array(inOrder(Type.Object({ id: Type.String(), url: Type.String(), title: NullableString(), feature: Type.String() })), {
    description: 'By id (ULIDs: the order added)',
  }),
  collaborators: Type.Object({ users: Type.Array(UserRef) }),
};

/** `GET .../features/:featureName`: environments first (docs/rules.md §1.4 S3). */
export const FeatureResponse = inOrder(Type.Object({
  environments: Type.Array(FeatureEnvironment),
  name: c.name,
  favorite: Type.Optional(Type.Boolean({ description: 'Whether the signed-in user marked it (absent for an API token)' })),
  impressionData: c.impressionData, description: c.description, project: c.project, stale: c.stale,
  createdAt: c.createdAt, createdBy: UserRef, type: c.type, archived: c.archived,
  ...tailFields,
}, { description: 'The feature resource (docs/rules.md §1.4 S3)' }));
export type FeatureView = Static<typeof FeatureResponse>;

/** Flag creation (D6, docs/glossary.md): the full resource, Unleash's eight keys first. */
export const FeatureCreatedResponse = inOrder(Type.Object({
  ...createdFields,
  environments: Type.Array(FeatureEnvironment),
  createdBy: UserRef,
  ...tailFields,
}, { description: 'The feature resource, creation order (docs/rules.md §6, D6)' }));
export type FeatureCreatedView = Static<typeof FeatureCreatedResponse>;

/** A flag's update (`PUT`, `PATCH`): Unleash's eight keys only (measured). */
export const FeatureUpdatedResponse = inOrder(Type.Object({
  name: c.name, description: c.description, type: c.type, project: c.project, stale: c.stale, createdAt: c.createdAt,
  impressionData: c.impressionData,
  archivedAt: Type.Optional(Type.String({ format: 'date-time', description: 'When the flag is archived' })),
  archived: c.archived,
}, { description: 'The flag\'s own fields' }));

const FeatureListItem = inOrder(Type.Object({
  ...createdFields,
  environments: Type.Array(inOrder(Type.Object({
    name: Type.String(), enabled: Type.Boolean(), type: Type.String(), sortOrder: Type.Number(),
    variantCount: Type.Integer({ description: 'The environment\'s variants (not its strategies\')' }),
    lastSeenAt: NullableString({ description: 'From client metrics' }),
    hasStrategies: Type.Boolean(), hasEnabledStrategies: Type.Boolean(),
  }))),
}, { description: 'A flag of the project' }));
export type FeatureListItemView = Static<typeof FeatureListItem>;
export const FeatureListResponse = Type.Object({ version: Type.Number(), features: Type.Array(FeatureListItem) });

export const VariantsResponse = Type.Object({ version: Type.Number(), variants: Type.Array(OpenObject('An environment variant')) });
