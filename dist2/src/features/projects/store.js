import { isDuplicateKey } from '../../db/keys.js';
export class ProjectStore {
    collection;
    mirror;
    state;
    constructor(outbox) {
        this.collection = outbox.collection('projects');
        this.state = outbox.state;
        this.mirror = outbox.state.mirror('projects');
    }
    /** Project `default` (name `Default`), connected to both initial environments (docs/rules.md §7). */
    async init() {
        await this.collection.updateOne({ _id: 'default' }, {
            $setOnInsert: {
                id: 'default', name: 'Default', description: 'Default project', defaultStickiness: 'default',
                environments: ['development', 'production'], archivedAt: null, createdAt: new Date(), _rev: 1,
            },
        }, { upsert: true }).catch((err) => {
            if (!isDuplicateKey(err))
                throw err;
        });
    }
    /** From the configuration state: nearly every admin call reads its project. */
    async get(id) {
        return this.mirror.get(id) ?? null;
    }
    async list() {
        return this.state.derived('projects:list', () => [...this.mirror.values()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0)));
    }
}
//# sourceMappingURL=store.js.map