import { Type, type Static } from 'typebox';
import { inOrder, NullableString } from '../../schemas/common.js';
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
  email: Nullable(Type.String({ description: 'Lower-cased; unique; null for a user made with a username only' })),
  username: Nullable(Type.String()),
  imageUrl: Nullable(Type.String()),
  loginAttempts: Type.Integer(),
  emailSent: Type.Boolean(),
  rootRole: Type.Integer({ description: 'Id of the root role (3 = Viewer)' }),
  seenAt: Nullable(Type.String({ format: 'date-time' })),
  createdAt: Type.String({ format: 'date-time' }),
  accountType: Type.String(),
}, { description: 'A user. The password, if any, is stored only as a hash and never returned.' });

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

/** A root role as Unleash names it: its id, or its name (the answer echoes what was sent). */
const RootRoleInput = Type.Union([
  Type.Integer({ minimum: 0 }),
  Type.Enum(['Admin', 'Editor', 'Viewer', 'Owner', 'Member', 'Reader'], { type: 'string' }),
], { description: 'A root role id (1 Admin, 2 Editor, 3 Viewer) or name; the project roles are refused (400 Could not find rootRole=…)' });

/**
 * A user as Unleash 8.2's admin routes show it (its User object, measured), keys in its order:
 * name, username and e-mail are left out when the user has none; `rootRole`, `inviteLink` and
 * `emailSent` only where the operation adds them.
 */
export const AdminUserSchema = inOrder(Type.Object({
  accountType: Type.Enum(['User', 'Service Account'], { type: 'string' }),
  id: Type.Integer(),
  name: Type.Optional(Type.String()),
  username: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  imageUrl: Type.String({ description: 'Gravatar of the e-mail, else the username, else the id' }),
  seenAt: NullableString({ description: 'The last password sign-in' }),
  loginAttempts: Type.Optional(Type.Integer({ minimum: 0 })),
  createdAt: Type.Optional(Type.String({ format: 'date-time' })),
  scimId: Type.Null(),
  seatType: Type.Null(),
  companyRole: Type.Null(),
  productUpdatesEmailConsent: Type.Null(),
  rootRole: Type.Optional(Type.Union([Type.Integer(), Type.String()], { description: 'As sent when the operation named it (a name stays a name)' })),
  inviteLink: Type.Optional(Type.String({ description: 'The live welcome or reset link ({BASE_URL}/new-user?token=…), or ""' })),
  emailSent: Type.Optional(Type.Boolean({ description: 'Always false: Vane sends no e-mail' })),
}));
export type AdminUserView = Static<typeof AdminUserSchema>;

/** Unleash's usersSchema: every user (not deleted) with its root role and live link, and the root roles described. */
export const AdminUserListSchema = inOrder(Type.Object({
  users: Type.Array(AdminUserSchema),
  rootRoles: Type.Array(inOrder(Type.Object({ id: Type.Integer(), name: Type.String(), type: Type.String(), description: Type.String() }))),
}));

export const UserIdParams = Type.Object({ id: Type.Integer({ description: 'A user id' }) });

export const CreateUserBody = Type.Object({
  username: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  password: Type.Optional(Type.String({ description: 'Must pass the strength test (docs/rules.md D22)' })),
  rootRole: RootRoleInput,
  sendEmail: Type.Optional(Type.Boolean({ description: 'Accepted; Vane sends no e-mail, so `emailSent` is false' })),
}, { additionalProperties: false, description: 'A username or an e-mail address is required' });

/** Unleash's updateUserSchema: other keys are accepted and ignored (measured: `username`, `extra` → 200). */
export const UpdateUserBody = Type.Object({
  email: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  rootRole: Type.Optional(RootRoleInput),
}, { additionalProperties: true });

/** Unleash's passwordSchema as the admin routes take it (`oldPassword` and `confirmPassword` are ignored there). */
export const AdminPasswordBody = Type.Object({
  password: Type.String(),
  oldPassword: Type.Optional(Type.String()),
  confirmPassword: Type.Optional(Type.String()),
}, { additionalProperties: false });

export const ResetPasswordBody = Type.Object({ id: Type.String({ description: 'The e-mail address of the person (any case)' }) }, { additionalProperties: false });
export const ResetPasswordSchema = Type.Object({ resetPasswordUrl: Type.String({ description: '{BASE_URL}/reset-password?token=…, valid 24 hours' }) });

export const SearchQuery = Type.Object({
  q: Type.Optional(Type.String({ description: 'At least 2 characters: a part of the name, or the start of the username or e-mail (any case; % and _ are wildcards)' })),
});

/** A search hit: the user without its login count, creation time and root role (Unleash's public columns). */
export const UserSearchSchema = Type.Array(AdminUserSchema);

export const AccessSchema = inOrder(Type.Object({
  users: Type.Array(inOrder(Type.Object({
    id: Type.Integer(),
    name: Type.Optional(Type.String()),
    username: Type.Optional(Type.String()),
    email: Type.Optional(Type.String()),
    accountType: Type.String(),
  }))),
  groups: Type.Array(Type.Object({}, { additionalProperties: true }), { description: 'Always empty (no groups in the open-source server)' }),
}));

export const AdminCountSchema = inOrder(Type.Object({
  password: Type.Integer({ description: 'Admins with a password' }),
  noPassword: Type.Integer({ description: 'Admins without one' }),
  service: Type.Integer({ description: 'Admin service accounts: always 0' }),
}));

export const InactiveUsersSchema = inOrder(Type.Object({
  version: Type.Literal(1),
  inactiveUsers: Type.Array(inOrder(Type.Object({
    id: Type.Integer(),
    name: NullableString(),
    email: NullableString(),
    username: NullableString(),
    seenAt: NullableString({ description: 'The last password sign-in' }),
    createdAt: Type.String({ format: 'date-time' }),
    patSeenAt: NullableString({ description: 'When one of their personal access tokens was last used (one entry per such token)' }),
  }))),
}));
export type InactiveUsersView = Static<typeof InactiveUsersSchema>;

export const IdsBody = Type.Object({ ids: Type.Array(Type.Number({ minimum: 0 })) }, { additionalProperties: false });

/** Unleash's tokenUserSchema: who a reset or welcome link is for. */
export const TokenUserSchema = inOrder(Type.Object({
  token: Type.String(),
  createdBy: Type.String(),
  email: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  id: Type.Integer(),
  role: inOrder(Type.Object({ id: Type.Integer(), description: Type.String(), type: Type.String(), name: Type.String() })),
}));
export type TokenUserView = Static<typeof TokenUserSchema>;

export const TokenQuery = Type.Object({ token: Type.Optional(Type.String()) });
export const ResetWithTokenBody = Type.Object({ token: Type.String(), password: Type.String() }, { additionalProperties: false });
export const ValidatePasswordBody = Type.Object({ password: Type.String() }, { additionalProperties: false });
export const EmailBody = Type.Object({ email: Type.String() }, { additionalProperties: false });
