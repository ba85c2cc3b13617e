import { BSON } from 'mongodb';
/**
 * The bookkeeping every document written through the outbox carries, and the optimistic
 * concurrency around it: `_rev` (its revision, checked before each write), `_outbox` (events
 * written with the change and not yet in the log), `_deleted` (a tombstone holding a delete's
 * events until they are flushed).
 */
export const OUTBOX_FIELD = '_outbox';
export const REV_FIELD = '_rev';
export const DELETED_FIELD = '_deleted';
export function isDocumentId(value) {
    return typeof value === 'string' || typeof value === 'number';
}
export function packEvents(events) {
    return BSON.EJSON.stringify(events);
}
/** The events a stored `_outbox` holds (none when absent). */
export function pendingEvents(outbox) {
    if (outbox === undefined)
        return [];
    if (typeof outbox !== 'string')
        return outbox;
    const parsed = BSON.EJSON.parse(outbox);
    return Array.isArray(parsed) ? parsed.filter(isPendingEvent) : [];
}
function isPendingEvent(value) {
    return typeof value === 'object' && value !== null && typeof value.key === 'string';
}
/** Strips the bookkeeping fields before a document leaves the store. */
export function withoutBookkeeping(doc) {
    const { _outbox: _o, _rev: _r, _deleted: _d, ...rest } = doc;
    return rest;
}
export const LIVE = { [DELETED_FIELD]: { $ne: true } };
export class ConcurrentModificationError extends Error {
    name = 'ConcurrentModificationError';
}
/**
 * Retries a read-modify-write when a concurrent writer changed the document first, backing off
 * 5, 10, 20, 40 ms (with jitter) so writers racing on one document from several instances spread
 * out instead of colliding again. The last failure reaches the client as a 409 (src/errors.ts).
 */
export async function retrying(fn, attempts = 5) {
    for (let i = 0;; i++) {
        try {
            return await fn();
        }
        catch (err) {
            if (!(err instanceof ConcurrentModificationError) || i >= attempts - 1)
                throw err;
            await new Promise((r) => setTimeout(r, 5 * 2 ** i * (0.5 + Math.random())));
        }
    }
}
//# sourceMappingURL=documents.js.map