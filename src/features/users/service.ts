import { createHash } from 'node:crypto';
import { buildEvents, retrying, type AuditUser, type EventInput } from '../../db/outbox/index.js';
import { badRequest, notFound, oldPasswordMismatch, passwordPreviouslyUsed, validationError, weakPassword } from '../../errors.js';
import { hashPassword, passwordProblems, verifyPassword } from './password.js';
import type { FeedbackEntry, UserDocument } from './read-model.js';
import type { FeedbackView } from './schemas.js';
import { UserExistsError, usernameKey, type UserStore } from './store.js';

/** The root roles of a fresh instance (docs/rules.md §7). */
export const ROOT_ROLES = [
  { id: 1, name: 'Admin', type: 'root' },
  { id: 2, name: 'Editor', type: 'root' },
  { id: 3, name: 'Viewer', type: 'root' },
] as const;

export const VIEWER_ROLE = ROOT_ROLES[2];

/** Unleash's descriptions of the root roles (GET /api/admin/user-admin on the reference, test/fixtures/users/profile.json). */
export const ROLE_DESCRIPTIONS: Readonly<Record<number, string>> = {
  1: 'Users with the root admin role have superuser access to Unleash and can perform any operation within the Unleash platform.',
  2: 'Users with the root editor role have access to most features in Unleash, but can not manage users and roles in the root scope. Editors will be added as project owners when creating projects and get superuser rights within the context of these projects. Users with the editor role will also get access to most permissions on the default project by default.',
  3: 'Users with the root viewer role can only read root resources in Unleash. Viewers can be added to specific projects as project members. Users with the viewer role may not view API tokens.',
};

/** A root role with its description, as the profile and the role listing show it. */
export function describedRole(id: number): { id: number; name: string; type: string; description: string } {
  const role = ROOT_ROLES.find((r) => r.id === id) ?? VIEWER_ROLE;
  return { id: role.id, name: role.name, type: role.type, description: ROLE_DESCRIPTIONS[role.id] ?? '' };
}

/**
 * How many earlier passwords a change may not reuse besides the current one: Unleash keeps the
 * last 5 (`used_passwords`); both the current and the one before were refused (measured).
 */
const PASSWORD_HISTORY = 4;

export interface PasswordChange {
  password: string;
  confirmPassword?: string;
  oldPassword?: string;
}

export interface RootRole {
  id: number;
  name: string;
  type: string;
}

export interface NewUserInput {
  name: string;
  email: string;
  username?: string;
  password?: string;
}

export interface PublicUser {
  id: number;
  name: string | null;
  email: string | null;
  username: string | null;
  imageUrl: string | null;
  loginAttempts: number;
  emailSent: boolean;
  rootRole: number;
  seenAt: string | null;
  createdAt: string;
  accountType: string;
}

/** A user as the API shows it (the seed's User, in its field order). Never the password hash. */
export function publicUser(user: UserDocument): PublicUser {
  return {
    id: user._id,
    name: user.name,
    email: user.email,
    username: user.username,
    imageUrl: user.imageUrl,
    loginAttempts: user.loginAttempts,
    emailSent: user.emailSent,
    rootRole: user.rootRole,
    seenAt: user.seenAt ? user.seenAt.toISOString() : null,
    createdAt: user.createdAt.toISOString(),
    accountType: user.accountType,
  };
}

/**
 * Accepts what a mail system accepts in practice: a dot-atom local part, `@`, and host labels of
 * letters, digits and inner hyphens (a single label such as `localhost` is allowed, as in Unleash).
 */
const EMAIL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

export function isEmail(value: string): boolean {
  return value.length <= 254 && EMAIL.test(value);
}

/** Gravatar-style avatar (size 42, retro fallback), from the SHA-256 of the e-mail as Gravatar accepts. */
export function avatarUrl(email: string): string {
  const hash = createHash('sha256').update(email.trim().toLowerCase(), 'utf8').digest('hex');
  return `https://gravatar.com/avatar/${hash}?s=42&d=retro`;
}

export interface CreateUserOptions {
  rootRole: number;
  audit: AuditUser;
  /** Secret of the invite link the user joins through (stored with the user, in the same write). */
  signupToken?: string;
  /** Further events of the same operation, stored with the user's `user-created` in one write. */
  extraEvents?: (user: PublicUser) => EventInput[];
}

/** A stored feedback answer as the API shows it. */
export function feedbackView(userId: number, entry: FeedbackEntry): FeedbackView {
  return { neverShow: entry.neverShow, feedbackId: entry.feedbackId, given: entry.given.toISOString(), userId };
}

export class UserService {
  constructor(private readonly store: UserStore) {}

