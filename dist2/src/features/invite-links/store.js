/**
 * Invite links, read from the configuration state (src/db/state.ts): a link created or disabled
 * on one instance is usable or refused on the others with the next revision.
 */
export class InviteLinkStore {
    collection;
    mirror;
    state;
    constructor(outbox) {
        this.collection = outbox.collection('public_signup_tokens');
        this.state = outbox.state;
        this.mirror = outbox.state.mirror('public_signup_tokens');
    }
    async init() {
        await this.collection.createIndex({ createdAt: 1 }, { name: 'created_at' });
    }
    async get(secret) {
        return this.mirror.get(secret) ?? null;
    }
    /** In creation order. */
    async list() {
        return this.state.derived('invite-links:list', () => [...this.mirror.values()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0)));
    }
}
//# sourceMappingURL=store.js.map