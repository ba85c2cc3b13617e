import { isEmailValid } from '@hapi/address';
import { tlds } from '@hapi/tlds';
import { buildEvents, DuplicateKeyError, retrying, type AuditUser } from '../../db/outbox/index.js';
import { notFound, schemaValidationError, validationError, weakPassword } from '../../errors.js';
import { hashPassword, passwordProblems } from './password.js';
import type { UserDocument } from './read-model.js';
import type { ResetTokenStore } from './reset-tokens.js';
import type { AdminUserView, InactiveUsersView } from './schemas.js';
import { ROLE_DESCRIPTIONS, ROOT_ROLES } from './service.js';
import type { SessionEnder, TokensSeenAt } from './sources.js';
import { UserExistsError, usernameKey, type UserStore } from './store.js';
import { accessUser, adminUser, likePattern, searchedUser, userEventData } from './views.js';

/**
 * Unleash's two system users (`is_system`). Its search joins its filters to the name condition only
 * (`… AND name ILIKE … OR username ILIKE … OR email ILIKE …`), so a query that starts their
 * usernames finds them too (measured: `_%` listed -1337 and -42 first).
 */
const SYSTEM_USERS: UserDocument[] = [
  [-1337, 'Unleash System', 'unleash_system_user'],
  [-42, 'Unleash Admin Token User', 'unleash_admin_token'],
].map(([id, name, username]) => ({
  _id: id as number, name: name as string, username: username as string, email: null, usernameKey: `u:${username as string}`, imageUrl: null,
  rootRole: 3, seenAt: null, loginAttempts: 0, emailSent: false, accountType: 'User', createdAt: new Date(0),
}));

/** Unleash's `userInactivityThresholdInDays` default: who has not signed in for 180 days is inactive. */
const INACTIVE_DAYS = 180;
const DAY_MS = 86_400_000;

export type RootRoleInput = number | string;

export interface CreateUserInput {
  username?: string;
  email?: string;
  name?: string;
  password?: string;
  rootRole: RootRoleInput;
  sendEmail?: boolean;
}

export interface UpdateUserInput {
  email?: string;
  name?: string;
  rootRole?: RootRoleInput;
}

/** The e-mail check of Unleash's Joi (`email({ ignoreLength, minDomainSegments: 1 })`): a domain ending in a known TLD. */
export function isValidEmail(email: string): boolean {
  return isEmailValid(email, { ignoreLength: true, minDomainSegments: 1, tlds: { allow: tlds } });
}

/** Joi's message for an invalid e-mail, as Unleash answers it (a schema-style 400 without a path). */
function invalidEmail(email: string) {
  return schemaValidationError([{ message: `"value" must be a valid email. You provided "${email}".` }]);
}

/** The root role an id or a name names; project roles and unknown ones are Unleash's "Could not find rootRole=…". */
export function rootRoleId(input: RootRoleInput): number {
  const role = ROOT_ROLES.find((r) => (typeof input === 'number' ? r.id === input : r.name === input));
  if (!role) throw validationError(`Could not find rootRole=${input}`);
  return role.id;
}

/** How Unleash echoes the role it was sent: a number when it reads as an integer, else the name. */
function echoedRole(input: RootRoleInput): number | string {
  return Number.isInteger(Number(input)) ? Number(input) : input;
}

/**
 * The admin's user operations (`/api/admin/user-admin`), in Unleash 8.2's order of checks
 * (measured). Passwords and links are in `PasswordService`.
 */
export class UserAdminService {
  constructor(
    private readonly store: UserStore,
    private readonly tokens: ResetTokenStore,
    private readonly sessions: SessionEnder,
    private readonly tokensSeenAt: TokensSeenAt,
    private readonly baseUrl: string,
  ) {}

  private link(token: string): string {
    return new URL(`${this.baseUrl}/new-user?token=${token}`).toString();
  }

  private async live(id: number): Promise<UserDocument> {
    const user = await this.store.get(id);
    if (!user) throw notFound('No user found');
    return user;
  }

  /** Every user (by id: Unleash lists its table's row order, which moves with each update) with its root role and live link. */
  async list(): Promise<{ users: AdminUserView[]; rootRoles: Array<{ id: number; name: string; type: string; description: string }> }> {
    const live = this.tokens.liveByUser();
    const users = (await this.store.list()).map((user) => {
      const token = live.get(user._id);
      return { ...adminUser(user), rootRole: user.rootRole, inviteLink: token ? this.link(token._id) : '' };
    });
    return { users, rootRoles: ROOT_ROLES.map((role) => ({ ...role, description: ROLE_DESCRIPTIONS[role.id] ?? '' })) };
  }

  async get(id: number): Promise<AdminUserView> {
    const user = await this.live(id);
    return { ...adminUser(user), rootRole: user.rootRole };
  }

  /** Users whose name contains `q`, or whose username or e-mail starts with it; nothing under 2 characters. */
  async search(q: string | undefined): Promise<AdminUserView[]> {
    if (q === undefined || q.length < 2) return [];
    const inside = likePattern(q, false);
    const start = likePattern(q, true);
    const starts = (u: UserDocument) => (u.username !== null && start.test(u.username)) || (u.email !== null && start.test(u.email));
    const system = SYSTEM_USERS.filter(starts);
    const users = (await this.store.list()).filter((u) => (u.name !== null && inside.test(u.name)) || starts(u));
    return [...system, ...users].map(searchedUser);
  }

  async access(): Promise<{ users: ReturnType<typeof accessUser>[]; groups: never[] }> {
    return { users: (await this.store.list()).map(accessUser), groups: [] };
  }

