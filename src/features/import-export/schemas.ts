/**
 * The export and import bodies, as Unleash 8.2's `exportQuerySchema`, `importTogglesSchema` (its
 * `data` is `exportResultSchema`) and `importTogglesValidateSchema` declare them: closed objects
 * with the same required keys, so a file exported by either server passes both.
 */
import { Type, type Static } from 'typebox';
import { ConstraintInput } from '../constraints/index.js';
import { StrategyVariantBody, VariantBody } from '../flags/schemas.js';
import { inOrder, NullableString } from '../../schemas/common.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Open = (description: string) => Type.Object({}, { additionalProperties: true, description });
const closed = { additionalProperties: false } as const;

/**
 * `exportQuerySchema`: an environment and one of `features`, `tag` or `project` (its anyOf,
 * checked by the handler so that the three are one object here; `features: []` with none of the
 * others exports every live flag).
 */
export const ExportQueryBody = Type.Object({
  environment: Type.String({ description: 'The environment to export from' }),
  downloadFile: Type.Optional(Type.Boolean({ description: 'Ignored: the answer is the same JSON either way (measured)' })),
  features: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'Flag names; empty: all (of `project` if given)' })),
  tag: Type.Optional(Type.String({ description: 'Flags carrying a tag of this value, of any type' })),
  project: Type.Optional(Type.String({ description: 'The project\'s live flags' })),
});

const Feature = Type.Object({
  name: Type.String(),
  type: Type.Optional(Type.String()),
  description: Type.Optional(NullableString()),
  archived: Type.Optional(Type.Boolean()),
  project: Type.Optional(Type.String()),
  enabled: Type.Optional(Type.Boolean()),
  stale: Type.Optional(Type.Boolean()),
  favorite: Type.Optional(Type.Boolean()),
  impressionData: Type.Optional(Type.Boolean()),
  createdAt: Type.Optional(NullableString()),
  createdBy: Type.Optional(Open('Who created it (ignored)')),
  archivedAt: Type.Optional(NullableString()),
  environments: Type.Optional(Type.Array(Open('Ignored'))),
  tags: Type.Optional(Nullable(Type.Array(Open('Ignored')))),
  children: Type.Optional(Type.Array(Type.String())),
  lifecycle: Type.Optional(Open('Ignored')),
  dependencies: Type.Optional(Type.Array(Open('Ignored'))),
  collaborators: Type.Optional(Open('Ignored')),
  links: Type.Optional(Type.Array(Open('Ignored'))),
}, closed);

const FeatureStrategy = Type.Object({
  id: Type.Optional(Type.String({ description: 'Ignored: an imported strategy gets a new id' })),
  name: Type.String(),
  title: Type.Optional(NullableString()),
  disabled: Type.Optional(Nullable(Type.Boolean())),
  featureName: Type.Optional(Type.String({ description: 'A strategy without one is skipped' })),
  sortOrder: Type.Optional(Type.Number()),
  segments: Type.Optional(Type.Array(Type.Number(), { description: 'Ids of the exporting instance, matched by name through `segments`' })),
  constraints: Type.Optional(Type.Array(ConstraintInput)),
  variants: Type.Optional(Type.Array(StrategyVariantBody)),
  parameters: Type.Optional(Type.Record(Type.String(), Type.String())),
}, closed);

const FeatureEnvironment = Type.Object({
  name: Type.String(),
  featureName: Type.Optional(Type.String()),
  environment: Type.Optional(Type.String()),
  type: Type.Optional(Type.String()),
  enabled: Type.Boolean(),
  sortOrder: Type.Optional(Type.Number()),
  variantCount: Type.Optional(Type.Number()),
  strategies: Type.Optional(Type.Array(Open('Ignored'))),
  variants: Type.Optional(Type.Array(VariantBody)),
  changeRequestIds: Type.Optional(Type.Array(Type.Number())),
  milestoneName: Type.Optional(Type.String()),
  milestoneOrder: Type.Optional(Type.Number()),
  totalMilestones: Type.Optional(Type.Number()),
  lastSeenAt: Type.Optional(NullableString()),
  hasStrategies: Type.Optional(Type.Boolean()),
  hasEnabledStrategies: Type.Optional(Type.Boolean()),
  releasePlans: Type.Optional(Type.Array(Open('Ignored'))),
  safeguards: Type.Optional(Type.Array(Open('Ignored'))),
  yes: Type.Optional(Type.Integer()),
  no: Type.Optional(Type.Integer()),
}, closed);

const LegalValue = Type.Object({ value: Type.String(), description: Type.Optional(Type.String()) }, closed);

const ContextField = Type.Object({
  name: Type.String(),
  description: Type.Optional(NullableString()),
  stickiness: Type.Optional(Type.Boolean()),
  sortOrder: Type.Optional(Type.Integer()),
  createdAt: Type.Optional(NullableString()),
  usedInFeatures: Type.Optional(Nullable(Type.Integer())),
  usedInProjects: Type.Optional(Nullable(Type.Integer())),
  legalValues: Type.Optional(Type.Array(LegalValue)),
  project: Type.Optional(Type.String()),
}, closed);

