/**
 * OFREP's request and response shapes (OpenFeature Remote Evaluation Protocol 0.3,
 * `service/openapi.yaml` of open-feature/protocol), as Vane answers them; the mapping from
 * Unleash's flags is docs/rules.md §10.
 */
import { Type } from 'typebox';
export const OFREP_TAGS = ['OFREP'];
/** Reasons Vane gives (§10.4). OFREP lists STATIC and UNKNOWN too, and OpenFeature DEFAULT, which Vane uses. */
export const REASONS = ['TARGETING_MATCH', 'SPLIT', 'DISABLED', 'DEFAULT'];
export const ERROR_CODES = ['FLAG_NOT_FOUND', 'PARSE_ERROR', 'TARGETING_KEY_MISSING', 'INVALID_CONTEXT', 'GENERAL'];
/** A response schema with response headers for the OpenAPI document (@fastify/swagger reads `headers`). */
function withHeaders(schema, headers) {
    return Type.Unsafe({ ...schema, headers });
}
export const OfrepContext = Type.Record(Type.String(), Type.Unknown(), {
    description: 'The evaluation context. `targetingKey` is the userId unless `userId` is given; numbers and booleans become strings; objects, arrays and null are left out (docs/rules.md §10.2). No field is required.',
});
export const EvaluationRequest = Type.Object({ context: Type.Optional(OfrepContext) }, { additionalProperties: true, description: 'A JSON object; a missing `context` is an empty one. Not an object: 400 PARSE_ERROR; a `context` that is not an object: 400 INVALID_CONTEXT.' });
export const FlagKeyParams = Type.Object({ key: Type.String({ description: 'The flag name' }) });
export const BulkQuery = Type.Object({
    flagConfigEtag: Type.Optional(Type.String({ description: 'Sent by providers on a re-fetch an event asked for; Vane always answers from its current configuration, so it is accepted and not needed' })),
    flagConfigLastModified: Type.Optional(Type.String({ description: 'Likewise accepted and not needed' })),
});
export const BulkHeaders = Type.Object({
    'if-none-match': Type.Optional(Type.String({ description: 'The ETag of an earlier answer for the same context: 304 when the answer is the same' })),
});
const Metadata = Type.Record(Type.String(), Type.Union([Type.Boolean(), Type.String(), Type.Number()]), {
    description: 'Variant flags only: `enabled` (the flag\'s enabled state for the context) and, when the value is the variant name, the variant\'s `payloadType` and `payload`',
});
export const EvaluationSuccess = Type.Object({
    key: Type.String(),
    value: Type.Optional(Type.Unknown({
        description: 'boolean (a flag without variants: its enabled state), string, number or object (a flag with variants, §10.3); absent: use the code default (no variant for this context)',
    })),
    reason: Type.Enum([...REASONS], { type: 'string' }),
    variant: Type.Optional(Type.String({ description: 'The name of the variant the context got' })),
    metadata: Type.Optional(Metadata),
}, { description: 'One flag evaluated for the context' });
export const EvaluationFailure = Type.Object({
    key: Type.Optional(Type.String({ description: 'The flag asked for (single-flag evaluation only)' })),
    errorCode: Type.Enum([...ERROR_CODES], { type: 'string' }),
    errorDetails: Type.String(),
}, { description: 'An error: FLAG_NOT_FOUND (404), PARSE_ERROR or INVALID_CONTEXT (400), GENERAL otherwise (401, 403, 415, 429, 500, 503)' });
export const EventStream = Type.Object({
    type: Type.Literal('sse'),
    endpoint: Type.Object({
        requestUri: Type.String({ description: 'Path of the event stream on the server the provider calls (the provider adds its own origin)' }),
    }),
});
export const BulkEvaluationSuccess = Type.Object({
    flags: Type.Array(EvaluationSuccess, { description: 'Every flag of the token\'s projects, in creation order; no per-flag failures' }),
    eventStreams: Type.Array(EventStream, { description: 'One server-sent-event stream that says `refetchEvaluation` whenever a flag of the token\'s projects or a segment changes' }),
}, { description: 'Every flag evaluated for the context' });
const ETAG_HEADER = { ETag: { type: 'string', description: 'Send it back in If-None-Match: 304 while the answer for this context is unchanged' } };
const RETRY_AFTER = { 'Retry-After': { type: 'integer', description: 'Seconds to wait before the next request' } };
export const BulkOk = withHeaders(BulkEvaluationSuccess, ETAG_HEADER);
export const NotModified = Type.Unsafe({ type: 'null', description: 'The answer for this context is unchanged (If-None-Match matched): no body', headers: ETAG_HEADER });
/** Every error status an OFREP route answers, documented with the one error body. */
export function ofrepErrors(...codes) {
    return Object.fromEntries(codes.map((code) => [code, code === 429 || code === 503 ? withHeaders(EvaluationFailure, RETRY_AFTER) : EvaluationFailure]));
}
//# sourceMappingURL=schemas.js.map