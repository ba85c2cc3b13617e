import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { BackgroundJob } from '../background-failures.js';
import type { EventLog } from '../event-log/index.js';
import { inBackground } from '../guard.js';
import type { ConfigState } from '../state.js';
import type { DocumentId, StoredDocument } from './documents.js';
import type { MaintenancePacer } from './maintenance.js';
import { BUCKETS, bucketOf, encodePart, type Snapshot, type SnapshotStore } from './snapshots.js';

/** What the checkpoints read of the change writer. */
export interface CheckpointSource {
  /** The newest commit applied to the state. */
  head(): number;
  /** The id the next commit's first event takes. */
  nextEvent(): number;
  readonly state: ConfigState;
  readonly eventLog: EventLog;
  readonly pacer: MaintenancePacer;
}

/**
 * When this process writes a snapshot (snapshots.ts) of the state it holds: after EVERY_COMMITS
 * commits, or once commits pause for IDLE_MS. Each writes the buckets the commits since the last
 * one changed, as a maintenance write (it waits for requests' writes to pause and takes its share
 * of the database's writer: MaintenancePacer), and only once the event log holds every event of
 * the commits it covers, so a start from it has none of their events left to append.
 *
 * Why these numbers: a start reads the commits after the newest snapshot one by one, by `_id`
 * (about 1.5 ms each on the embedded database, four at a time), so 4 096 of them are at most
 * ~1.5 s; a snapshot after 4 096 strategy adds at 2 000 flags rewrites at most the ~2 000 buckets
 * in use (~5 KB each), a tenth of what those commits wrote.
 */
export class Checkpoints {
  static readonly EVERY_COMMITS = 4096;
  static readonly IDLE_MS = 2000;
  /** The part of each bucket in the newest snapshot this process knows. */
  private parts: string[] = new Array<string>(BUCKETS).fill('');
  private readonly dirty = new Set<number>();
  private seq = 0;
  private eventsHeldThrough = 0;
  private running: Promise<void> | undefined;
  private idle: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly store: SnapshotStore,
    private readonly source: CheckpointSource,
    private readonly onError: (job: BackgroundJob, err: unknown) => void,
  ) {}

  /** The state was loaded from `snapshot` (or, without one, from the whole log). */
  loaded(snapshot: Snapshot | undefined): void {
    if (!snapshot) return;
    this.parts = [...snapshot.parts];
    this.seq = snapshot.seq;
    this.eventsHeldThrough = snapshot.nextEvent - 1;
  }

  /** A commit applied to the state changed this document. */
  changed(coll: string, id: DocumentId): void {
    this.dirty.add(bucketOf(coll, id));
  }

  /** A commit was applied: a snapshot is due, or will be once commits pause. */
  committed(): void {
    if (this.stopped) return;
    clearTimeout(this.idle);
    if (this.source.head() - this.seq >= Checkpoints.EVERY_COMMITS) this.start();
    else this.idle = setTimeout(() => this.start(), Checkpoints.IDLE_MS).unref();
  }

  private start(): void {
    if (this.running || this.stopped || this.source.head() === this.seq) return;
    this.running = this.take()
      .catch((err: unknown) => this.onError('snapshot', err))
      .finally(() => (this.running = undefined));
  }

  /** Whether the event log holds every event before `next` (only known once its copy is ready). */
  private eventsHeld(next: number): boolean {
    const log = this.source.eventLog;
    if (!log.isReady()) return false;
    while (this.eventsHeldThrough < next - 1 && log.holds(this.eventsHeldThrough + 1)) this.eventsHeldThrough++;
    return this.eventsHeldThrough >= next - 1;
  }

  private async take(): Promise<void> {
    // Writers that never pause do not hold it off past twice its interval: a start would read it all.
    const ended = await this.source.pacer.turn(() => this.stopped || this.closing || this.source.head() - this.seq >= 2 * Checkpoints.EVERY_COMMITS);
    try {
      if (this.stopped) return;
      // The parts of the snapshot this one builds on go only with it (SnapshotStore.prune): if
      // another instance has pruned it, every part is written again.
      const rebuild = this.seq > 0 && !(await inBackground(() => this.store.has(this.seq)));
      // What the snapshot holds is taken in one turn of the loop: the state at exactly `seq`.
      const seq = this.source.head();
      const nextEvent = this.source.nextEvent();
      if (!this.eventsHeld(nextEvent)) {
        this.idle = setTimeout(() => this.start(), Checkpoints.IDLE_MS).unref();
        return;
      }
      const buckets = new Set(this.dirty);
      this.dirty.clear();
      if (rebuild) for (let bucket = 0; bucket < BUCKETS; bucket++) buckets.add(bucket);
      const docs = new Map<number, Array<[string, StoredDocument]>>();
      for (const [coll, mirror] of this.source.state.entries()) {
        for (const doc of mirror.values()) {
          const bucket = bucketOf(coll, doc._id);
          if (!buckets.has(bucket)) continue;
          const list = docs.get(bucket);
          if (list) list.push([coll, doc]);
          else docs.set(bucket, [[coll, doc]]);
        }
      }
      try {
        const parts = [...this.parts];
        const bodies: Array<{ key: string; body: string }> = [];
        let encoded = 0;
        for (const bucket of buckets) {
          const held = docs.get(bucket);
          if (!held) {
            parts[bucket] = '';
            continue;
          }
          const part = encodePart(held);
          parts[bucket] = part.key;
          bodies.push(part);
          // Documents are never changed once held: encoding can wait between requests.
          if (++encoded % 32 === 0) await yieldToEventLoop();
        }
        await inBackground(() => this.store.write(seq, nextEvent, parts, bodies));
        this.parts = parts;
        this.seq = seq;
      } catch (err) {
        for (const bucket of buckets) this.dirty.add(bucket);
        throw err;
      }
      await inBackground(() => this.store.prune(this.seq));
    } finally {
      ended();
    }
  }

  /** Writes a snapshot of the state now (unless one is under way, then after it). */
  async now(): Promise<void> {
    await this.running;
    this.start();
    await this.running;
  }

  private closing = false;

  /** A clean stop: a snapshot of what was committed since the last one, so the next start reads little of the log. */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.idle);
    await this.now();
    this.stop();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.idle);
  }

  /** Resolves once the snapshot under way, if any, has ended. */
  async settled(): Promise<void> {
    await this.running;
  }
}
