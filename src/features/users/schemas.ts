import { Type, type Static } from 'typebox';
/**
 * A feedback answer as Unleash shows it (`POST /api/admin/feedback`, `GET /api/admin/user`'s
 * `feedback`), keys in its order.
 */
export const FeedbackSchema = Type.Object({
  neverShow: Type.Boolean(),
  feedbackId: Type.String(),
  given: Type.String({ format: 'date-time' }),
  userId: Type.Integer(),
});
export type FeedbackView = Static<typeof FeedbackSchema>;

/**
 * What the UI sends: `feedbackId` required; other keys are accepted and ignored, and `given` is
 * always now (measured: `given: 2020-01-01…` and `extra: 1` → 200, `given` the time of the call).
 */
export const FeedbackCreateBody = Type.Object({
  feedbackId: Type.String(),
  neverShow: Type.Optional(Type.Boolean()),
}, { additionalProperties: true });
export const FeedbackUpdateBody = Type.Object({
  neverShow: Type.Optional(Type.Boolean()),
}, { additionalProperties: true });
export const FeedbackParams = Type.Object({ id: Type.String() });

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

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

const DescribedRoleSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  type: Type.String({ description: 'root for root roles' }),
  description: Type.String(),
});

/** Unleash's profileSchema, in its key order. */
export const ProfileSchema = Type.Object({
  projects: Type.Array(Type.String(), { description: 'Projects the person is a member of: a root role is held on the default project' }),
  groups: Type.Array(Type.Object({}, { additionalProperties: true }), { description: 'Always empty (no groups in the open-source server)' }),
  rootRole: DescribedRoleSchema,
  subscriptions: Type.Array(Type.String(), { description: 'E-mail subscriptions' }),
  features: Type.Array(Type.Object({}, { additionalProperties: true }), { description: 'Deprecated; always empty' }),
  canChangePassword: Type.Boolean({ description: 'Whether the person has a password of their own to change' }),
});

export const UserRolesQuery = Type.Object({
  projectId: Type.Optional(Type.String({ description: 'The project to list the roles in; without it the answer is a 400 with no body (as Unleash)' })),
});

export const UserRolesSchema = Type.Object({
  version: Type.Literal(1),
  roles: Type.Array(Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    type: Type.String(),
    project: Type.String({ description: 'Root roles are held on the default project, whichever project was asked' }),
    description: Type.String(),
  })),
});

/** Unleash's passwordSchema: no other property. */
export const ChangePasswordBody = Type.Object({
  password: Type.String({ description: 'The new password (OWASP strength rules, not one of the last five)' }),
  confirmPassword: Type.Optional(Type.String({ description: 'Must equal password' })),
  oldPassword: Type.Optional(Type.String({ description: 'The current password; required' })),
}, { additionalProperties: false });
