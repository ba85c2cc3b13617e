import type { Collection, Db } from 'mongodb';
import { Counter, Gauge, type Registry } from 'prom-client';
import { DatabaseTimeoutError, type DatabaseGuard, type GuardStats, type OperationTotals } from './guard.js';

/**
 * Whether the database answers, checked continuously: every `intervalMs` one small write (this
 * instance's document in `health`) and one read of it, each through the guard's slots and within
 * its deadline, as a request's write would be. A driver that still holds a connection proves
 * nothing (a wedged FerretDB answers `hello` and `ping` while every write waits for ever), so the
 * probe is a real write.
 *
 * After a failed probe the guard is closed (operations refused at once, 503) until a probe
 * succeeds; then the `onRecovered` listeners run (the outbox repair, documents whose write had an
 * unknown outcome re-read, src/plugins/database.ts). When the probe has failed for `restartAfterMs`
 * and `restart` is given (the embedded database), the database process is restarted.
 */

export interface HealthLogger {
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
}

interface HealthDocument {
  _id: string;
  at: Date;
  count: number;
}

export interface HealthOptions {
  intervalMs: number;
  /** 0: never restart. */
  restartAfterMs: number;
  restart?: () => Promise<void>;
}

export class DatabaseHealth {
  private readonly collection: Collection<HealthDocument>;
  private timer: NodeJS.Timeout | undefined;
  private healthy = true;
  private driverAvailable = true;
  private failingSince: number | undefined;
  private lastError: string | undefined;
  private probes = 0;
  private restarting: Promise<void> | undefined;
  restarts = 0;
  private readonly recoveredListeners: Array<() => Promise<void> | void> = [];
  private stopped = false;

  /** @param db the database unwrapped (not `guardDb`'s): the probe passes the guard itself, as a probe. */
  constructor(
    db: Db,
    private readonly guard: DatabaseGuard,
    private readonly instance: string,
    private readonly options: HealthOptions,
    private readonly log: HealthLogger,
  ) {
    this.collection = db.collection<HealthDocument>('health');
  }

  /** The last probe succeeded and the driver has the server. */
  get isHealthy(): boolean {
    return this.healthy && this.driverAvailable;
  }

  status(): { healthy: boolean; failingForMs: number; lastError?: string; restarts: number } {
    return {
      healthy: this.isHealthy,
      failingForMs: this.failingSince === undefined ? 0 : Date.now() - this.failingSince,
      ...(this.lastError ? { lastError: this.lastError } : {}),
      restarts: this.restarts,
    };
  }

  /** The guard's slots and queues, missed deadlines, refusals, health and restarts, for Prometheus. */
  registerMetrics(registry: Registry): void {
    const guard = this.guard;
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- prom-client calls collect() with the metric as `this`
    const health = this;
    const byKind: Array<[string, string, (stats: GuardStats) => [write: number, read: number]]> = [
      ['vane_db_operations_in_flight', 'Database operations holding a slot, by kind (src/db/guard.ts)', (s) => [s.writesInUse, s.readsInUse]],
      ['vane_db_operations_queued', 'Database operations waiting for a slot, by kind', (s) => [s.writesQueued, s.readsQueued]],
    ];
    for (const [name, help, pick] of byKind) {
      new Gauge({
        name, help, labelNames: ['kind'], registers: [registry],
        collect() {
          const [write, read] = pick(guard.stats());
          this.set({ kind: 'write' }, write);
          this.set({ kind: 'read' }, read);
        },
      });
    }
    new Counter({
      name: 'vane_db_deadlines_missed_total', help: 'Database operations that did not finish within DB_TIMEOUT_MS', registers: [registry],
      collect() {
        this.reset();
        this.inc(guard.stats().timeouts);
      },
    });
    new Counter({
      name: 'vane_db_refused_total', help: 'Database operations refused at once while the database did not answer', registers: [registry],
      collect() {
        this.reset();
        this.inc(guard.stats().refused);
      },
    });
    const perOperation: Array<[string, string, (t: OperationTotals) => number]> = [
      ['vane_db_operations_total', 'Database operations settled, by collection and operation', (t) => t.count],
      ['vane_db_operation_seconds_total', 'Time database operations spent sent and unanswered, by collection and operation', (t) => t.busySeconds],
      ['vane_db_slot_wait_seconds_total', 'Time database operations waited for a slot before being sent, by collection and operation', (t) => t.waitSeconds],
    ];
    for (const [name, help, pick] of perOperation) {
      new Counter({
        name, help, labelNames: ['collection', 'operation'], registers: [registry],
        collect() {
          this.reset();
          for (const t of guard.operationTotals()) this.inc({ collection: t.collection, operation: t.operation }, pick(t));
        },
      });
    }
    new Gauge({
      name: 'vane_db_healthy', help: '1 when the database answered its last health probe (a write and a read), else 0', registers: [registry],
      collect() {
        this.set(health.isHealthy ? 1 : 0);
      },
    });
    new Counter({
      name: 'vane_db_restarts_total', help: 'Restarts of the embedded database after it stopped answering', registers: [registry],
      collect() {
        this.reset();
        this.inc(health.restarts);
      },
    });
  }

