import { Type } from 'typebox';

const StringOrList = Type.Union([Type.String(), Type.Array(Type.String())]);

export const ClientFeaturesQuery = Type.Object({
  project: Type.Optional(StringOrList),
  namePrefix: Type.Optional(Type.String()),
  tag: Type.Optional(StringOrList),
});

export const FeatureNameParams = Type.Object({ featureName: Type.String() });

const Open = { additionalProperties: true } as const;

export const ClientFeatureSchema = Type.Object(
  {
    name: Type.String(),
    type: Type.String(),
    enabled: Type.Boolean(),
    project: Type.String(),
    stale: Type.Boolean(),
    strategies: Type.Array(Type.Object({}, Open)),
    variants: Type.Array(Type.Object({}, Open)),
    description: Type.Union([Type.String(), Type.Null()]),
    impressionData: Type.Boolean(),
    dependencies: Type.Optional(Type.Array(Type.Object({}, Open))),
  },
  { description: 'A flag in the token\'s environment, as SDKs read it' },
);

export const ClientFeaturesSchema = Type.Object(
  {
    version: Type.Literal(2),
    features: Type.Array(ClientFeatureSchema),
    query: Type.Object({}, Open),
    segments: Type.Optional(Type.Array(Type.Object({}, Open))),
    meta: Type.Object({ revisionId: Type.Integer(), etag: Type.String(), queryHash: Type.String() }),
  },
  { description: 'Sent as stored bytes (gzip when accepted); 304 without a body when If-None-Match matches' },
);

export const NotModified = Type.Null({ description: 'Not modified: the ETag in If-None-Match is current' });
