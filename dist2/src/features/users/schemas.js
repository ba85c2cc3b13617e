import { Type } from 'typebox';
const Nullable = (schema) => Type.Union([schema, Type.Null()]);
export const RoleSchema = Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    type: Type.String({ description: 'root for root roles' }),
});
export const UserSchema = Type.Object({
    id: Type.Integer({ minimum: 1 }),
    name: Nullable(Type.String()),
    email: Type.String({ description: 'Lower-cased; unique' }),
    username: Nullable(Type.String()),
    imageUrl: Nullable(Type.String()),
    loginAttempts: Type.Integer(),
    emailSent: Type.Boolean(),
    rootRole: Type.Integer({ description: 'Id of the root role (3 = Viewer)' }),
    seenAt: Nullable(Type.String({ format: 'date-time' })),
    createdAt: Type.String({ format: 'date-time' }),
    accountType: Type.String(),
}, { description: 'A user. The password, if any, is stored only as a hash and never returned.' });
export const UserListSchema = Type.Object({
    users: Type.Array(UserSchema),
    rootRoles: Type.Array(RoleSchema),
});
//# sourceMappingURL=schemas.js.map