import { randomBytes } from 'node:crypto';
import type { Collection } from 'mongodb';
import type { Change, Outbox, StoredDocument } from '../../db/outbox/index.js';
import type { CollectionMirror, ConfigState } from '../../db/state.js';
import { changeOf } from './store.js';

/** What the configuration state holds of the collection (src/db/state.ts). */
declare module '../../db/state.js' {
  interface HeldDocuments {
    reset_tokens: ResetTokenDocument;
  }
}

/**
 * A link that lets a person set a password without the old one: the welcome link of a user an admin
 * created, or a reset link. Unleash's `reset_tokens` row.
 */
export interface ResetTokenDocument extends StoredDocument {
  /**
   * The token, kept in clear as Unleash keeps it: the admin's user list shows every live one inside
   * its link. 32 random bytes, base64url (Unleash's are bcrypt strings of random bytes; the UI only
   * passes them back).
   */
  _id: string;
  userId: number;
  expiresAt: Date;
  createdAt: Date;
  /** The creator's username, else e-mail (an admin token's name; `unleash_system_user` for a link a person asked for). */
  createdBy: string;
}

/** How long a link lasts: 24 hours, Unleash's `createToken` default (measured: expires_at = created + 24 h). */
export const RESET_TOKEN_TTL_MS = 24 * 3_600_000;

/** The live tokens by user, built once per revision. */
interface TokenIndex {
  byUser: Map<number, ResetTokenDocument[]>;
}

/**
 * Reset and welcome links, read from the configuration state. A person has at most one live link:
 * a new one, and any password change, ends the others. Unleash sets their `expires_at` to now; Vane
 * removes them (a spent or expired token answers the same `InvalidTokenError` as an unknown one,
 * measured), in the commit of the change that ends them.
 */
export class ResetTokenStore {
  readonly collection: Collection<ResetTokenDocument>;
  private readonly mirror: CollectionMirror<ResetTokenDocument>;
  private readonly state: ConfigState;

  constructor(private readonly outbox: Outbox) {
    this.collection = outbox.collection<ResetTokenDocument>('reset_tokens');
    this.mirror = outbox.state.mirror('reset_tokens');
    this.state = outbox.state;
  }

  private index(): TokenIndex {
    return this.state.derived('reset-tokens:index', () => {
      const byUser = new Map<number, ResetTokenDocument[]>();
      for (const token of this.mirror.values()) {
        const own = byUser.get(token.userId);
        if (own) own.push(token);
        else byUser.set(token.userId, [token]);
      }
      return { byUser };
    });
  }

  /** The token if it exists and has not expired. */
  live(token: string, now = Date.now()): ResetTokenDocument | null {
    const found = this.mirror.get(token);
    return found !== undefined && found.expiresAt.getTime() > now ? found : null;
  }

  /** Each user's live token (the newest, should there be several), for the admin's user list. */
  liveByUser(now = Date.now()): Map<number, ResetTokenDocument> {
    const live = new Map<number, ResetTokenDocument>();
    for (const [userId, tokens] of this.index().byUser) {
      const newest = tokens.filter((t) => t.expiresAt.getTime() > now).sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0];
      if (newest) live.set(userId, newest);
    }
    return live;
  }

  /** The changes that end every token of a user. */
  ending(userId: number): Change[] {
    return (this.index().byUser.get(userId) ?? []).map((token) => changeOf(this.collection.collectionName, token, null));
  }

  /** Stores tokens and ends others (`issue`'s changes) in one commit, without events (Unleash records none). */
  async save(changes: Change[]): Promise<void> {
    await this.outbox.write(changes, []);
  }

  /** A new token for the user (24 hours) and the changes that store it and end the user's others. */
  issue(userId: number, createdBy: string, now = new Date()): { token: ResetTokenDocument; changes: Change[] } {
    const token: ResetTokenDocument = {
      _id: randomBytes(32).toString('base64url'), userId, expiresAt: new Date(now.getTime() + RESET_TOKEN_TTL_MS), createdAt: now, createdBy,
    };
    return { token, changes: [...this.ending(userId), changeOf(this.collection.collectionName, null, token)] };
  }
}
