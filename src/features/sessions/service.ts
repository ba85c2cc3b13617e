import { passwordMismatch } from '../../errors.js';
import { SYSTEM_USER } from '../api-tokens/service.js';
import { hashPassword, verifyPassword } from '../users/password.js';
import { publicUser, type PublicUser, type UserService } from '../users/service.js';
import type { UserDocument, UserReadModel } from '../users/read-model.js';
import { ADMIN_ROLE_ID } from './roles.js';
import type { SessionDocument, SessionStore } from './store.js';

export interface SignedIn {
  user: PublicUser;
  secret: string;
  expiresAt: Date;
}

export interface SessionUser {
  user: UserDocument;
  expiresAt: Date;
}

/** Sessions held by the look-up cache at most (a sweep drops the stale ones beyond it). */
const CACHED_SESSIONS = 10_000;

export class SessionService {
  /**
   * A hash to verify against when the name is unknown, so a wrong name costs as much time as a
   * wrong password (scrypt, tens of milliseconds) and response times do not reveal who has an account.
   */
  private decoy: Promise<string> | undefined;

  /**
   * Sessions looked up in the last `cacheMs`, by cookie secret. Every cookie-authenticated request
   * looks its session up; the database read (one `_id` read, about 1.5 ms on FerretDB) would be
   * the only database round trip of an admin read, the user coming from the configuration state:
   * `GET /api/admin/user` by cookie, 4 connections on a loaded machine, answers 811 req/s with
   * the read and 8 100–16 200 with the cache.
   * A session ended on this instance leaves the cache at once; one ended on another instance (or
   * in the database) is seen within `cacheMs`, which composition sets to the revision poll
   * interval: the same delay as every other change made elsewhere. Expiry is checked on every
   * request against the cached `expiresAt`.
   */
  private readonly cache = new Map<string, { session: SessionDocument; until: number }>();

  constructor(
    private readonly sessions: SessionStore,
    private readonly users: UserReadModel,
    private readonly ttlMs: number,
    private readonly cacheMs = 0,
    /** Records a sign-in as the user's last seen time. */
    private readonly markSeen: (userId: number, at: Date) => Promise<void> = async () => {},
  ) {}

  private async findSession(secret: string): Promise<SessionDocument | null> {
    const now = Date.now();
    const cached = this.cache.get(secret);
    if (cached && cached.until > now && cached.session.expiresAt.getTime() > now) return cached.session;
    this.cache.delete(secret);
    const session = await this.sessions.find(secret);
    if (session && this.cacheMs > 0) {
      if (this.cache.size >= CACHED_SESSIONS) {
        for (const [key, entry] of this.cache) if (entry.until <= now) this.cache.delete(key);
        // Still full: the oldest entries go (a Map iterates in insertion order).
        for (const key of this.cache.keys()) {
          if (this.cache.size < CACHED_SESSIONS) break;
          this.cache.delete(key);
        }
      }
      this.cache.set(secret, { session, until: now + this.cacheMs });
    }
    return session;
  }

  /** Checks a username-or-e-mail and password and starts a session. 401 PasswordMismatch otherwise. */
  async login(login: string, password: string): Promise<SignedIn> {
    const user = await this.users.findByLogin(login);
    const hash = user?.passwordHash ?? await (this.decoy ??= hashPassword('decoy password that matches nothing'));
    const matches = await verifyPassword(password, hash);
    if (!user || !user.passwordHash || !matches) throw passwordMismatch();
    await this.sessions.removeExpired();
    const { secret, expiresAt } = await this.sessions.create(user._id, this.ttlMs);
    await this.markSeen(user._id, new Date());
    // The user as read before this sign-in: Unleash's answer carries the previous seenAt (null the first time, measured).
    return { user: publicUser(user), secret, expiresAt };
  }

  /** The user of a live session; null when the session is unknown, expired, or its user is gone. */
  async resolve(secret: string): Promise<SessionUser | null> {
    const session = await this.findSession(secret);
    if (!session) return null;
    const user = await this.users.get(session.userId);
    if (!user) {
      this.cache.delete(secret);
      await this.sessions.removeForUser(session.userId);
      return null;
    }
    return { user, expiresAt: session.expiresAt };
  }

  /**
   * Ends a user's other sessions (after a password change; Unleash keeps only the session that
   * made it, measured). Other instances drop their cached copies within `cacheMs`.
   */
  async endOtherSessions(userId: number, keepSecret: string | undefined): Promise<void> {
    for (const [secret, entry] of this.cache) if (entry.session.userId === userId && secret !== keepSecret) this.cache.delete(secret);
    await this.sessions.removeOthersOfUser(userId, keepSecret);
  }

  async logout(secret: string): Promise<void> {
    this.cache.delete(secret);
    await this.sessions.remove(secret);
  }
}

/**
 * Creates the first admin from INIT_ADMIN_USER / INIT_ADMIN_PASSWORD when nobody has that name
 * yet (idempotent; a second instance starting at the same time gets "already exists" and moves
 * on). A name with `@` is the admin's e-mail; otherwise it is the username and the e-mail is
 * `<name>@localhost`. The password must pass the same strength rules as every other.
 */
export async function ensureInitialAdmin(users: UserService, userStore: UserReadModel, login: string, password: string): Promise<void> {
  if (!login || !password) return;
  if (await userStore.findByLogin(login)) return;
  const isEmail = login.includes('@');
  try {
    await users.create(
      { name: login, email: isEmail ? login : `${login}@localhost`, ...(isEmail ? {} : { username: login }), password },
      { rootRole: ADMIN_ROLE_ID, audit: SYSTEM_USER },
    );
  } catch (err) {
    // Another instance starting at the same time created it first (this one's state has not heard yet).
    if (await userStore.findByLoginInDatabase(login)) return;
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(`Cannot create the first admin from INIT_ADMIN_USER/INIT_ADMIN_PASSWORD: ${reason}`, { cause: err });
  }
}
