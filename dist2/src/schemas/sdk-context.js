import { Type } from 'typebox';
/**
 * The fields of Unleash's `sdkContextSchema` but `appName` (required by the playground, optional
 * in the frontend API's POST body): declared strings, so numbers and booleans are coerced
 * (docs/rules.md §1.3); any other field is free-form.
 */
export const SDK_CONTEXT_FIELDS = {
    currentTime: Type.Optional(Type.String({ format: 'date-time' })),
    environment: Type.Optional(Type.String({ deprecated: true })),
    properties: Type.Optional(Type.Object({}, { additionalProperties: Type.String() })),
    remoteAddress: Type.Optional(Type.String()),
    sessionId: Type.Optional(Type.String()),
    userId: Type.Optional(Type.String()),
};
//# sourceMappingURL=sdk-context.js.map