  /**
   * A person changes their own password, in Unleash's order of checks (measured): the
   * confirmation and the old password present (otherwise `false`: Unleash's bodiless 400), the
   * OWASP strength, the old password, then the last passwords. No event, as in Unleash.
   */
  async changePassword(userId: number, change: PasswordChange): Promise<boolean> {
    const { password, confirmPassword, oldPassword } = change;
    if (password !== confirmPassword || oldPassword === undefined) return false;
    const problems = passwordProblems(password);
    if (problems.length > 0) throw weakPassword(problems);
    const user = await this.store.get(userId);
    if (!user) throw notFound('User not found');
    if (!user.passwordHash || !(await verifyPassword(oldPassword, user.passwordHash))) throw oldPasswordMismatch();
    const used = [...(user.passwordHistory ?? []), user.passwordHash];
    for (const hash of used) if (await verifyPassword(password, hash)) throw passwordPreviouslyUsed();
    const passwordHash = await hashPassword(password);
    await retrying(async () => {
      const current = await this.store.get(userId);
      if (!current) throw notFound('User not found');
      const history = [...(current.passwordHistory ?? []), ...(current.passwordHash ? [current.passwordHash] : [])].slice(-PASSWORD_HISTORY);
      await this.store.replace(current, { ...current, passwordHash, passwordHistory: history }, []);
    });
    return true;
  }

  /**
   * Records the person's answer to a UI feedback prompt (the CES dialog after creating a segment):
   * one entry per id, replaced in place, `neverShow` false unless sent, `given` now. No event, as
   * on Unleash (its event log showed none after `POST /api/admin/feedback`).
   */
  async giveFeedback(userId: number, feedbackId: string, neverShow: boolean | undefined): Promise<FeedbackView> {
    const entry: FeedbackEntry = { feedbackId, neverShow: neverShow ?? false, given: new Date() };
    await retrying(async () => {
      const current = await this.store.get(userId);
      if (!current) throw notFound('User not found');
      const feedback = [...(current.feedback ?? [])];
      const at = feedback.findIndex((f) => f.feedbackId === feedbackId);
      if (at === -1) feedback.push(entry);
      else feedback[at] = entry;
      await this.store.replace(current, { ...current, feedback }, []);
    });
    return feedbackView(userId, entry);
  }

  /** Records a sign-in time as the user's `seenAt` (Unleash 8.2 sets it on each password sign-in, measured; no event). A user gone meanwhile is left gone. */
  async markSeen(userId: number, at: Date): Promise<void> {
    await retrying(async () => {
      const current = await this.store.get(userId);
      if (!current) return;
      await this.store.replace(current, { ...current, seenAt: at }, []);
    });
  }

  /** Marks a splash screen seen by the user; seeing it again changes nothing. */
  async seeSplash(userId: number, splashId: string): Promise<void> {
    await retrying(async () => {
      const current = await this.store.get(userId);
      if (!current) throw notFound('User not found');
      if (current.splash?.includes(splashId)) return;
      await this.store.replace(current, { ...current, splash: [...(current.splash ?? []), splashId] }, []);
    });
  }

  async list(): Promise<PublicUser[]> {
    return (await this.store.list()).map(publicUser);
  }

  /**
   * Creates a user. Every check runs before anything is written, so a refused request stores
   * nothing: e-mail format, uniqueness of e-mail and username (checked again by the unique
   * indexes at insert), password strength. The password is kept only as an scrypt hash.
   */
  async create(input: NewUserInput, options: CreateUserOptions): Promise<PublicUser> {
    const email = input.email.trim().toLowerCase();
    if (!isEmail(email)) throw validationError(`"email" must be a valid email address. You provided "${input.email}".`);
    const username = input.username === undefined || input.username.trim() === '' ? null : input.username.trim();
    if (await this.store.exists(email, username)) throw badRequest('User already exists');
    let passwordHash: string | undefined;
    if (input.password !== undefined) {
      const problems = passwordProblems(input.password);
      if (problems.length > 0) throw badRequest(`The password is too weak. ${problems.join(' ')}`, 'OwaspValidationError');
      passwordHash = await hashPassword(input.password);
    }
    const createdAt = new Date();
    try {
      const user = await this.store.insertNew(
        (id) => ({
          _id: id,
          name: input.name,
          email,
          username,
          usernameKey: usernameKey(username, id),
          imageUrl: avatarUrl(email),
          rootRole: options.rootRole,
          seenAt: null,
          loginAttempts: 0,
          emailSent: false,
          accountType: 'User',
          createdAt,
          ...(passwordHash ? { passwordHash } : {}),
          ...(options.signupToken ? { signupToken: options.signupToken } : {}),
        }),
        (doc) => {
          const shown = publicUser(doc);
          const data = { id: shown.id, name: shown.name, email: shown.email, username: shown.username, rootRole: shown.rootRole };
          return buildEvents(options.audit, [{ type: 'user-created', data }, ...(options.extraEvents?.(shown) ?? [])], { at: createdAt });
        },
      );
      return publicUser(user);
    } catch (err) {
      if (err instanceof UserExistsError) throw badRequest('User already exists');
      throw err;
    }
  }
}
