/**
 * Delivery: every event of the log an enabled webhook configuration takes is POSTed to it, in
 * event order per configuration, one at a time, with a deadline, retried with back-off a bounded
 * number of times, each attempt recorded in the delivery log (log.ts). One instance delivers, the
 * lease holder (lease.ts); it follows the event log, whatever instance committed the events, and
 * goes on from each configuration's position in the delivery log, so a restart or a takeover
 * neither skips nor (in the normal case) repeats an event. Nothing here runs in a request: a
 * commit only wakes the workers.
 */
import { inBackground } from '../../db/guard.js';
import type { StoredEvent } from '../../db/event-log/index.js';
import type { DeliveryLease } from './lease.js';
import type { DeliveryLog } from './log.js';
import type { AddonDocument } from './store.js';
import type { UrlPolicy } from './url.js';
import { jsonbOrder } from '../../json.js';
import { attempt, takes, webhookEvent } from './webhook.js';

export interface DeliveryOptions {
  timeoutMs: number;
  /** Attempts per event, the first included. */
  attempts: number;
  /** The wait after the first failed attempt, doubled after each, up to `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
  policy: UrlPolicy;
  /** How often the lease is looked at (and renewed). */
  tickMs: number;
}

/** What the deliverer reads: the configurations, the event log, and a signal per commit. */
export interface DeliverySources {
  addons(): AddonDocument[];
  addon(id: number): AddonDocument | undefined;
  newestEventId(): number;
  /** Events by id, those the log holds, in id order. */
  events(ids: number[]): Promise<StoredEvent[]>;
  eventsReady(): Promise<void>;
  onCommitted(listener: () => void): () => void;
  markdown(event: StoredEvent): string;
}

export interface DeliveryLogger {
  warn(obj: object, message: string): void;
}

/** Events read from the log at once by a worker catching up. */
const READ_BATCH = 100;
/** A worker with nothing to do looks again after this even without a commit (a missed signal costs at most this). */
const IDLE_MS = 1000;

export function deliverable(addon: AddonDocument): boolean {
  return addon.enabled && addon.provider === 'webhook';
}

/** One configuration's deliveries, in event order. */
class AddonWorker {
  private stopped = false;
  private signal: (() => void) | undefined;
  readonly done: Promise<void>;

  constructor(private readonly id: number, private readonly deliverer: Deliverer) {
    this.done = this.run().catch((err: unknown) => deliverer.log.warn({ err, addon: id }, 'addon deliveries stopped; the next tick starts them again'));
  }

  wake(): void {
    this.signal?.();
  }

  stop(): void {
    this.stopped = true;
    this.wake();
  }

  private get active(): boolean {
    const addon = this.deliverer.sources.addon(this.id);
    return !this.stopped && addon !== undefined && deliverable(addon) && this.deliverer.lease.holding();
  }

  private async idle(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.signal = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.signal = undefined;
  }

  private async run(): Promise<void> {
    const { sources, history } = this.deliverer;
    await sources.eventsReady();
    let position = (await inBackground(() => history.position(this.id))) ?? 0;
    while (this.active) {
      position = Math.max(position, sources.addon(this.id)!.since);
      const newest = sources.newestEventId();
      if (position >= newest) {
        await this.idle(IDLE_MS);
        continue;
      }
      const ids = Array.from({ length: Math.min(READ_BATCH, newest - position) }, (_, i) => position + 1 + i);
      for (const event of await sources.events(ids)) {
        const addon = sources.addon(this.id);
        if (!addon || !this.active) return;
        if (event.id > addon.since && takes(addon, event) && !(await this.deliver(event))) return;
        position = event.id;
      }
      position = Math.max(position, ids[ids.length - 1]!);
    }
  }

  /** Attempts until one is final; false when delivering stopped first (the event is taken up again from the log). */
  private async deliver(event: StoredEvent): Promise<boolean> {
    const { options, sources, history } = this.deliverer;
    const markdown = sources.markdown(event);
    // Listed as Unleash lists the event it handed over: its stored (jsonb) key order.
    const listed = JSON.stringify(jsonbOrder(webhookEvent(event)));
    for (let n = 1; ; n++) {
      const addon = sources.addon(this.id);
      if (!addon || !this.active) return false;
      const result = await attempt(addon, event, { timeoutMs: options.timeoutMs, policy: options.policy, markdown });
      const final = !result.retry || n >= options.attempts;
      const entry = { addonId: this.id, eventId: event.id, final, state: result.state, stateDetails: result.stateDetails, details: result.details };
      try {
        await inBackground(() => history.record({ ...entry, event: listed }));
      } catch (err) {
        this.deliverer.log.warn({ err, addon: this.id, event: event.id }, 'addon delivery: the attempt was not recorded');
      }
      if (final) return true;
      await this.idle(Math.min(options.maxBackoffMs, options.backoffMs * 2 ** (n - 1)));
    }
  }
}

export class Deliverer {
  private readonly workers = new Map<number, AddonWorker>();
  private readonly stopping = new Map<number, AddonWorker>();
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private stopped = true;
  private ticking: Promise<void> = Promise.resolve();

  constructor(
    readonly sources: DeliverySources,
    readonly history: DeliveryLog,
    readonly lease: DeliveryLease,
    readonly options: DeliveryOptions,
    readonly log: DeliveryLogger,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.unsubscribe = this.sources.onCommitted(() => {
      for (const worker of this.workers.values()) worker.wake();
    });
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.ticking = this.tick().finally(() => this.schedule(this.options.tickMs));
    }, ms);
    this.timer.unref();
  }

  /** Takes, renews or releases the lease, then runs one worker per deliverable configuration while it is held. */
  private async tick(): Promise<void> {
    const wanted = this.sources.addons().filter(deliverable);
    let holding = false;
    try {
      holding = await inBackground(() => this.lease.tick(wanted.length > 0));
    } catch (err) {
      this.log.warn({ err }, 'addon deliveries: the lease was not read or renewed; tried again on the next tick');
    }
    const keep = new Set(holding ? wanted.map((addon) => addon._id) : []);
    for (const [id, worker] of this.workers) {
      if (!keep.has(id)) {
        worker.stop();
        this.workers.delete(id);
        // Its attempt in flight ends and is recorded before a new worker reads the position: a
        // lease that lapsed for a moment (an event loop held for seconds) sent an event twice.
        this.stopping.set(id, worker);
        void worker.done.then(() => {
          if (this.stopping.get(id) === worker) this.stopping.delete(id);
        });
      }
    }
    for (const id of keep) if (!this.workers.has(id) && !this.stopping.has(id)) this.workers.set(id, new AddonWorker(id, this));
  }

  /** Stops delivering: the attempts in flight end (within their deadline), nothing new starts. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.unsubscribe?.();
    await this.ticking;
    const running = [...this.workers.values(), ...this.stopping.values()];
    for (const worker of running) worker.stop();
    this.workers.clear();
    this.stopping.clear();
    await Promise.all(running.map((worker) => worker.done));
    try {
      await this.lease.release();
    } catch (err) {
      this.log.warn({ err }, 'addon deliveries: the lease was not released; another instance takes it when it expires');
    }
  }
}
