import { Type } from 'typebox';
export const LoginBody = Type.Object({
    username: Type.String({ minLength: 1, description: 'Username or e-mail address (any case)' }),
    password: Type.String({ minLength: 1 }),
}, { additionalProperties: true });
const Nullable = (schema) => Type.Union([schema, Type.Null()]);
/** The caller as `GET /api/admin/user` shows it: a person, or the admin token (id -42, no e-mail). */
export const CurrentUserSchema = Type.Object({
    user: Type.Object({
        id: Type.Integer(),
        name: Nullable(Type.String()),
        email: Nullable(Type.String()),
        username: Nullable(Type.String()),
        imageUrl: Nullable(Type.String()),
        rootRole: Type.Integer({ description: '1 Admin, 2 Editor, 3 Viewer' }),
        rootRoleName: Type.String(),
        accountType: Type.String(),
        seenAt: Nullable(Type.String({ format: 'date-time' })),
        createdAt: Nullable(Type.String({ format: 'date-time' })),
    }),
    permissions: Type.Array(Type.Object({ permission: Type.String() }), {
        description: 'Root permissions held (["ADMIN"] for admins), so pages can show or hide actions',
    }),
    sessionExpiresAt: Nullable(Type.String({ format: 'date-time' })),
});
//# sourceMappingURL=schemas.js.map