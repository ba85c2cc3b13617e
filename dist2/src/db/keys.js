/**
 * A unique-index violation. MongoDB and FerretDB report 11000 on inserts; FerretDB's SQLite
 * backend reports a conflicting replace as code 1 with SQLite's message.
 */
export function isDuplicateKey(err) {
    const e = err;
    return e?.code === 11000 || (typeof e?.message === 'string' && e.message.includes('UNIQUE constraint failed'));
}
/**
 * The next integer `_id` of a collection whose ids are sequential integers: the highest + 1.
 * Only a proposal — callers insert with it and retry on a duplicate key, since the unique `_id`
 * is the one arbiter across processes (FerretDB has no atomic counter).
 */
export async function nextIntegerId(collection) {
    const last = await collection.find({}, { projection: { _id: 1 } }).sort({ _id: -1 }).limit(1).next();
    return (last?._id ?? 0) + 1;
}
/**
 * Inserts a new document under the next free integer `_id`: `firstFree()` (what the state knows)
 * or past the last id found taken. Never a counter document: FerretDB does not make
 * `$inc`/`findOneAndUpdate` atomic under concurrency; the unique `_id` is the one arbiter. A
 * duplicate key is told apart by one `_id` read: a taken id (another instance inserted it and this
 * one has not heard of it yet — `taken(id)` brings it into the state) is retried with the next;
 * a duplicate of another unique key is the caller's to answer (`otherKey`: throw, or a result).
 */
export async function insertUnderNextId(options) {
    let next = 0;
    for (let attempt = 0;; attempt++) {
        const id = Math.max(next, options.firstFree());
        try {
            return await options.insert(id);
        }
        catch (err) {
            if (!isDuplicateKey(err) || attempt >= options.maxAttempts)
                throw err;
            // A tombstone (a deletion whose events are being flushed) takes the id as well.
            if (!(await options.collection.findOne({ _id: id }, { projection: { _id: 1 } })))
                return await options.otherKey(err, id);
            await options.taken(id);
            next = id + 1;
        }
    }
}
//# sourceMappingURL=keys.js.map