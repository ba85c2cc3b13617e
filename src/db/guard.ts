import { AsyncLocalStorage } from 'node:async_hooks';
import type { AbstractCursor, Collection, Db, Document } from 'mongodb';

/**
 * Every database operation Vane sends passes through one DatabaseGuard (the `Db` handed to the
 * stores is wrapped by `guardDb`), which gives it three things:
 *
 * 1. **A bound on concurrency.** Writes take one of `maxWrites` slots, reads (and each round trip
 *    of a cursor) one of `maxReads`, first come first served. FerretDB sits on SQLite, which admits
 *    one writer: more concurrent writes only queue inside FerretDB, each holding one of its 100
 *    SQLite connections while it waits. One writer at a time is what it can do, so that is the
 *    default there (docs/operations.md has the figures); a real MongoDB gets more.
 * 2. **A deadline.** An operation that has not finished `timeoutMs` after it was called (waiting
 *    for a slot included) is rejected with DatabaseTimeoutError, which names the operation and the
 *    collection, is logged at error level, and answers 503 with Retry-After. Its slot is held until
 *    the driver gives up on it too (at most one more `timeoutMs`), so a database that stopped
 *    answering is not sent more and more work meanwhile.
 * 3. **A gate.** While the database is known not to answer (the driver lost it, or the health
 *    probe's write and read did not finish in time: src/db/health.ts), operations are refused at
 *    once with DatabaseUnavailableError (503): writes answer at once instead of after the deadline,
 *    and background jobs fail fast and retry later. Requests served from memory never get here.
 *    The health probe is queued ahead of every waiting operation (it asks whether the database
 *    answers, not how long the queue is).
 *
 * Work no request waits for (clears, revision publishing and polling, the metrics flush) runs
 * `inBackground`: a request's operation is granted
 * a slot before it, except that background work is never passed over more than BACKGROUND_EVERY
 * times in a row, so it is never starved. Measured on the soak (tools/soak): with the SDKs' metrics
 * flushes in the same first-come queue, an admin write waited behind them.
 *
 * And one rule for commands of many statements (`bulkWrite`): at most `maxStatements` each. FerretDB
 * 1.24 keeps every statement's query open until its whole `update` command ends (a `defer` inside
 * the loop of its handler), each on its own SQLite connection: one `update` command of 100 or more
 * statements over existing documents exhausts its pool of 100 connections and waits for one of
 * them for ever, and with it every later write (test/db/guard.test.ts reproduces it). Callers split
 * such work with `inBatches`.
 */

export type OperationKind = 'read' | 'write';

/** Statements per write command on FerretDB (see the class comment): well below its 100 connections. */
export const DEFAULT_MAX_STATEMENTS = 32;

export class DatabaseTimeoutError extends Error {
  override name = 'DatabaseTimeoutError';
  constructor(
    readonly operation: string,
    readonly collection: string,
    readonly timeoutMs: number,
    /** False when it was still waiting for a slot: it was never sent, so it certainly did not apply. */
    readonly sent: boolean,
  ) {
    super(`database ${operation} on ${collection} did not finish within ${timeoutMs} ms${sent ? '' : ' (never sent: waiting for a slot)'}`);
  }
}

export class DatabaseUnavailableError extends Error {
  override name = 'DatabaseUnavailableError';
  constructor(readonly operation: string, readonly collection: string, reason: string) {
    super(`database ${operation} on ${collection} refused: ${reason}`);
  }
}

export class TooManyStatementsError extends Error {
  override name = 'TooManyStatementsError';
}

interface Waiter {
  grant: () => void;
}

const backgroundWork = new AsyncLocalStorage<true>();

/** Runs `fn` with its database operations granted after a request's (see DatabaseGuard). */
export function inBackground<T>(fn: () => Promise<T>): Promise<T> {
  return backgroundWork.run(true, fn);
}

/** A waiting background operation is granted at least once per this many grants. */
const BACKGROUND_EVERY = 4;

/** A counting semaphore: requests' operations first, background work at least every BACKGROUND_EVERY grants. */
class Slots {
  private active = 0;
  private readonly waiting: Waiter[] = [];
  private readonly waitingBackground: Waiter[] = [];
  private passedOver = 0;