const FeatureTag = Type.Object({
  featureName: Type.String(),
  tagType: Type.Optional(Type.String({ description: 'A tag without a type is skipped' })),
  tagValue: Type.String(),
  createdByUserId: Type.Optional(Nullable(Type.Number())),
}, closed);

const TagType = Type.Object({
  name: Type.String(),
  description: Type.Optional(Type.String()),
  icon: Type.Optional(NullableString()),
  color: Type.Optional(NullableString()),
}, closed);

const Dependency = Type.Object({
  feature: Type.String(),
  enabled: Type.Optional(Type.Boolean()),
  variants: Type.Optional(Type.Array(Type.String())),
}, closed);

const FeatureDependencies = Type.Object({ feature: Type.String(), dependencies: Type.Array(Dependency) }, closed);

const FeatureLinks = Type.Object({
  feature: Type.String(),
  links: Type.Array(Type.Object({ url: Type.String(), title: Type.Optional(NullableString()) }, { additionalProperties: true })),
}, closed);

/** `exportResultSchema`: what an export answers and an import takes as `data`. */
export const ImportData = Type.Object({
  features: Type.Array(Feature),
  featureStrategies: Type.Array(FeatureStrategy),
  featureEnvironments: Type.Optional(Type.Array(FeatureEnvironment)),
  contextFields: Type.Optional(Type.Array(ContextField)),
  featureTags: Type.Optional(Type.Array(FeatureTag)),
  segments: Type.Optional(Type.Array(Type.Object({ id: Type.Number(), name: Type.String() }, closed))),
  tagTypes: Type.Array(TagType),
  dependencies: Type.Optional(Type.Array(FeatureDependencies)),
  links: Type.Optional(Type.Array(FeatureLinks, { description: 'Each listed flag\'s links replaced by these (new ids)' })),
}, closed);

export type ImportDataInput = Static<typeof ImportData>;

export const ImportBody = Type.Object({
  project: Type.String({ description: 'The project to import into' }),
  environment: Type.String({ description: 'The environment the strategies, variants and on/off go to' }),
  data: ImportData,
}, closed);

export type ImportInput = Static<typeof ImportBody>;

const ValidateItem = inOrder(Type.Object({ message: Type.String(), affectedItems: Type.Array(Type.String()) }));

export const ValidateResponse = inOrder(Type.Object({
  errors: Type.Array(ValidateItem, { description: 'What refuses the import' }),
  warnings: Type.Array(ValidateItem, { description: 'What the import will do that may surprise' }),
  permissions: Type.Array(ValidateItem, { description: 'The permissions the caller lacks for it' }),
}));

export type ValidateResult = Static<typeof ValidateResponse>;

// ---------------------------------------------------------------------------------------------
// the export's answer, in Unleash's key orders (measured)

const ExportedFeature = inOrder(Type.Object({
  name: Type.String(), description: NullableString(), type: Type.String(), project: Type.String(), stale: Type.Boolean(),
  impressionData: Type.Boolean(), archived: Type.Boolean(),
}));

const ExportedStrategy = inOrder(Type.Object({
  name: Type.String(), id: Type.String(), featureName: Type.String(), title: NullableString(),
  parameters: Open('Parameters, jsonb key order'), constraints: Type.Array(Open('A constraint, jsonb key order')),
  variants: Type.Array(Open('A strategy variant, jsonb key order')), disabled: Type.Boolean(), segments: Type.Array(Type.Number()),
}));

const ExportedEnvironment = inOrder(Type.Object({
  enabled: Type.Boolean(), featureName: Type.String(), environment: Type.String(),
  variants: Type.Array(Open('A variant, jsonb key order')), name: Type.String(),
}));

const ExportedContextField = inOrder(Type.Object({
  name: Type.String(), description: NullableString(), stickiness: Type.Boolean(), sortOrder: Type.Number(),
  legalValues: Type.Array(Open('{value, description?}')), project: Type.Optional(Type.String()),
}));

const ExportedTagType = inOrder(Type.Object({
  name: Type.String(), description: NullableString(), icon: NullableString(), color: NullableString(),
}));

const ExportedDependencies = inOrder(Type.Object({
  feature: Type.String(),
  dependencies: Type.Array(inOrder(Type.Object({ feature: Type.String(), enabled: Type.Boolean(), variants: Type.Array(Type.String()) }))),
}));

export const ExportResponse = inOrder(Type.Object({
  features: Type.Array(ExportedFeature),
  featureStrategies: Type.Array(ExportedStrategy),
  featureEnvironments: Type.Array(ExportedEnvironment),
  contextFields: Type.Array(ExportedContextField),
  featureTags: Type.Array(inOrder(Type.Object({ featureName: Type.String(), tagType: Type.String(), tagValue: Type.String() }))),
  segments: Type.Array(inOrder(Type.Object({ id: Type.Number(), name: Type.String() }))),
  tagTypes: Type.Array(ExportedTagType),
  dependencies: Type.Array(ExportedDependencies),
  links: Type.Array(Open('The links of each flag that has some: {feature, links: [{id, url, title}]}')),
}));

export type ExportResult = Static<typeof ExportResponse>;
