/**
 * Users as Unleash 8.2's admin routes show them (measured on the reference): its User object's keys
 * in its order, a missing name, username or e-mail left out rather than null.
 */
import { userImageUrl, type UserDocument } from './read-model.js';
import type { AdminUserView } from './schemas.js';

/** The user as `GET /api/admin/user-admin/{id}` shows it, without `rootRole` (the operation adds it). */
export function adminUser(user: UserDocument): AdminUserView {
  return {
    accountType: 'User',
    id: user._id,
    ...(user.name ? { name: user.name } : {}),
    ...(user.username ? { username: user.username } : {}),
    ...(user.email ? { email: user.email } : {}),
    imageUrl: userImageUrl(user),
    seenAt: user.seenAt ? user.seenAt.toISOString() : null,
    loginAttempts: user.loginAttempts,
    createdAt: user.createdAt.toISOString(),
    scimId: null,
    seatType: null,
    companyRole: null,
    productUpdatesEmailConsent: null,
  };
}

/** A search hit: Unleash reads only the public columns, so no login count and no creation time. */
export function searchedUser(user: UserDocument): AdminUserView {
  const { loginAttempts: _attempts, createdAt: _created, ...rest } = adminUser(user);
  return rest;
}

/** A user as its events record it (`user-created`, `user-updated`, `user-deleted`): Unleash's `mapUserToData`. */
export function userEventData(user: UserDocument): Record<string, unknown> {
  return {
    id: user._id,
    ...(user.name ? { name: user.name } : {}),
    ...(user.username ? { username: user.username } : {}),
    ...(user.email ? { email: user.email } : {}),
    rootRole: user.rootRole,
  };
}

/** `{id, name?, username?, email?, accountType}`: what every signed-in person may read of the others. */
export function accessUser(user: UserDocument): { id: number; name?: string; username?: string; email?: string; accountType: string } {
  return {
    id: user._id,
    ...(user.name ? { name: user.name } : {}),
    ...(user.username ? { username: user.username } : {}),
    ...(user.email ? { email: user.email } : {}),
    accountType: 'User',
  };
}

/**
 * SQL's ILIKE as a regular expression: `%` any run, `_` any one character, `\` escapes, any case.
 * Unleash matches the query inside the name and at the start of the username and e-mail.
 */
export function likePattern(pattern: string, anchored: boolean): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) source += escapeRegExp(pattern[++i]!);
    else if (c === '%') source += '[\\s\\S]*';
    else if (c === '_') source += '[\\s\\S]';
    else source += escapeRegExp(c);
  }
  return new RegExp(`^${anchored ? '' : '[\\s\\S]*'}${source}[\\s\\S]*$`, 'iu');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
