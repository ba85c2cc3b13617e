import { BSON } from 'mongodb';
import { withoutBookkeeping } from '../../db/outbox.js';
function isPacked(doc) {
    return typeof doc.body === 'string';
}
/** The stored form of a flag (bookkeeping fields are left to the outbox). */
export function packFlag(doc) {
    const { _id, ...data } = withoutBookkeeping(doc);
    return { _id, project: doc.project, strategyIds: doc.strategyIds ?? [], body: BSON.EJSON.stringify(data) };
}
/** Stored documents are shared and never changed, so each is parsed once. */
const unpacked = new WeakMap();
/** A stored flag (either form) as the flag it holds, with its bookkeeping fields and real environment names. */
export function unpackFlag(stored) {
    let flag = unpacked.get(stored);
    if (!flag) {
        if (isPacked(stored)) {
            const { body, project: _p, strategyIds: _s, ...bookkeeping } = stored;
            flag = { ...BSON.EJSON.parse(body), ...bookkeeping };
        }
        else {
            flag = decodeFlag(stored);
        }
        unpacked.set(stored, flag);
    }
    return flag;
}
/** A flag document as the evaluation engine wants it (docs/rules.md §3.3). */
export function toFlagConfig(doc) {
    const environments = {};
    for (const [name, env] of Object.entries(doc.environments ?? {})) {
        environments[name] = { enabled: env.enabled, strategies: env.strategies, variants: env.variants };
    }
    return {
        name: doc.name,
        project: doc.project,
        createdAt: doc.createdAt.toISOString(),
        archived: doc.archived,
        environments,
        dependencies: doc.dependencies ?? [],
    };
}
/** Keeps the denormalised fields in step with the environments (call before every write). */
export function finalise(doc) {
    const ids = [];
    for (const env of Object.values(doc.environments))
        for (const s of env.strategies)
            ids.push(s.id);
    return { ...doc, strategyIds: ids };
}
/**
 * Environment names may contain `.` (docs/rules.md §1.4 pattern), which MongoDB-compatible servers
 * refuse in keys: the nested form earlier versions stored escaped it as `%2E` (`%` cannot occur in
 * a name). The packed form keeps real names inside its string.
 */
function decodeKey(key) {
    return key.replace(/%2E/g, '.');
}
/** A flag in the nested stored form, with real environment names. */
function decodeFlag(doc) {
    if (!doc.environments || !Object.keys(doc.environments).some((k) => decodeKey(k) !== k))
        return doc;
    const environments = {};
    for (const [k, v] of Object.entries(doc.environments))
        environments[decodeKey(k)] = v;
    return { ...doc, environments };
}
const byCreation = (a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);
/**
 * Flags, read from the configuration state (src/db/state.ts): no read here goes to the database.
 * Lists and indexes are derived once per revision.
 */
export class FlagStore {
    outbox;
    collection;
    mirror;
    state;
    constructor(outbox) {
        this.outbox = outbox;
        this.collection = outbox.collection('flags');
        this.state = outbox.state;
        this.mirror = outbox.state.mirror('flags');
    }
    async init() {
        await this.collection.createIndex({ project: 1 }, { name: 'project' });
    }
    /** The flag as stored (with `_rev`), archived or not; null when unknown. */
    async get(name) {
        return this.getNow(name);
    }
    getNow(name) {
        const doc = this.mirror.get(name);
        return doc ? unpackFlag(doc) : null;
    }
    /** Every flag, decoded, in creation order (derived once per revision). */
    ordered() {
        return this.state.derived('flags:ordered', () => [...this.mirror.values()].map(unpackFlag).sort(byCreation));
    }
    async listByProject(project, options = {}) {
        const archived = options.archived ?? false;
        return this.state.derived(`flags:project:${project}:${archived}`, () => this.ordered().filter((f) => f.project === project && f.archived === archived));
    }
    /** Every flag (archived ones too), for operations that touch all of them. */
    async all() {
        return this.ordered();
    }
    /** Names of the non-archived flags that depend on each parent (derived once per revision). */
    childIndex() {
        return this.state.derived('flags:children', () => {
            const index = new Map();
            for (const flag of this.ordered()) {
                if (flag.archived)
                    continue;
                for (const d of flag.dependencies ?? []) {
                    const list = index.get(d.feature) ?? [];
                    list.push(flag.name);
                    index.set(d.feature, list);
                }
            }
            return index;
        });
    }
    /** Names of the non-archived flags that depend on `name`. */
    async children(name) {
        return this.childrenNow(name);
    }
    childrenNow(name) {
        return this.childIndex().get(name) ?? [];
    }
    /** Inserts a new flag with its pending events, without flushing them (the caller flushes). */
    async insertPending(doc, events) {
        await this.outbox.insertPending(this.collection, packFlag(doc), events);
    }
    /** Replaces `current` (as read) by `next`, with its events (see Outbox.replace). */
    async replace(current, next, events) {
        // The outbox reads only the bookkeeping of `current` (its `_id`, `_rev` and pending events).
        const { _rev, _outbox } = current;
        const stored = { ...packFlag(current), ...(_rev === undefined ? {} : { _rev }), ...(_outbox ? { _outbox } : {}) };
        await this.outbox.replace(this.collection, stored, packFlag(next), events);
    }
    async countActive() {
        return this.state.derived('flags:active', () => this.ordered().filter((f) => !f.archived).length);
    }
    async findByStrategyId(id) {
        const owner = this.state.derived('flags:strategy-owner', () => {
            const index = new Map();
            for (const flag of this.ordered())
                for (const sid of flag.strategyIds ?? [])
                    index.set(sid, flag);
            return index;
        });
        return owner.get(id) ?? null;
    }
    async projectHasDependencies(project) {
        return (await this.listByProject(project)).some((f) => (f.dependencies ?? []).length > 0);
    }
    /** Every non-archived flag, without bookkeeping: what the playground evaluates. */
    async snapshotSource() {
        return this.state.derived('flags:snapshot', () => this.ordered().filter((f) => !f.archived).map((d) => withoutBookkeeping(d)));
    }
}
//# sourceMappingURL=store.js.map