  constructor(public limit: number) {}

  get inUse(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length + this.waitingBackground.length;
  }

  /**
   * Resolves with a release function once a slot is free; `cancel` withdraws an unserved wait.
   * `first`: ahead of every waiting operation (the health probe's).
   */
  acquire(first = false): { granted: Promise<() => void>; cancel: () => void } {
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.active--;
      this.next();
    };
    if (this.active < this.limit) {
      this.active++;
      return { granted: Promise.resolve(release), cancel: () => undefined };
    }
    let waiter!: Waiter;
    const granted = new Promise<() => void>((resolve) => {
      waiter = { grant: () => resolve(release) };
    });
    const queue = backgroundWork.getStore() && !first ? this.waitingBackground : this.waiting;
    if (first) queue.unshift(waiter);
    else queue.push(waiter);
    return {
      granted,
      cancel: () => {
        const at = queue.indexOf(waiter);
        if (at >= 0) queue.splice(at, 1);
      },
    };
  }

  private next(): void {
    while (this.active < this.limit && (this.waiting.length || this.waitingBackground.length)) {
      this.active++;
      const backgroundTurn = this.waitingBackground.length > 0 && (this.waiting.length === 0 || this.passedOver >= BACKGROUND_EVERY);
      if (backgroundTurn) {
        this.passedOver = 0;
        this.waitingBackground.shift()!.grant();
      } else {
        if (this.waitingBackground.length) this.passedOver++;
        this.waiting.shift()!.grant();
      }
    }
  }

  resize(limit: number): void {
    this.limit = limit;
    this.next();
  }
}

export interface GuardLogger {
  error(obj: unknown, msg?: string): void;
}

export interface GuardLimits {
  maxWrites: number;
  maxReads: number;
  maxStatements: number;
}

export interface GuardStats {
  writesInUse: number;
  writesQueued: number;
  readsInUse: number;
  readsQueued: number;
  timeouts: number;
  refused: number;
  /** Operations whose deadline passed and the driver has not settled yet. */
  overdue: number;
}

/** What one kind of operation on one collection has cost since the start (seconds are summed over operations). */
export interface OperationTotals {
  collection: string;
  operation: string;
  count: number;
  /** Waiting for a slot, before being sent. */
  waitSeconds: number;
  /** Sent, until the driver settled it: the database's time, as this instance saw it. */
  busySeconds: number;
}

const WRITE_METHODS = new Set([
  'insertOne', 'insertMany', 'updateOne', 'updateMany', 'replaceOne', 'deleteOne', 'deleteMany', 'bulkWrite',
  'findOneAndUpdate', 'findOneAndReplace', 'findOneAndDelete', 'createIndex', 'createIndexes', 'dropIndex', 'drop', 'rename',
]);
const READ_METHODS = new Set(['findOne', 'countDocuments', 'estimatedDocumentCount', 'distinct', 'indexes', 'indexExists']);
const CURSOR_METHODS = new Set(['find', 'aggregate', 'listIndexes']);

export class DatabaseGuard {
  private readonly writes: Slots;
  private readonly reads: Slots;
  private closedReason: string | undefined;
  private timeouts = 0;
  private refused = 0;
  private overdue = 0;
  private troubleListener: (() => void) | undefined;
  private failureListener: ((err: unknown) => void) | undefined;
  /** When an operation last completed (performance.now()): a busy database still makes progress. */
  lastProgressAt = 0;
  /** When each operation still awaiting its answer was sent, and its deadline (performance.now()). */
  /** Operations sent and not settled; `overdue` once their deadline fired (set by the deadline's own timer). */
  private readonly sentAt = new Set<{ at: number; overdue: boolean }>();
  /** By collection and operation: which work keeps the database busy (vane_db_operation_seconds_total). */
  private readonly totals = new Map<string, OperationTotals>();
  maxStatements: number;

  constructor(
    readonly timeoutMs: number,
    limits: GuardLimits,
    private readonly log: GuardLogger,
  ) {
    this.writes = new Slots(limits.maxWrites);
    this.reads = new Slots(limits.maxReads);
    this.maxStatements = limits.maxStatements;
  }

