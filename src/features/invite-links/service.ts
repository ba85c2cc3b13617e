import { randomBytes } from 'node:crypto';
import { buildEvents, retrying, type AuditUser, type Outbox } from '../../db/outbox/index.js';
import { notFound, validationError } from '../../errors.js';
import { parseDateTime } from '../../schemas/formats.js';
import { SYSTEM_USER } from '../api-tokens/service.js';
import { ROOT_ROLES, VIEWER_ROLE, type NewUserInput, type PublicUser, type RootRole, type UserService } from '../users/service.js';
import type { UserDocument, UserReadModel } from '../users/read-model.js';
import type { InviteLinkDocument, InviteLinkStore } from './store.js';

export interface InviteLinkUser {
  id: number;
  name: string | null;
  username: string | null;
}

/** The token as the API shows it, in Unleash's key order (docs/rules.md §5.1). */
export interface InviteLink {
  secret: string;
  name: string;
  url: string;
  expiresAt: string;
  enabled: boolean;
  createdAt: string;
  createdBy: string;
  role: RootRole;
  users: InviteLinkUser[];
}

export interface CreateInviteLinkInput {
  name: string;
  expiresAt: string;
}

export interface UpdateInviteLinkInput {
  name?: string;
  expiresAt?: string;
  enabled?: boolean;
}

export const NOT_FOUND_MESSAGE = 'Could not find public signup token.';

/**
 * The same instant one calendar month later, in UTC: same day of the month, clamped to the last
 * day of a shorter month (31 January → 28/29 February), time of day kept.
 */
export function oneMonthAfter(instant: Date): Date {
  const monthIndex = instant.getUTCMonth() + 1;
  const year = instant.getUTCFullYear() + Math.floor(monthIndex / 12);
  const month = monthIndex % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(Date.UTC(
    year, month, Math.min(instant.getUTCDate(), lastDay),
    instant.getUTCHours(), instant.getUTCMinutes(), instant.getUTCSeconds(), instant.getUTCMilliseconds(),
  ));
}

/** A link can be used while enabled and while the UTC date of its expiry is after now (docs/rules.md §5.3). */
export function isUsable(token: Pick<InviteLinkDocument, 'enabled' | 'expiresAt'>, now = new Date()): boolean {
  const e = token.expiresAt;
  return token.enabled && Date.UTC(e.getUTCFullYear(), e.getUTCMonth(), e.getUTCDate()) > now.getTime();
}

/** `{base}/new-user?invite={secret}` through WHATWG URL normalisation; a base path is kept. */
export function inviteUrl(baseUrl: string, secret: string): string {
  return new URL(`${baseUrl.replace(/\/+$/, '')}/new-user?invite=${encodeURIComponent(secret)}`).toString();
}

function roleOf(id: number): RootRole {
  const role = ROOT_ROLES.find((r) => r.id === id) ?? VIEWER_ROLE;
  return { id: role.id, name: role.name, type: role.type };
}

function linkUser(user: UserDocument): InviteLinkUser {
  return { id: user._id, name: user.name, username: user.username };
}

export class InviteLinkService {
  constructor(
    private readonly store: InviteLinkStore,
    private readonly userStore: UserReadModel,
    private readonly users: UserService,
    private readonly outbox: Outbox,
    private readonly baseUrl: string,
  ) {}

  private show(token: InviteLinkDocument, users: InviteLinkUser[], now = new Date()): InviteLink {
    return {
      secret: token._id,
      name: token.name,
      url: inviteUrl(this.baseUrl, token._id),
      expiresAt: token.expiresAt.toISOString(),
      enabled: token.enabled && token.expiresAt.getTime() > now.getTime(),
      createdAt: token.createdAt.toISOString(),
      createdBy: token.createdBy,
      role: roleOf(token.roleId),
      users,
    };
  }

  private async withUsers(tokens: InviteLinkDocument[]): Promise<InviteLink[]> {
    const joined = await this.userStore.joinedThrough(tokens.map((t) => t._id));
    const now = new Date();
    return tokens.map((token) => this.show(token, joined.filter((u) => u.signupToken === token._id).map(linkUser), now));
  }

  async create(input: CreateInviteLinkInput, audit: AuditUser): Promise<InviteLink> {
    const now = new Date();
    const requested = parseDateTime(input.expiresAt);
    if (Number.isNaN(requested.getTime())) throw validationError(`"expiresAt" must be a valid date-time. You provided "${input.expiresAt}".`);
    const cap = oneMonthAfter(now);
    const token: InviteLinkDocument = {
      _id: randomBytes(16).toString('hex'),
      name: input.name,
      expiresAt: requested.getTime() < cap.getTime() ? requested : cap,
      enabled: true,
      createdAt: now,
      createdBy: audit.name,
      roleId: VIEWER_ROLE.id,
    };
    const shown = this.show(token, [], now);
    await this.outbox.insert(this.store.collection, token, buildEvents(audit, [
      { type: 'public-signup-token-created', data: shown },
    ], { at: now }));
    return shown;
  }

  async list(): Promise<InviteLink[]> {
    return await this.withUsers(await this.store.list());
  }

  async get(secret: string): Promise<InviteLink> {
    const token = await this.store.get(secret);
    if (!token) throw notFound(NOT_FOUND_MESSAGE);
    return (await this.withUsers([token]))[0]!;
  }

  /** Rename, change expiry (not capped, as in Unleash), enable or disable. */
  async update(secret: string, input: UpdateInviteLinkInput, audit: AuditUser): Promise<InviteLink> {
    if (input.name === undefined && input.expiresAt === undefined && input.enabled === undefined) {
      throw validationError('Provide at least one of "expiresAt", "enabled" or "name" to change.');
    }
    const expiresAt = input.expiresAt === undefined ? undefined : parseDateTime(input.expiresAt);
    if (expiresAt && Number.isNaN(expiresAt.getTime())) {
      throw validationError(`"expiresAt" must be a valid date-time. You provided "${input.expiresAt}".`);
    }
    await this.outbox.exclusive(`invite-link:${secret}`, () => retrying(async () => {
      const current = await this.store.get(secret);
      if (!current) throw notFound(NOT_FOUND_MESSAGE);
      const next: InviteLinkDocument = {
        ...current,
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
        ...(expiresAt ? { expiresAt } : {}),
      };
      const data = {
        secret,
        ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
        ...(expiresAt ? { expiresAt: expiresAt.toISOString() } : {}),
        ...(input.name !== undefined ? { name: input.name } : {}),
      };
      await this.outbox.replace(this.store.collection, current, next, buildEvents(audit, [
        { type: 'public-signup-token-updated', data },
      ]));
    }));
    return await this.get(secret);
  }

  /** Whether the link can be used to join right now (exists, enabled, not expired by date). */
  async isValid(secret: string): Promise<boolean> {
    const token = await this.store.get(secret);
    return token !== null && isUsable(token);
  }

  /**
   * Joins through a link: the new user gets the link's role, is linked to the link, and both
   * `user-created` and `public-signup-token-user-added` are stored with the user in one write,
   * by the system user (nobody is logged in). Returns null when the link cannot be used.
   */
  async join(secret: string, input: NewUserInput): Promise<PublicUser | null> {
    const token = await this.store.get(secret);
    if (!token || !isUsable(token)) return null;
    return await this.users.create(input, {
      rootRole: token.roleId,
      audit: SYSTEM_USER,
      signupToken: secret,
      extraEvents: (user) => [{ type: 'public-signup-token-user-added', data: { secret, userId: user.id } }],
    });
  }
}
