import { Type } from 'typebox';
import { FeedbackSchema } from '../users/schemas.js';

export const LoginBody = Type.Object({
  username: Type.String({ minLength: 1, description: 'Username or e-mail address (any case)' }),
  password: Type.String({ minLength: 1 }),
}, { additionalProperties: true });

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

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
  feedback: Type.Array(FeedbackSchema, { description: "The UI's feedback prompts the person answered (POST /api/admin/feedback); empty for an API token" }),
  splash: Type.Object({}, { additionalProperties: true, description: "Splash screens seen, each `true` (read by Unleash's UI; the admin token's is empty)" }),
  sessionExpiresAt: Nullable(Type.String({ format: 'date-time', description: 'null for the admin token and a personal access token' })),
});