  async adminCount(): Promise<{ password: number; noPassword: number; service: number }> {
    const admins = (await this.store.list()).filter((u) => u.rootRole === 1);
    const password = admins.filter((u) => u.passwordHash !== undefined).length;
    return { password, noPassword: admins.length - password, service: 0 };
  }

  /**
   * Users neither created nor seen in 180 days, one entry per personal access token of theirs not
   * used in that time either (Unleash joins the tokens: a user with two such tokens is listed twice).
   */
  async inactive(now = Date.now()): Promise<InactiveUsersView> {
    const before = now - INACTIVE_DAYS * DAY_MS;
    const old = (at: Date | null) => at === null || at.getTime() < before;
    const inactiveUsers: InactiveUsersView['inactiveUsers'] = [];
    for (const user of await this.store.list()) {
      if (!old(user.seenAt) || !old(user.createdAt)) continue;
      const seen = this.tokensSeenAt(user._id);
      for (const patSeenAt of (seen.length > 0 ? seen : [null]).filter(old)) {
        inactiveUsers.push({
          id: user._id, name: user.name, email: user.email, username: user.username,
          seenAt: user.seenAt?.toISOString() ?? null, createdAt: user.createdAt.toISOString(), patSeenAt: patSeenAt?.toISOString() ?? null,
        });
      }
    }
    return { version: 1, inactiveUsers };
  }

  /**
   * Creates a user with its welcome link (24 hours) in one commit. A password, when given, must be
   * strong (docs/rules.md D22). No e-mail is sent.
   */
  async create(input: CreateUserInput, audit: AuditUser): Promise<AdminUserView> {
    const username = input.username ? input.username : null;
    const email = input.email ? input.email : null;
    if (username === null && email === null) throw validationError('You must specify username or email');
    if (input.name === '') throw schemaValidationError([{ message: '"value" is not allowed to be empty.' }]);
    if (email !== null && !isValidEmail(email)) throw invalidEmail(email);
    if (await this.store.exists(email?.toLowerCase() ?? null, username)) throw validationError('User already exists');
    const rootRole = rootRoleId(input.rootRole);
    let passwordHash: string | undefined;
    if (input.password) {
      const problems = passwordProblems(input.password);
      if (problems.length > 0) throw weakPassword(problems);
      passwordHash = await hashPassword(input.password);
    }
    const createdAt = new Date();
    let link = '';
    try {
      const user = await this.store.insertNew(
        (id) => ({
          _id: id, name: input.name ?? null, email: email?.toLowerCase() ?? null, username, usernameKey: usernameKey(username, id),
          imageUrl: null, rootRole, seenAt: null, loginAttempts: 0, emailSent: false, accountType: 'User', createdAt,
          ...(passwordHash ? { passwordHash } : {}),
        }),
        (user) => buildEvents(audit, [{ type: 'user-created', data: userEventData(user) }], { at: createdAt, transactional: true }),
        (user) => {
          const issued = this.tokens.issue(user._id, audit.name, createdAt);
          link = this.link(issued.token._id);
          return issued.changes;
        },
      );
      return { ...adminUser(user), rootRole: echoedRole(input.rootRole), inviteLink: link, emailSent: false };
    } catch (err) {
      // Unleash answers a username taken by another e-mail with a 500 (its unique index); Vane with this 400.
      if (err instanceof UserExistsError) throw validationError('User already exists');
      throw err;
    }
  }

  /** Changes the name, e-mail and root role given (an empty name or e-mail keeps the stored one); `user-updated` unless nothing changed. */
  async update(id: number, input: UpdateUserInput, audit: AuditUser): Promise<AdminUserView> {
    const updated = await retrying(async () => {
      const current = await this.live(id);
      if (input.email && !isValidEmail(input.email)) throw invalidEmail(input.email);
      const rootRole = input.rootRole ? rootRoleId(input.rootRole) : current.rootRole;
      const email = input.email ? input.email.toLowerCase() : current.email;
      const other = email === null ? null : this.store.byEmail(email);
      if (other !== null && other._id !== id) throw validationError('User already exists');
      const next: UserDocument = { ...current, name: input.name || current.name, email, rootRole };
      const events = buildEvents(audit, [{ type: 'user-updated', data: userEventData(next), preData: userEventData(current) }]);
      try {
        await this.store.replace(current, next, events);
      } catch (err) {
        if (err instanceof DuplicateKeyError) throw validationError('User already exists');
        throw err;
      }
      return next;
    });
    return { ...adminUser(updated), ...(input.rootRole !== undefined ? { rootRole: echoedRole(input.rootRole) } : {}) };
  }

  /**
   * Deletes a user as Unleash does: a tombstone (no e-mail, no username, `(Deleted)` after the name)
   * that no read returns, so its personal access tokens and reset links stop working; its sessions
   * end. `user-deleted` records the user as it was.
   */
  async delete(id: number, audit: AuditUser): Promise<void> {
    await retrying(async () => {
      const current = await this.live(id);
      const tombstone: UserDocument = {
        ...current, name: current.name === null ? null : `${current.name}(Deleted)`, email: null, username: null,
        usernameKey: usernameKey(null, id), deletedAt: new Date(),
      };
      await this.store.replace(current, tombstone, buildEvents(audit, [{ type: 'user-deleted', preData: userEventData(current) }]));
    });
    await this.sessions.endOtherSessions(id);
  }

  /**
   * Deletes the listed users one by one, except the caller, whatever their activity (as Unleash:
   * it does not check). The first unknown id stops the run with a 404; those before it stay deleted.
   */
  async deleteMany(ids: number[], audit: AuditUser): Promise<void> {
    for (const id of ids) if (id !== audit.id) await this.delete(id, audit);
  }
}
