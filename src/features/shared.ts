/**
 * Names several features share that belong to none of them: the URL-friendly rule, the audit
 * identity of the caller and of admin tokens, and avatar URLs. Kept here (one file next to the
 * features, importing nothing from them or from the plugins) so the features and the auth plugin
 * depend on it instead of on each other: otherwise projects/tags/strategy-types would import
 * flags' rules, every route the auth plugin, and the plugin api-tokens, a folder cycle.
 */
import { createHash } from 'node:crypto';
import type { AuditUser } from '../db/outbox/index.js';
import { unauthorized } from '../errors.js';

/** URL-friendly per docs/rules.md §6: encodeURIComponent leaves it unchanged, and it is not `.` or `..`. */
export function isUrlFriendly(name: string): boolean {
  return encodeURIComponent(name) === name && name !== '.' && name !== '..';
}

/** Declared by a mutating route every signed-in role may call (Unleash's permission NONE: validations, feedback, splash screens, UI errors). */
export const ANY_ROLE = 'NONE';

/** The user id Unleash records for changes made with an admin token. */
export const ADMIN_TOKEN_USER_ID = -42;

/** The name Unleash shows for that user where it shows a user rather than the token. */
export const ADMIN_TOKEN_USER_NAME = 'Unleash Admin Token User';

/**
 * The audit identity of the caller, for events. The auth plugin sets `request.principal` before
 * any handler runs; the parameter is structural so this file needs nothing from the plugin.
 */
export function auditOf(request: { principal?: { audit: AuditUser } }): AuditUser {
  if (!request.principal) throw unauthorized();
  return request.principal.audit;
}

/** The signed-in person behind the request (by session or personal access token); null for an API token. */
export function personIdOf(request: { principal?: { kind: string; user?: { _id: number } } }): number | null {
  return request.principal?.kind === 'session' ? request.principal.user?._id ?? null : null;
}

/** The browser session cookie (HttpOnly, SameSite=Lax; Secure when BASE_URL is https). */
export const SESSION_COOKIE = 'vane-session';

export function gravatarUrl(seed: string): string {
  const hash = createHash('sha256').update(seed.trim().toLowerCase()).digest('hex');
  return `https://gravatar.com/avatar/${hash}?s=42&d=retro&r=g`;
}

/** A stable id for this installation (one database): the UI's version check and the instance statistics carry it. */
export function instanceIdOf(database: string): string {
  const hex = createHash('sha256').update(`vane:${database}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
