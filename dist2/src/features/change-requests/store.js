import { LIVE } from '../../db/outbox.js';
import { insertUnderNextId, isDuplicateKey } from '../../db/keys.js';
export const STATES = ['Draft', 'In review', 'Approved', 'Scheduled', 'Applied', 'Cancelled', 'Rejected'];
export const FINAL_STATES = new Set(['Applied', 'Cancelled', 'Rejected']);
export const FLAG_ACTIONS = [
    'updateEnabled', 'addStrategy', 'updateStrategy', 'deleteStrategy', 'patchVariant', 'reorderStrategy',
    'archiveFeature', 'addDependency', 'deleteDependency',
];
export const SEGMENT_ACTIONS = ['updateSegment', 'deleteSegment'];
/**
 * Change requests, one document each, integer ids from 1 allocated with a unique `_id` and retry.
 * Read from the configuration state (src/db/state.ts); the unique `_id` and the unique draft key
 * stay the arbiters across instances (see insertNew).
 */
export class ChangeRequestStore {
    outbox;
    collection;
    applies;
    mirror;
    state;
    constructor(outbox) {
        this.outbox = outbox;
        this.collection = outbox.collection('change_requests');
        this.applies = outbox.collection('change_request_applies');
        this.state = outbox.state;
        this.mirror = outbox.state.mirror('change_requests');
    }
    index() {
        return this.state.derived('change-requests:index', () => {
            const index = { byDraftKey: new Map(), byProject: new Map(), applying: [], highestId: 0 };
            for (const cr of [...this.mirror.values()].sort((a, b) => a._id - b._id)) {
                if (cr.draftKey !== undefined)
                    index.byDraftKey.set(cr.draftKey, cr);
                const inProject = index.byProject.get(cr.project);
                if (inProject)
                    inProject.push(cr);
                else
                    index.byProject.set(cr.project, [cr]);
                if (cr.applying !== undefined)
                    index.applying.push(cr);
                index.highestId = cr._id;
            }
            return index;
        });
    }
    /**
     * Claims the apply of request `id` for this caller: an insert under the request's id, which a
     * unique `_id` makes succeed exactly once on any server (FerretDB does not apply a conditional
     * replace atomically across processes, so the request's own revision cannot decide it).
     */
    async claimApply(id) {
        try {
            await this.applies.insertOne({ _id: id, at: new Date() });
            return true;
        }
        catch (err) {
            if (isDuplicateKey(err))
                return false;
            throw err;
        }
    }
    /** Gives up a claim before the apply's commit point (it failed; a later attempt may apply). */
    async releaseApply(id) {
        await this.applies.deleteOne({ _id: id });
    }
    async init() {
        // One command per index: FerretDB 1.24 fails a createIndexes that mixes existing and new ones.
        await this.collection.createIndex({ draftKey: 1 }, { unique: true, sparse: true, name: 'draft_key_unique' });
        await this.collection.createIndex({ project: 1 }, { name: 'project' });
    }
    async get(id) {
        if (!Number.isSafeInteger(id))
            return null;
        return this.mirror.get(id) ?? null;
    }
    /** Re-reads one request into the state (one `_id` read): before a refusal based on the state. */
    async refresh(id) {
        await this.mirror.refresh(id);
    }
    async findDraft(draftKey) {
        return this.index().byDraftKey.get(draftKey) ?? null;
    }
    /** By id. */
    async listByProject(project) {
        return this.index().byProject.get(project) ?? [];
    }
    /** Requests whose apply was interrupted (a crash between its commit point and its end). */
    async listApplying() {
        return this.index().applying;
    }
    /**
     * Inserts a new request under the next free id (highest the state holds + 1, see
     * insertUnderNextId). A duplicate key that is not the id is the draft key: another request
     * became the caller's Draft first; it is read into the state, so the caller's retry appends to
     * it, and null is returned with nothing inserted.
     */
    async insertNew(build) {
        let draftKey;
        return await insertUnderNextId({
            collection: this.collection,
            firstFree: () => this.index().highestId + 1,
            insert: async (id) => {
                const { doc, events } = build(id);
                draftKey = doc.draftKey;
                await this.outbox.insert(this.collection, doc, events);
                return doc;
            },
            taken: async (id) => {
                await this.mirror.refresh(id);
            },
            otherKey: async (err) => {
                if (!draftKey)
                    throw err;
                // Off the index on FerretDB (a scan), but only when two instances raced for one Draft.
                const draft = await this.collection.findOne({ draftKey, ...LIVE }, { projection: { _id: 1 } });
                if (draft)
                    await this.mirror.refresh(draft._id);
                return null;
            },
            maxAttempts: 101,
        });
    }
    async replace(current, next, events) {
        await this.outbox.replace(this.collection, current, next, events);
    }
}
//# sourceMappingURL=store.js.map