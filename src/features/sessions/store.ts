import { createHash, randomBytes } from 'node:crypto';
import type { Collection, Db } from 'mongodb';

/**
 * Browser sessions, one document per signed-in browser. The cookie carries a random secret; the
 * database keeps only its SHA-256 as `_id`, so a copy of the collection signs nobody in. Reads are
 * `_id` look-ups (the one query FerretDB answers without a scan). Sessions carry no events: they
 * are not configuration, and signing in is not an audited change in Unleash's event log either.
 */
export interface SessionDocument {
  _id: string;
  userId: number;
  createdAt: Date;
  expiresAt: Date;
}

export function sessionKey(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export class SessionStore {
  readonly collection: Collection<SessionDocument>;

  constructor(db: Db) {
    this.collection = db.collection<SessionDocument>('sessions');
  }

  /** Starts a session; returns the secret for the cookie (32 random bytes, base64url). */
  async create(userId: number, ttlMs: number, now = new Date()): Promise<{ secret: string; expiresAt: Date }> {
    const secret = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now.getTime() + ttlMs);
    await this.collection.insertOne({ _id: sessionKey(secret), userId, createdAt: now, expiresAt });
    return { secret, expiresAt };
  }

  /** The live session for a cookie secret; an expired one is removed and not returned. */
  async find(secret: string, now = new Date()): Promise<SessionDocument | null> {
    const session = await this.collection.findOne({ _id: sessionKey(secret) });
    if (!session) return null;
    if (session.expiresAt.getTime() <= now.getTime()) {
      await this.collection.deleteOne({ _id: session._id });
      return null;
    }
    return session;
  }

  async remove(secret: string): Promise<void> {
    await this.collection.deleteOne({ _id: sessionKey(secret) });
  }

  async removeForUser(userId: number): Promise<void> {
    await this.collection.deleteMany({ userId });
  }

  /** Ends every session of a user but the one of `keepSecret`. */
  async removeOthersOfUser(userId: number, keepSecret: string | undefined): Promise<void> {
    await this.collection.deleteMany(keepSecret === undefined ? { userId } : { userId, _id: { $ne: sessionKey(keepSecret) } });
  }

  /** Drops expired sessions (a scan; run at sign-in, not on every request). */
  async removeExpired(now = new Date()): Promise<void> {
    await this.collection.deleteMany({ expiresAt: { $lte: now } });
  }
}
