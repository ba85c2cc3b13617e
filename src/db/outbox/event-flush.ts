import type { BackgroundJob } from '../background-failures.js';
import { inBackground } from '../guard.js';
import type { EventLog } from '../event-log/index.js';
import type { Commit, NumberedEvent } from './commit-log.js';

/**
 * Appends committed events to the event log. A write is acknowledged once its commit is stored
 * (the events are durable there, src/db/outbox/commit-log.ts); its events reach the log after the
 * response, gathered with those of the writes around it: until no commit came for QUIET_MS, at
 * most MAX_DELAY_MS after the first, or at once when a reader of the log asks (`flushed`). Each
 * append costs the embedded database's one writer two commands whatever it holds, so a run of
 * writes shares them.
 *
 * Events of another instance's commit are appended by their writer; `ensureLater` appends them
 * here too if the log does not hold them after orphanMs (their writer died in between), and
 * `ensure` at start for every commit whose events the log lacks. Appending is idempotent (ids are
 * fixed by the commit), so doing it twice costs only the commands.
 */
export class EventFlusher {
  static readonly QUIET_MS = 3;
  static readonly MAX_DELAY_MS = 20;
  static readonly RETRY_MS = 1000;
  /** Events waiting or being appended beyond which a writer waits before answering (`keepUp`). */
  static readonly BACKLOG = 256;

  private batch: NumberedEvent[] = [];
  private batchOpened = 0;
  private lastQueued = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Appends that failed (the database did not answer): tried again every RETRY_MS and by `retry`. */
  private failed: NumberedEvent[] = [];
  private retryTimer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private backlog = 0;
  /** Other instances' commits' events, oldest first, each checked once `dueAt` (`ensureLater`). */
  private orphans: Array<{ dueAt: number; events: readonly NumberedEvent[] }> = [];
  private orphanTimer: NodeJS.Timeout | undefined;
  private checkingOrphans = false;
  private stopped = false;

  /** How long another instance's commit may wait for its events before this process appends them. */
  orphanMs = 2000;

  constructor(
    private readonly log: EventLog,
    private readonly onError: (job: BackgroundJob, err: unknown) => void,
  ) {}

  /** This process's commit's events: appended after the gate (see the class). */
  queue(events: readonly NumberedEvent[]): void {
    if (!events.length) return;
    const now = performance.now();
    if (!this.batch.length) this.batchOpened = now;
    this.batch.push(...events);
    this.backlog += events.length;
    this.lastQueued = now;
    this.timer ??= setTimeout(() => this.gate(), EventFlusher.QUIET_MS);
  }

  private gate(): void {
    this.timer = undefined;
    const now = performance.now();
    const due = Math.min(this.lastQueued + EventFlusher.QUIET_MS, this.batchOpened + EventFlusher.MAX_DELAY_MS);
    if (now < due) this.timer = setTimeout(() => this.gate(), due - now);
    else void this.run();
  }

  /** Sends what is gathered now, behind the appends already under way. */
  private run(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.batch;
    this.batch = [];
    if (batch.length) this.chain = this.chain.then(() => this.append(batch));
    return this.chain;
  }

  private async append(batch: NumberedEvent[]): Promise<void> {
    const events = [...this.failed, ...batch];
    this.failed = [];
    try {
      await this.log.appendMany(events);
      this.backlog -= batch.length;
    } catch (err) {
      // Durable in their commits: appended when the database answers again (retry), or by the
      // next start (ensure), whichever comes first.
      this.failed = events;
      this.backlog -= batch.length;
      this.onError('event flush', err);
      if (!this.stopped) this.retryTimer ??= setTimeout(() => {
        this.retryTimer = undefined;
        void this.retry();
      }, EventFlusher.RETRY_MS).unref();
    }
  }

  /** Appends the events of failed appends now (the database answers again). */
  async retry(): Promise<void> {
    if (!this.failed.length) return;
    this.chain = this.chain.then(() => this.append([]));
    await this.chain;
  }

  /**
   * Resolves once the events queued so far were appended, or their append failed (they stay
   * queued for `retry`): a reader of the log sees this process's acknowledged writes.
   */
  async flushed(): Promise<void> {
    await this.run();
  }

  /** Resolves once fewer than BACKLOG events wait: writers slow to the pace of the log. */
  async keepUp(): Promise<void> {
    while (this.backlog > EventFlusher.BACKLOG) await this.run();
  }

  /** Appends those of `events` that the log does not hold (start: the commits' events). */
  async ensure(events: readonly NumberedEvent[]): Promise<number> {
    const missing = await this.log.unstored(events);
    if (missing.length) {
      const run = this.chain.then(() => this.log.appendMany(missing));
      this.chain = run.catch(() => undefined); // the caller hears of the failure; the chain goes on
      await run;
    }
    return missing.length;
  }

  /** Appends the events of the commits (by their events' ids) whose events the log lacks, read again by number. */
  async ensureCommits(ranges: ReadonlyArray<{ seq: number; first: number; count: number }>, read: (seq: number) => Promise<Commit | undefined>): Promise<void> {
    for (const { seq, first, count } of ranges) {
      let held = true;
      for (let id = first; id < first + count && held; id++) held = this.log.holds(id);
      if (held) continue;
      const commit = await read(seq);
      if (commit) await this.ensure(commit.events);
    }
  }

  /**
   * Another instance's commit: its events appended here unless the log holds them by orphanMs.
   * The checks run one at a time, each taking every commit then due: one check per commit, each
   * waiting for a read slot, missed their deadline 330 times in a 5-minute two-instance soak
   * (2 000 flags), and each miss queued the check again beside the next ones.
   */
  ensureLater(events: readonly NumberedEvent[]): void {
    if (!events.length || this.stopped) return;
    this.orphans.push({ dueAt: performance.now() + this.orphanMs, events });
    this.checkOrphansSoon();
  }

  private checkOrphansSoon(): void {
    if (this.orphanTimer || this.checkingOrphans || this.stopped || !this.orphans.length) return;
    this.orphanTimer = setTimeout(() => {
      this.orphanTimer = undefined;
      const now = performance.now();
      const due = this.orphans.filter((o) => o.dueAt <= now);
      this.orphans = this.orphans.filter((o) => o.dueAt > now);
      this.checkingOrphans = true;
      // Until it succeeds: the copy seals their block only once it has seen them stored.
      inBackground(() => this.ensure(due.flatMap((o) => o.events)))
        .catch((err: unknown) => {
          this.onError('event flush', err);
          // Later than any queued (theirs came before now): the list stays in order.
          this.orphans.push(...due.map((o) => ({ ...o, dueAt: performance.now() + this.orphanMs })));
        })
        .finally(() => {
          this.checkingOrphans = false;
          this.checkOrphansSoon();
        });
    }, Math.max(0, this.orphans[0]!.dueAt - performance.now()));
    this.orphanTimer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.orphanTimer);
    this.orphanTimer = undefined;
    this.orphans = [];
    clearTimeout(this.retryTimer);
  }
}
