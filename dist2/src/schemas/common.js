import { Type } from 'typebox';
/** Shared response schemas. Every route declares its responses so they are documented and fast to serialise. */
export const ErrorSchema = Type.Object({
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    message: Type.String(),
    // Detail items are declared open on purpose: the serialiser then keeps each item's own key
    // order, which differs by kind ({path, message} for "required", {message, path} for others).
    details: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true, description: '{message, path?}' }))),
}, { additionalProperties: true, $id: 'Error', description: 'Every error body: id, name, message, details' });
export const errorResponses = (...codes) => Object.fromEntries(codes.map((code) => [code, Type.Ref('Error')]));
/** Most admin routes can fail with these. */
export const ADMIN_ERRORS = [400, 401, 403, 415, 503];
export const EmptyResponse = Type.Null({ description: 'No body' });
/**
 * A response with no body at all (Unleash's for archive, revive, delete and toggles): the same
 * schema as EmptyResponse, but its static type is `undefined`, so a handler answers
 * `reply.send(undefined)`, typed, rather than `null`, which would be serialised as "null".
 */
export const NoBody = Type.Unsafe({ type: 'null', description: 'No body' });
/**
 * A response object whose keys the serializer writes in the order they are declared here.
 * fast-json-stringify writes required keys before optional ones, which would move an optional key
 * (`archivedAt`, `project`) out of Unleash's order; so the serialised schema lists no `required`,
 * while the static type keeps the declared optionality and handlers are checked against it.
 * (Responses are only serialised, never validated, so `required` has no other effect.)
 */
export function inOrder(schema) {
    const { required: _required, ...serialised } = schema;
    return Type.Unsafe(serialised);
}
/** `string | null` as one type list rather than anyOf (the serializer then needs no validation per value). */
export const NullableString = (options = {}) => Type.Unsafe({ type: ['string', 'null'], ...options });
/**
 * A 200 whose body the handler serialises itself (stored bytes of a cached document, or JSON text
 * it also streams): documented with the body's schema, typed as what the handler hands to
 * `reply.send`. Fastify sends a Buffer, and a string once the content type is set, unmodified and
 * never calls the schema's serializer (Fastify docs, Reference/Reply.md, "Strings" and "Buffers").
 */
export function preSerialized(schema) {
    return Type.Unsafe(schema);
}
//# sourceMappingURL=common.js.map