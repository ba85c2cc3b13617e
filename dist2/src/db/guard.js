import { AsyncLocalStorage } from 'node:async_hooks';
/** Statements per write command on FerretDB (see the class comment): well below its 100 connections. */
export const DEFAULT_MAX_STATEMENTS = 32;
export class DatabaseTimeoutError extends Error {
    operation;
    collection;
    timeoutMs;
    sent;
    name = 'DatabaseTimeoutError';
    constructor(operation, collection, timeoutMs, 
    /** False when it was still waiting for a slot: it was never sent, so it certainly did not apply. */
    sent) {
        super(`database ${operation} on ${collection} did not finish within ${timeoutMs} ms${sent ? '' : ' (never sent: waiting for a slot)'}`);
        this.operation = operation;
        this.collection = collection;
        this.timeoutMs = timeoutMs;
        this.sent = sent;
    }
}
export class DatabaseUnavailableError extends Error {
    operation;
    collection;
    name = 'DatabaseUnavailableError';
    constructor(operation, collection, reason) {
        super(`database ${operation} on ${collection} refused: ${reason}`);
        this.operation = operation;
        this.collection = collection;
    }
}
export class TooManyStatementsError extends Error {
    name = 'TooManyStatementsError';
}
const backgroundWork = new AsyncLocalStorage();
/** Runs `fn` with its database operations granted after a request's (see DatabaseGuard). */
export function inBackground(fn) {
    return backgroundWork.run(true, fn);
}
/** A waiting background operation is granted at least once per this many grants. */
const BACKGROUND_EVERY = 4;
/** A counting semaphore: requests' operations first, background work at least every BACKGROUND_EVERY grants. */
class Slots {
    limit;
    active = 0;
    waiting = [];
    waitingBackground = [];
    passedOver = 0;
    constructor(limit) {
        this.limit = limit;
    }
    get inUse() {
        return this.active;
    }
    get queued() {
        return this.waiting.length + this.waitingBackground.length;
    }
    /** Resolves with a release function once a slot is free; `cancel` withdraws an unserved wait. */
    acquire() {
        let released = false;
        const release = () => {
            if (released)
                return;
            released = true;
            this.active--;
            this.next();
        };
        if (this.active < this.limit) {
            this.active++;
            return { granted: Promise.resolve(release), cancel: () => undefined };
        }
        let waiter;
        const granted = new Promise((resolve) => {
            waiter = { grant: () => resolve(release) };
        });
        const queue = backgroundWork.getStore() ? this.waitingBackground : this.waiting;
        queue.push(waiter);
        return {
            granted,
            cancel: () => {
                const at = queue.indexOf(waiter);
                if (at >= 0)
                    queue.splice(at, 1);
            },
        };
    }
    next() {
        while (this.active < this.limit && (this.waiting.length || this.waitingBackground.length)) {
            this.active++;
            const backgroundTurn = this.waitingBackground.length > 0 && (this.waiting.length === 0 || this.passedOver >= BACKGROUND_EVERY);
            if (backgroundTurn) {
                this.passedOver = 0;
                this.waitingBackground.shift().grant();
            }
            else {
                if (this.waitingBackground.length)
                    this.passedOver++;
                this.waiting.shift().grant();
            }
        }
    }
    resize(limit) {
        this.limit = limit;
        this.next();
    }
}
const WRITE_METHODS = new Set([
    'insertOne', 'insertMany', 'updateOne', 'updateMany', 'replaceOne', 'deleteOne', 'deleteMany', 'bulkWrite',
    'findOneAndUpdate', 'findOneAndReplace', 'findOneAndDelete', 'createIndex', 'createIndexes', 'dropIndex', 'drop', 'rename',
]);
const READ_METHODS = new Set(['findOne', 'countDocuments', 'estimatedDocumentCount', 'distinct', 'indexes', 'indexExists']);
const CURSOR_METHODS = new Set(['find', 'aggregate', 'listIndexes']);
export class DatabaseGuard {
    timeoutMs;
    log;
    writes;
    reads;
    closedReason;
    timeouts = 0;
    refused = 0;
    overdue = 0;
    troubleListener;
    /** When an operation last completed (performance.now()): a busy database still makes progress. */
    lastProgressAt = 0;
    maxStatements;
    constructor(timeoutMs, limits, log) {
        this.timeoutMs = timeoutMs;
        this.log = log;
        this.writes = new Slots(limits.maxWrites);
        this.reads = new Slots(limits.maxReads);
        this.maxStatements = limits.maxStatements;
    }
    /** Sets the limits once the server's kind is known (src/plugins/database.ts). */
    configure(limits) {
        this.writes.resize(limits.maxWrites);
        this.reads.resize(limits.maxReads);
        this.maxStatements = limits.maxStatements;
    }
    get limits() {
        return { maxWrites: this.writes.limit, maxReads: this.reads.limit, maxStatements: this.maxStatements };
    }
    /** Told of every missed deadline (the health check then probes at once, not at its next tick). */
    onTimeout(listener) {
        this.troubleListener = listener;
    }
    /** Refuses every operation but probes at once, until `open` (the database does not answer). */
    close(reason) {
        this.closedReason = reason;
    }
    open() {
        this.closedReason = undefined;
    }
    get isOpen() {
        return this.closedReason === undefined;
    }
    stats() {
        return {
            writesInUse: this.writes.inUse, writesQueued: this.writes.queued, readsInUse: this.reads.inUse,
            readsQueued: this.reads.queued, timeouts: this.timeouts, refused: this.refused, overdue: this.overdue,
        };
    }
    /**
     * Runs `fn` (one database operation) in a slot of its kind, within the deadline. `probe`
     * operations (the health check) run while the gate is closed; `timeoutMs` overrides the
     * deadline for work known to be long (none on a request's path).
     */
    async run(kind, operation, collection, fn, options = {}) {
        if (this.closedReason !== undefined && !options.probe) {
            this.refused++;
            throw new DatabaseUnavailableError(operation, collection, this.closedReason);
        }
        const timeoutMs = options.timeoutMs ?? this.timeoutMs;
        const slots = kind === 'write' ? this.writes : this.reads;
        const { granted, cancel } = slots.acquire();
        let sent = false;
        let timedOut = false;
        let timer;
        const deadline = new Promise((_resolve, reject) => {
            timer = setTimeout(() => {
                timedOut = true;
                cancel();
                this.timeouts++;
                const err = new DatabaseTimeoutError(operation, collection, timeoutMs, sent);
                this.log.error({ operation, collection, timeoutMs, sent, kind }, err.message);
                reject(err);
                if (!options.probe)
                    this.troubleListener?.();
            }, timeoutMs);
        });
        try {
            const work = granted.then((release) => {
                if (timedOut) {
                    // Granted in the same turn the deadline fired: not sent, so the slot goes back at once.
                    release();
                    return deadline;
                }
                sent = true;
                const started = fn();
                // The slot stays taken until the driver settles the operation (a database that stopped
                // answering is not sent more meanwhile), but no longer than one more deadline after ours.
                let overdueTimer;
                const settled = () => {
                    clearTimeout(overdueTimer);
                    release();
                };
                started.then(() => {
                    this.lastProgressAt = performance.now();
                    settled();
                }, settled);
                overdueTimer = setTimeout(() => {
                    this.overdue++;
                    release();
                    started.then(() => this.overdue--, () => this.overdue--);
                }, timeoutMs * 2);
                overdueTimer.unref();
                return started;
            });
            return await Promise.race([work, deadline]);
        }
        finally {
            clearTimeout(timer);
        }
    }
    /** The same database, with every collection's operations guarded (see the class comment). */
    wrapDb(db) {
        return new Proxy(db, {
            get: (target, prop, receiver) => {
                if (prop === 'collection') {
                    return (name, options) => this.wrapCollection(target.collection(name, options));
                }
                if (prop === 'command') {
                    return (command, options) => this.run('read', Object.keys(command)[0] ?? 'command', '(database)', () => target.command(command, options));
                }
                const value = Reflect.get(target, prop, receiver);
                return typeof value === 'function' ? value.bind(target) : value;
            },
        });
    }
    wrapCollection(collection) {
        const name = collection.collectionName;
        return new Proxy(collection, {
            get: (target, prop, receiver) => {
                const value = Reflect.get(target, prop, receiver);
                if (typeof prop !== 'string' || typeof value !== 'function')
                    return value;
                const method = value;
                if (WRITE_METHODS.has(prop)) {
                    return (...args) => {
                        if (prop === 'bulkWrite')
                            this.checkStatements(name, args[0]);
                        return this.run('write', prop, name, () => method.apply(target, args));
                    };
                }
                if (READ_METHODS.has(prop)) {
                    return (...args) => this.run('read', prop, name, () => method.apply(target, args));
                }
                if (CURSOR_METHODS.has(prop)) {
                    return (...args) => this.guardCursor(method.apply(target, args), prop, name);
                }
                return method.bind(target);
            },
        });
    }
    checkStatements(collection, operations) {
        if (Array.isArray(operations) && operations.length > this.maxStatements) {
            throw new TooManyStatementsError(`bulkWrite of ${operations.length} statements on ${collection}: at most ${this.maxStatements} per command (use inBatches)`);
        }
    }
    /**
     * Guards each round trip of a cursor: `next` and `hasNext` (which `toArray` and `for await`
     * use) go through a read slot and the deadline only when the cursor's buffer is empty, so a
     * long read is bounded per batch, not as a whole, and documents already received cost nothing.
     * A cursor whose round trip failed is closed in the background (on FerretDB an open cursor
     * holds one of its SQLite connections).
     */
    guardCursor(cursor, operation, collection) {
        const next = cursor.next.bind(cursor);
        const hasNext = cursor.hasNext.bind(cursor);
        const roundTrip = (fn) => {
            if (cursor.bufferedCount() > 0)
                return fn();
            return this.run('read', operation, collection, fn).catch((err) => {
                cursor.close().catch(() => undefined);
                throw err;
            });
        };
        Object.assign(cursor, {
            next: () => roundTrip(next),
            hasNext: () => roundTrip(hasNext),
        });
        return cursor;
    }
}
/**
 * Runs `write` over `items` in consecutive batches of at most `size`, one after another: how a
 * caller sends work of many statements (DatabaseGuard.maxStatements).
 */
export async function inBatches(items, size, write) {
    for (let start = 0; start < items.length; start += size)
        await write(items.slice(start, start + size));
}
//# sourceMappingURL=guard.js.map