  /** Sets the limits once the server's kind is known (src/plugins/database.ts). */
  configure(limits: GuardLimits): void {
    this.writes.resize(limits.maxWrites);
    this.reads.resize(limits.maxReads);
    this.maxStatements = limits.maxStatements;
  }

  get limits(): GuardLimits {
    return { maxWrites: this.writes.limit, maxReads: this.reads.limit, maxStatements: this.maxStatements };
  }

  /** Told of every missed deadline (the health check then probes at once, not at its next tick). */
  onTimeout(listener: () => void): void {
    this.troubleListener = listener;
  }

  /**
   * Told of every operation that failed other than by its deadline (the plugin tells the health
   * check when the error says the server cannot be reached).
   */
  onFailure(listener: (err: unknown) => void): void {
    this.failureListener = listener;
  }

  /** Refuses every operation but probes at once, until `open` (the database does not answer). */
  close(reason: string): void {
    this.closedReason = reason;
  }

  open(): void {
    this.closedReason = undefined;
  }

  get isOpen(): boolean {
    return this.closedReason === undefined;
  }

  stats(): GuardStats {
    return {
      writesInUse: this.writes.inUse, writesQueued: this.writes.queued, readsInUse: this.reads.inUse,
      readsQueued: this.reads.queued, timeouts: this.timeouts, refused: this.refused, overdue: this.overdue,
    };
  }

  /** Count and time of every operation settled so far, by collection and operation. */
  operationTotals(): OperationTotals[] {
    return [...this.totals.values()];
  }

  private account(collection: string, operation: string, waitMs: number, busyMs: number): void {
    const key = `${collection} ${operation}`;
    let t = this.totals.get(key);
    if (!t) {
      t = { collection, operation, count: 0, waitSeconds: 0, busySeconds: 0 };
      this.totals.set(key, t);
    }
    t.count++;
    t.waitSeconds += waitMs / 1000;
    t.busySeconds += busyMs / 1000;
  }

