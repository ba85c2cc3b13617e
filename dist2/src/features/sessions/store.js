import { createHash, randomBytes } from 'node:crypto';
export function sessionKey(secret) {
    return createHash('sha256').update(secret, 'utf8').digest('hex');
}
export class SessionStore {
    collection;
    constructor(db) {
        this.collection = db.collection('sessions');
    }
    /** Starts a session; returns the secret for the cookie (32 random bytes, base64url). */
    async create(userId, ttlMs, now = new Date()) {
        const secret = randomBytes(32).toString('base64url');
        const expiresAt = new Date(now.getTime() + ttlMs);
        await this.collection.insertOne({ _id: sessionKey(secret), userId, createdAt: now, expiresAt });
        return { secret, expiresAt };
    }
    /** The live session for a cookie secret; an expired one is removed and not returned. */
    async find(secret, now = new Date()) {
        const session = await this.collection.findOne({ _id: sessionKey(secret) });
        if (!session)
            return null;
        if (session.expiresAt.getTime() <= now.getTime()) {
            await this.collection.deleteOne({ _id: session._id });
            return null;
        }
        return session;
    }
    async remove(secret) {
        await this.collection.deleteOne({ _id: sessionKey(secret) });
    }
    async removeForUser(userId) {
        await this.collection.deleteMany({ userId });
    }
    /** Drops expired sessions (a scan; run at sign-in, not on every request). */
    async removeExpired(now = new Date()) {
        await this.collection.deleteMany({ expiresAt: { $lte: now } });
    }
}
//# sourceMappingURL=store.js.map