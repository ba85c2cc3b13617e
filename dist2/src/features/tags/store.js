import { isDuplicateKey } from '../../db/keys.js';
/** In creation order, then by `_id` (what the lists answer). */
const byCreation = (a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);
/**
 * Tags and tag types, read from the configuration state (src/db/state.ts): flag creation checks
 * every tag and its type, and the lists are admin reads. Creation stays an insert under the
 * unique `_id`, so a tag or type another instance created meanwhile is still refused (409).
 */
export class TagStore {
    types;
    tags;
    typeMirror;
    tagMirror;
    state;
    constructor(outbox) {
        this.types = outbox.collection('tag_types');
        this.tags = outbox.collection('tags');
        this.state = outbox.state;
        this.typeMirror = outbox.state.mirror('tag_types');
        this.tagMirror = outbox.state.mirror('tags');
    }
    /** Tag type `simple` exists in a fresh instance (docs/rules.md §7). */
    async init() {
        await this.types.updateOne({ _id: 'simple' }, { $setOnInsert: { name: 'simple', description: 'Used to simplify filtering of features', icon: '#', createdAt: new Date(), _rev: 1 } }, { upsert: true }).catch((err) => {
            if (!isDuplicateKey(err))
                throw err;
        });
    }
    async getType(name) {
        return this.typeMirror.get(name) ?? null;
    }
    async listTypes() {
        return this.state.derived('tag-types:list', () => [...this.typeMirror.values()].sort(byCreation));
    }
    async getTag(type, value) {
        return this.tagMirror.get(tagId(type, value)) ?? null;
    }
    async listTags() {
        return this.state.derived('tags:list', () => [...this.tagMirror.values()].sort(byCreation));
    }
}
export function tagId(type, value) {
    return `${type}:${value}`;
}
//# sourceMappingURL=store.js.map