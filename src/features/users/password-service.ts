import { retrying } from '../../db/outbox/index.js';
import { invalidToken, notFound, passwordPreviouslyUsed, passwordUndefined, resetRateLimited, weakPassword } from '../../errors.js';
import { SYSTEM_USER } from '../api-tokens/service.js';
import { hashPassword, passwordProblems, verifyPassword } from './password.js';
import type { UserDocument } from './read-model.js';
import type { ResetTokenStore } from './reset-tokens.js';
import type { TokenUserView } from './schemas.js';
import { describedRole } from './service.js';
import type { SessionEnder } from './sources.js';
import type { UserStore } from './store.js';

/** Unleash keeps the last 5 password hashes (`used_passwords`), the current one among them. */
const EARLIER_PASSWORDS = 4;

/** A second reset link for the same person waits this long (Unleash: one a minute per user, per process). */
const RESET_INTERVAL_MS = 60_000;

/**
 * Passwords set by an admin or through a link, and the links themselves (welcome links of users an
 * admin created, reset links), in Unleash 8.2's order of checks (measured). No event is recorded
 * for any of them, as on Unleash.
 */
export class PasswordService {
  /** When each person's last reset link was made (on this instance, as Unleash's timers are per process). */
  private readonly lastReset = new Map<number, number>();

  constructor(
    private readonly store: UserStore,
    private readonly tokens: ResetTokenStore,
    private readonly sessions: SessionEnder,
    private readonly baseUrl: string,
  ) {}

  /** Unleash's strength test: an empty password is its own error, then the OWASP problems. */
  validate(password: string): void {
    if (password === '') throw passwordUndefined();
    const problems = passwordProblems(password);
    if (problems.length > 0) throw weakPassword(problems);
  }

  /** Sets a person's password (kept among their last five) after `check`, ends their links and every session. */
  private async setPassword(userId: number, password: string, check?: (user: UserDocument) => Promise<void>): Promise<void> {
    const passwordHash = await hashPassword(password);
    await retrying(async () => {
      const current = await this.store.get(userId);
      if (!current) throw notFound('No user found');
      await check?.(current);
      const earlier = [...(current.passwordHistory ?? []), ...(current.passwordHash ? [current.passwordHash] : [])].slice(-EARLIER_PASSWORDS);
      await this.store.replace(current, { ...current, passwordHash, passwordHistory: earlier }, [], this.tokens.ending(userId));
    });
    await this.sessions.endOtherSessions(userId);
  }

  /**
   * An admin sets a person's password: strong enough, any earlier one allowed (Unleash checks the
   * history only for resets and the person's own changes). A deleted user's id changes nothing
   * (200, as Unleash); an id no user ever had is a 404 (docs/rules.md D10: Unleash fails on a foreign key).
   */
  async change(userId: number, password: string): Promise<void> {
    this.validate(password);
    if (this.store.isDeleted(userId)) return;
    await this.setPassword(userId, password);
  }

  private async linkFor(email: string, createdBy: string, now = Date.now()): Promise<string> {
    const user = email === '' ? null : this.store.byEmail(email);
    if (!user) throw notFound('No user found');
    const last = this.lastReset.get(user._id);
    if (last !== undefined && now - last < RESET_INTERVAL_MS) throw resetRateLimited();
    for (const [id, at] of this.lastReset) if (now - at >= RESET_INTERVAL_MS) this.lastReset.delete(id);
    const issued = this.tokens.issue(user._id, createdBy, new Date(now));
    await this.tokens.save(issued.changes);
    this.lastReset.set(user._id, now);
    return new URL(`${this.baseUrl}/reset-password?token=${issued.token._id}`).toString();
  }

  /** A reset link for the person with this e-mail, made by an admin (who is its `createdBy`). */
  async resetLink(email: string, createdBy: string): Promise<string> {
    return await this.linkFor(email, createdBy);
  }

  /** A person asks for a reset link for their e-mail; Vane sends no e-mail, so only an admin's user list shows it. */
  async requestReset(email: string): Promise<void> {
    await this.linkFor(email, SYSTEM_USER.name);
  }

  /** Who a live link is for: 401 InvalidTokenError for an unknown, expired or spent one, 404 when its user was deleted. */
  async tokenUser(token: string | undefined): Promise<TokenUserView> {
    const found = token === undefined ? null : this.tokens.live(token);
    if (!found) throw invalidToken();
    const user = await this.store.get(found.userId);
    if (!user) throw notFound('No user found');
    const { id, description, type, name } = describedRole(user.rootRole);
    return {
      token: found._id, createdBy: found.createdBy, ...(user.email ? { email: user.email } : {}), ...(user.name ? { name: user.name } : {}),
      id: user._id, role: { id, description, type, name },
    };
  }

  /** Sets a password through a link: strong enough, not one of the person's last five; the link is spent. */
  async resetWithToken(token: string, password: string): Promise<void> {
    this.validate(password);
    const { id } = await this.tokenUser(token);
    await this.setPassword(id, password, async (user) => {
      for (const hash of [...(user.passwordHistory ?? []), ...(user.passwordHash ? [user.passwordHash] : [])]) {
        if (await verifyPassword(password, hash)) throw passwordPreviouslyUsed();
      }
    });
  }
}
