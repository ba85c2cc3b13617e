import { isDuplicateKey } from '../../db/keys.js';
/** A fresh instance has exactly Unleash OSS's two environments (docs/rules.md §7). */
const INITIAL = [
    { name: 'development', type: 'development', sortOrder: 2 },
    { name: 'production', type: 'production', sortOrder: 3 },
];
export class EnvironmentStore {
    collection;
    mirror;
    state;
    constructor(outbox) {
        this.collection = outbox.collection('environments');
        this.state = outbox.state;
        this.mirror = outbox.state.mirror('environments');
    }
    async init() {
        for (const env of INITIAL) {
            await this.collection.updateOne({ _id: env.name }, { $setOnInsert: { ...env, enabled: true, protected: false, createdAt: new Date(), _rev: 1 } }, { upsert: true }).catch((err) => {
                if (!isDuplicateKey(err))
                    throw err;
            });
        }
    }
    async get(name) {
        return this.mirror.get(name) ?? null;
    }
    /** Ordered by sortOrder, then creation (docs/rules.md §1.4); from the configuration state, sorted once per revision. */
    async list() {
        return this.state.derived('environments:list', () => [...this.mirror.values()].sort((a, b) => a.sortOrder - b.sortOrder || a.createdAt.getTime() - b.createdAt.getTime() || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0)));
    }
}
//# sourceMappingURL=store.js.map