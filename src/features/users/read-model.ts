/**
 * What other features may read of users (the users store is the write model and stays inside this
 * folder): the user as stored, and the look-ups sign-in, the first admin and invite links ask.
 */
import { createHash } from 'node:crypto';
import type { StoredDocument } from '../../db/outbox/index.js';

export interface UserDocument extends StoredDocument {
  /** The user id: sequential integers from 1, allocated through the unique `_id` and retried. */
  _id: number;
  name: string | null;
  /** Lower-cased; unique; null for a user made with a username only, and for a deleted user. */
  email: string | null;
  username: string | null;
  /** Uniqueness key for usernames: `u:<lower-cased username>`, or `id:<id>` for users without one. */
  usernameKey: string;
  imageUrl: string | null;
  rootRole: number;
  seenAt: Date | null;
  loginAttempts: number;
  emailSent: boolean;
  accountType: 'User';
  createdAt: Date;
  /** scrypt hash (see password.ts); absent when the user has no password. Never leaves the store. */
  passwordHash?: string;
  /** Hashes of the passwords before the current one, oldest first (a change may not reuse them). */
  passwordHistory?: string[];
  /** Secret of the invite link the user joined through. */
  signupToken?: string;
  /** The UI's feedback prompts the user answered or dismissed, in the order first given. */
  feedback?: FeedbackEntry[];
  /** The UI's splash screens the user has seen (Unleash's `user_splash` rows), in the order first seen. */
  splash?: string[];
  /**
   * When the user was deleted. A deleted user stays as a tombstone, as in Unleash (its e-mail and
   * username cleared): its id is never given again and its reset links answer 404. Every read
   * below skips it.
   */
  deletedAt?: Date;
}

/**
 * The avatar Unleash shows for a user: the SHA-256 of the e-mail, else the username, else the id,
 * lower-cased and trimmed (Unleash's test of `@` is always true but for a leading `@`).
 */
export function userImageUrl(user: Pick<UserDocument, '_id' | 'email' | 'username'>): string {
  let ident = user.email || user.username || String(user._id);
  ident = ident.startsWith('@') ? ident.trim() : ident.toLowerCase().trim();
  return `https://gravatar.com/avatar/${createHash('sha256').update(ident).digest('hex')}?s=42&d=retro&r=g`;
}

/** One answer to a UI feedback prompt (Unleash's `user_feedback` row, keyed by user and id). */
export interface FeedbackEntry {
  feedbackId: string;
  neverShow: boolean;
  given: Date;
}

/** Users as they are now (from the configuration state); the users store answers. */
export interface UserReadModel {
  get(id: number): Promise<UserDocument | null>;
  /** The user signing in with this name: an e-mail address or a username (any case). */
  findByLogin(login: string): Promise<UserDocument | null>;
  /** The same look-up in the database (a user another instance may have created a moment ago); not for requests. */
  findByLoginInDatabase(login: string): Promise<UserDocument | null>;
  /** Users who joined through any of these invite links, by id. */
  joinedThrough(secrets: string[]): Promise<UserDocument[]>;
}