  /**
   * Runs `fn` (one database operation) in a slot of its kind, within the deadline. `probe`
   * operations (the health check) run while the gate is closed; `timeoutMs` overrides the
   * deadline for work known to be long (none on a request's path).
   */
  async run<T>(
    kind: OperationKind, operation: string, collection: string, fn: () => Promise<T>,
    options: { probe?: boolean; timeoutMs?: number } = {},
  ): Promise<T> {
    if (!options.probe) {
      const reason = this.closedReason ?? this.stalled();
      if (reason !== undefined) {
        this.refused++;
        throw new DatabaseUnavailableError(operation, collection, reason);
      }
    }
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    // A probe waits only for the operation in flight, not behind the queue: it asks whether the
    // database answers, not how long the queue is. Queued last, a probe during a freeze waited its
    // deadline unsent behind the writers, and `/ready` turned 503 after 13.4 s instead of ~3 s
    // (the 2 000-flag soak). It still takes a slot: with the probe sent beside other writes (SQLite,
    // under FerretDB, admits one writer), instances.test's racing flag writes ended in 409s in 2
    // runs of 4.
    const calledAt = performance.now();
    const { granted, cancel } = (kind === 'write' ? this.writes : this.reads).acquire(options.probe === true);
    let sent = false;
    let timedOut = false;
    let mark: { at: number; overdue: boolean } | undefined;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        // Marked by the timer itself, not by comparing clocks: a timer may fire a fraction of a
        // millisecond before `sentAt + timeoutMs` by performance.now() (1 run in 8 of guard.test).
        if (mark) mark.overdue = true;
        cancel();
        this.timeouts++;
        const err = new DatabaseTimeoutError(operation, collection, timeoutMs, sent);
        this.log.error({ operation, collection, timeoutMs, sent, kind }, err.message);
        reject(err);
        if (!options.probe) this.troubleListener?.();
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
        const sentMark = { at: performance.now(), overdue: false };
        mark = sentMark;
        this.sentAt.add(sentMark);
        const started = fn();
        // The slot stays taken until the driver settles the operation (a database that stopped
        // answering is not sent more meanwhile), but no longer than one more deadline after ours.
        let overdueTimer: NodeJS.Timeout | undefined;
        const settled = () => {
          clearTimeout(overdueTimer);
          this.sentAt.delete(sentMark);
          this.account(collection, operation, sentMark.at - calledAt, performance.now() - sentMark.at);
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
    } catch (err) {
      if (!timedOut && !options.probe) this.failureListener?.(err);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Why the database counts as not answering before the health check has said so: an operation
   * past its deadline still has no answer and none has completed since it was sent. Until the
   * check closed the gate, every write in turn waited out a deadline of its own after the one
   * before: the soak's first write while frozen answered 503 after 4.1 s, for a 2 s deadline. A
   * busy database goes on completing operations, so it is not refused for being slow.
   */
  private stalled(): string | undefined {
    const now = performance.now();
    if (now - this.lastProgressAt <= this.timeoutMs) return undefined;
    for (const { at, overdue } of this.sentAt) {
      if (overdue && at > this.lastProgressAt) return `an operation sent ${Math.round(now - at)} ms ago has no answer yet, and none has completed since`;
    }
    return undefined;
  }

  /**
   * The same database, with every collection's operations guarded (see the class comment). A Proxy
   * over the driver's `Db` and `Collection` rather than the driver's own `timeoutMS`: that bounds
   * one operation's time, not how many are in flight, nor refuses work while the database is known
   * down, nor lets a request's operation pass background work. The client's `socketTimeoutMS`
   * stays the last resort (plugins/database.ts).
   */
  wrapDb(db: Db): Db {
    return new Proxy(db, {
      get: (target, prop, receiver) => {
        if (prop === 'collection') {
          return (name: string, options?: Parameters<Db['collection']>[1]) =>
            this.wrapCollection(target.collection(name, options));
        }
        if (prop === 'command') {
          return (command: Document, options?: Parameters<Db['command']>[1]) =>
            this.run('read', Object.keys(command)[0] ?? 'command', '(database)', () => target.command(command, options));
        }
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  wrapCollection<T extends Document>(collection: Collection<T>): Collection<T> {
    const name = collection.collectionName;
    return new Proxy(collection, {
      get: (target, prop, receiver) => {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof prop !== 'string' || typeof value !== 'function') return value;
        const method = value as (...a: unknown[]) => unknown;
        if (WRITE_METHODS.has(prop)) {
          return (...args: unknown[]) => {
            if (prop === 'bulkWrite') this.checkStatements(name, args[0]);
            return this.run('write', prop, name, () => method.apply(target, args) as Promise<unknown>);
          };
        }
        if (READ_METHODS.has(prop)) {
          return (...args: unknown[]) => this.run('read', prop, name, () => method.apply(target, args) as Promise<unknown>);
        }
        if (CURSOR_METHODS.has(prop)) {
          return (...args: unknown[]) => this.guardCursor(method.apply(target, args) as AbstractCursor, prop, name);
        }
        return method.bind(target);
      },
    });
  }

  private checkStatements(collection: string, operations: unknown): void {
    if (Array.isArray(operations) && operations.length > this.maxStatements) {
      throw new TooManyStatementsError(
        `bulkWrite of ${operations.length} statements on ${collection}: at most ${this.maxStatements} per command (use inBatches)`,
      );
    }
  }

  /**
   * Guards each round trip of a cursor: `next` and `hasNext` (which `toArray` and `for await`
   * use) go through a read slot and the deadline only when the cursor's buffer is empty, so a
   * long read is bounded per batch, not as a whole, and documents already received cost nothing.
   * A cursor whose round trip failed is closed in the background (on FerretDB an open cursor
   * holds one of its SQLite connections).
   */
  private guardCursor<C extends AbstractCursor>(cursor: C, operation: string, collection: string): C {
    const next = cursor.next.bind(cursor);
    const hasNext = cursor.hasNext.bind(cursor);
    const roundTrip = <R>(fn: () => Promise<R>): Promise<R> => {
      if (cursor.bufferedCount() > 0) return fn();
      return this.run('read', operation, collection, fn).catch((err: unknown) => {
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
export async function inBatches<T>(items: readonly T[], size: number, write: (batch: T[]) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < items.length; start += size) await write(items.slice(start, start + size));
}