  onRecovered(listener: () => Promise<void> | void): void {
    this.recoveredListeners.push(listener);
  }

  /** The driver's view (topology events): losing the server closes the gate at once. */
  driverReachable(available: boolean): void {
    if (available === this.driverAvailable) return;
    this.driverAvailable = available;
    if (!available) {
      this.log.warn('database unreachable (the driver lost the server)');
      this.markFailing('the driver lost the server');
    } else {
      // Reopened only by a successful probe: run one now rather than at the next tick.
      this.probeSoon();
    }
  }

  /** An operation found the server unreachable (a connection refused or reset): failing until a probe succeeds, probed now. */
  unreachable(reason: string): void {
    if (this.stopped) return; // closing: the client went first
    this.lastError = reason;
    this.markFailing(reason);
    this.probeSoon();
  }

  start(): void {
    this.stopped = false;
    this.schedule(this.options.intervalMs);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref();
  }

  /** Probes now rather than at the next tick (an operation missed its deadline). */
  probeSoon(): void {
    if (!this.running) this.schedule(0);
  }

  private running = false;

  private async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      await this.probe();
    } finally {
      this.running = false;
      this.schedule(this.options.intervalMs);
    }
  }

  /** One write and one read, each within the guard's deadline. Returns whether both succeeded. */
  async probe(): Promise<boolean> {
    const count = ++this.probes;
    const id = `probe:${this.instance}`;
    try {
      await this.guard.run('write', 'replaceOne', 'health', () =>
        this.collection.replaceOne({ _id: id }, { at: new Date(), count }, { upsert: true }), { probe: true });
      const read = await this.guard.run('read', 'findOne', 'health', () => this.collection.findOne({ _id: id }), { probe: true });
      if (read?.count !== count) throw new Error(`the probe read back ${String(read?.count)} after writing ${count}`);
    } catch (err) {
      if (this.stopped) return false; // closing: the client went first
      if (this.busyNotDead(err)) return this.isHealthy;
      this.lastError = err instanceof Error ? err.message : String(err);
      this.markFailing(this.lastError);
      await this.restartIfWedged();
      return false;
    }
    if (!this.driverAvailable) return false;
    this.markHealthy();
    return true;
  }

  /**
   * The probe waited its whole deadline for a write slot while other operations kept completing:
   * the database is busy (a long queue of writes), not gone. Closing the gate for that would turn
   * a burst of writes into a burst of 503s for everyone; the writes queued past their deadline
   * already answer 503 on their own.
   */
  private busyNotDead(err: unknown): boolean {
    return err instanceof DatabaseTimeoutError && !err.sent &&
      performance.now() - this.guard.lastProgressAt < this.guard.timeoutMs;
  }

  private markFailing(reason: string): void {
    this.failingSince ??= Date.now();
    this.guard.close(reason);
    if (this.healthy) {
      this.healthy = false;
      this.log.error({ reason }, 'database not answering: writes answer 503 until it does; reads answer from memory');
    }
  }

  private markHealthy(): void {
    this.lastError = undefined;
    if (this.healthy && this.guard.isOpen) return;
    const outageMs = this.failingSince === undefined ? 0 : Date.now() - this.failingSince;
    this.healthy = true;
    this.failingSince = undefined;
    this.guard.open();
    this.log.info({ outageMs }, 'database answering again');
    for (const listener of this.recoveredListeners) {
      Promise.resolve()
        .then(listener)
        .catch((err: unknown) => this.log.error({ err }, 'recovery after a database outage failed'));
    }
  }

  private async restartIfWedged(): Promise<void> {
    const { restart, restartAfterMs } = this.options;
    if (!restart || restartAfterMs <= 0 || this.failingSince === undefined) return;
    const failingForMs = Date.now() - this.failingSince;
    if (failingForMs < restartAfterMs || this.restarting) return;
    this.log.error({ failingForMs, restartAfterMs }, 'embedded database has not answered; restarting it');
    this.restarting = restart()
      .then(() => {
        this.restarts++;
        // Give the restarted process its own full period before judging it again.
        this.failingSince = Date.now();
        this.log.warn('embedded database restarted');
      })
      .catch((err: unknown) => this.log.error({ err }, 'restarting the embedded database failed'))
      .finally(() => { this.restarting = undefined; });
    await this.restarting;
  }
}
