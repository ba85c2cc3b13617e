import { Type } from 'typebox';
export const CreateApiTokenBody = Type.Object({
    tokenName: Type.String({ minLength: 1 }),
    type: Type.String({ description: 'client, backend or frontend (case-insensitive)' }),
    environment: Type.Optional(Type.String({ minLength: 1 })),
    projects: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })),
    project: Type.Optional(Type.String({ minLength: 1 })),
    expiresAt: Type.Optional(Type.String({ format: 'date-time' })),
}, { additionalProperties: false });
export const ApiTokenSchema = Type.Object({
    tokenName: Type.String(),
    environment: Type.String(),
    projects: Type.Array(Type.String()),
    secret: Type.String({ description: 'Shown in full only in the creation response' }),
    type: Type.String(),
    alias: Type.Union([Type.String(), Type.Null()]),
    project: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    secure: Type.Boolean(),
    expiresAt: Type.Optional(Type.String({ format: 'date-time' })),
});
export const ApiTokenListSchema = Type.Object({ tokens: Type.Array(ApiTokenSchema) });
export const TokenParams = Type.Object({ token: Type.String() });
//# sourceMappingURL=schemas.js.map