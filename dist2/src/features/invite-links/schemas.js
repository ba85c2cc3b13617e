import { Type } from 'typebox';
import { RoleSchema } from '../users/schemas.js';
export const CreateInviteLinkBody = Type.Object({
    name: Type.String({ description: 'Display name; duplicates allowed' }),
    expiresAt: Type.String({ format: 'date-time', description: 'Capped at one calendar month from now; a zone-less value is UTC' }),
}, { additionalProperties: false });
export const UpdateInviteLinkBody = Type.Object({
    name: Type.Optional(Type.String()),
    expiresAt: Type.Optional(Type.String({ format: 'date-time', description: 'Not capped on update' })),
    enabled: Type.Optional(Type.Boolean()),
}, { additionalProperties: false, description: 'At least one of the properties' });
export const InviteLinkUserSchema = Type.Object({
    id: Type.Integer(),
    name: Type.Union([Type.String(), Type.Null()]),
    username: Type.Union([Type.String(), Type.Null()]),
});
export const InviteLinkSchema = Type.Object({
    secret: Type.String({ description: '32 lowercase hex characters' }),
    name: Type.String(),
    url: Type.String({ description: 'The link to share: {BASE_URL}/new-user?invite={secret}' }),
    expiresAt: Type.String({ format: 'date-time' }),
    enabled: Type.Boolean({ description: 'Always false once the token has expired' }),
    createdAt: Type.String({ format: 'date-time' }),
    createdBy: Type.String(),
    role: RoleSchema,
    users: Type.Array(InviteLinkUserSchema, { description: 'Users who joined through the link' }),
});
export const InviteLinkListSchema = Type.Object({ tokens: Type.Array(InviteLinkSchema) });
export const InviteTokenParams = Type.Object({ token: Type.String() });
export const SignupBody = Type.Object({
    name: Type.String({ minLength: 1 }),
    email: Type.String({ minLength: 1 }),
    password: Type.Optional(Type.String({ description: 'Optional; when given it must pass the strength check. Stored only as a hash.' })),
    username: Type.Optional(Type.String()),
}, { additionalProperties: false });
//# sourceMappingURL=schemas.js.map