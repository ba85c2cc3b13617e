import { Type, type Static } from 'typebox';
import { inOrder } from '../../schemas/common.js';

/** A parameter of a provider (Unleash's addon definition): what the UI's form shows and what a configuration must carry. */
const ParameterDefinition = Type.Object({
  name: Type.String(),
  displayName: Type.String(),
  type: Type.String({ description: '`url`, `text`, `textfield`' }),
  description: Type.Optional(Type.String()),
  placeholder: Type.Optional(Type.String()),
  required: Type.Boolean(),
  sensitive: Type.Boolean({ description: 'Shown as `*****` once stored' }),
});

const TagTypeDefinition = Type.Object({ name: Type.String(), description: Type.String(), icon: Type.String() });

/** A provider as `GET /api/admin/addons` lists it; keys in the order each definition declares them (providers.ts). */
export const ProviderSchema = Type.Object({
  name: Type.String(),
  displayName: Type.String(),
  description: Type.String(),
  documentationUrl: Type.String(),
  howTo: Type.Optional(Type.String()),
  deprecated: Type.Optional(Type.String({ description: 'Set: new configurations of it are refused' })),
  alerts: Type.Optional(Type.Array(Type.Object({
    type: Type.String(), text: Type.String(), link: Type.Optional(Type.Object({ url: Type.String(), title: Type.String() })),
  }))),
  installation: Type.Optional(Type.Object({ url: Type.String(), title: Type.String(), helpText: Type.String() })),
  parameters: Type.Array(ParameterDefinition),
  events: Type.Array(Type.String()),
  tagTypes: Type.Optional(Type.Array(TagTypeDefinition)),
}, { additionalProperties: true });

export type ProviderDefinition = Static<typeof ProviderSchema>;

const ParameterValue = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);

/** Unleash's addonCreateUpdateSchema: the four required keys; a parameter's value is checked by the service (its message names it). */
export const AddonBody = Type.Object({
  provider: Type.String({ description: 'One of the providers; URL-friendly' }),
  enabled: Type.Boolean(),
  description: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'null is stored as an empty string' })),
  parameters: Type.Record(Type.String(), Type.Unknown(), { description: "The provider's parameters: strings, numbers or booleans" }),
  events: Type.Array(Type.String(), { description: 'Event types delivered; any string is accepted' }),
  projects: Type.Optional(Type.Array(Type.String(), { description: 'Empty or `*`: every project' })),
  environments: Type.Optional(Type.Array(Type.String(), { description: 'Empty or `*`: every environment' })),
});

export type AddonInput = Static<typeof AddonBody>;

const addonProperties = {
  id: Type.Integer(),
  provider: Type.String(),
  enabled: Type.Boolean(),
  description: Type.Union([Type.String(), Type.Null()]),
  parameters: Type.Record(Type.String(), ParameterValue, { description: 'Sensitive values as `*****` (not in the answers to writes)' }),
  events: Type.Array(Type.String()),
  projects: Type.Array(Type.String()),
  environments: Type.Array(Type.String()),
};

/** A configuration as read, and as a PUT answers it (with its secrets, as Unleash's). */
export const AddonSchema = inOrder(Type.Object({ ...addonProperties, createdAt: Type.String({ format: 'date-time' }) }));

/** The answer to a creation: Unleash's has no `createdAt` (measured). */
export const CreatedAddonSchema = inOrder(Type.Object(addonProperties));

export const AddonListSchema = Type.Object({ addons: Type.Array(AddonSchema), providers: Type.Array(ProviderSchema) });

export const AddonParams = Type.Object({ id: Type.Integer({ description: 'An addon configuration id' }) });

/** The delivery log's id is checked by the handler: Unleash answers its own 400 for a non-number. */
export const AddonEventsParams = Type.Object({ id: Type.String({ description: 'An addon configuration id' }) });

export const AddonEventsQuery = Type.Object({
  limit: Type.Optional(Type.String({ description: '1–100; anything else is 50' })),
  offset: Type.Optional(Type.String({ description: 'Positive; anything else is 0' })),
});

/** One delivery attempt, as Unleash lists its integration events; `event` and `details` in jsonb key order. */
export const IntegrationEventSchema = inOrder(Type.Object({
  id: Type.String({ description: 'Increasing; a string, as Unleash writes its bigint' }),
  integrationId: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
  state: Type.Enum(['success', 'failed', 'successWithErrors'], { type: 'string' }),
  stateDetails: Type.String(),
  event: Type.Record(Type.String(), Type.Unknown()),
  details: Type.Record(Type.String(), Type.Unknown(), { description: '{url, body, contentType}' }),
}));

export const IntegrationEventListSchema = Type.Object({ integrationEvents: Type.Array(IntegrationEventSchema) });

export type AddonView = Static<typeof AddonSchema>;
export type CreatedAddonView = Static<typeof CreatedAddonSchema>;
export type IntegrationEventView = Static<typeof IntegrationEventSchema>;
