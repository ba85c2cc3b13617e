import { Type } from 'typebox';
const StringOrList = Type.Union([Type.String(), Type.Array(Type.String())]);
export const ClientFeaturesQuery = Type.Object({
    project: Type.Optional(StringOrList),
    namePrefix: Type.Optional(Type.String()),
    tag: Type.Optional(StringOrList),
});
export const FeatureNameParams = Type.Object({ featureName: Type.String() });
const Open = { additionalProperties: true };
/** A variant as SDKs read it (client/features.ts variantView); payload and overrides only when set. */
const ClientVariant = Type.Object({
    name: Type.String(),
    weight: Type.Number(),
    payload: Type.Optional(Type.Object({ type: Type.String(), value: Type.String() })),
    overrides: Type.Optional(Type.Array(Type.Object({ contextName: Type.String(), values: Type.Array(Type.String()) }))),
    stickiness: Type.String(),
    weightType: Type.String(),
}, Open);
/** A strategy as SDKs read it: `segments` only when not inlined (delta API, client spec v5+). */
const ClientStrategy = Type.Object({
    name: Type.String(),
    constraints: Type.Array(Type.Object({}, Open)),
    parameters: Type.Record(Type.String(), Type.String()),
    variants: Type.Array(Type.Object({}, Open)),
    segments: Type.Optional(Type.Array(Type.Integer())),
}, Open);
export const ClientFeatureSchema = Type.Object({
    name: Type.String(),
    type: Type.String(),
    enabled: Type.Boolean(),
    project: Type.String(),
    stale: Type.Boolean(),
    strategies: Type.Array(ClientStrategy),
    variants: Type.Array(ClientVariant),
    description: Type.Union([Type.String(), Type.Null()]),
    impressionData: Type.Boolean(),
    dependencies: Type.Optional(Type.Array(Type.Object({
        feature: Type.String(), enabled: Type.Boolean(), variants: Type.Optional(Type.Array(Type.String())),
    }))),
}, { description: 'A flag in the token\'s environment, as SDKs read it' });
/** A segment as the delta API sends it. */
const DeltaSegment = Type.Object({ id: Type.Integer(), name: Type.String(), constraints: Type.Array(Type.Object({}, Open)) });
/**
 * The events of the delta API and stream (Unleash 8.2's). Declared as a union for /docs and the
 * handlers' types; the bodies themselves are written by JSON.stringify (the stream needs the text too).
 */
const DeltaEvent = Type.Union([
    Type.Object({ eventId: Type.Integer(), type: Type.Literal('hydration'), features: Type.Array(ClientFeatureSchema), segments: Type.Array(DeltaSegment) }),
    Type.Object({ eventId: Type.Integer(), type: Type.Literal('feature-updated'), feature: ClientFeatureSchema }),
    Type.Object({ eventId: Type.Integer(), type: Type.Literal('feature-removed'), featureName: Type.String(), project: Type.String() }),
    Type.Object({ eventId: Type.Integer(), type: Type.Literal('segment-updated'), segment: DeltaSegment }),
    Type.Object({ eventId: Type.Integer(), type: Type.Literal('segment-removed'), segmentId: Type.Integer() }),
]);
export const DeltaSchema = Type.Object({ events: Type.Array(DeltaEvent) });
export const ClientFeaturesSchema = Type.Object({
    version: Type.Literal(2),
    features: Type.Array(ClientFeatureSchema),
    query: Type.Object({}, Open),
    segments: Type.Optional(Type.Array(Type.Object({}, Open))),
    meta: Type.Object({ revisionId: Type.Integer(), etag: Type.String(), queryHash: Type.String() }),
}, { description: 'Sent as stored bytes (gzip when accepted); 304 without a body when If-None-Match matches' });
export const NotModified = Type.Null({ description: 'Not modified: the ETag in If-None-Match is current' });
//# sourceMappingURL=schemas.js.map