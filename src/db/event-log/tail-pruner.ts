import type { Collection } from 'mongodb';
import { tailKey, type TailEntry } from './append.js';
import { firstIdOf } from './blocks.js';
import type { LogWriter } from './index.js';

/** Tail documents of this many sealed blocks are kept (ids recently claimed stay findable by key). */
export const TAIL_KEPT_BLOCKS = 4;
/**
 * Tail documents past those kept that may wait for requests' writes to pause before they are
 * deleted (LogWriter.maintenanceTurn); past this many (two blocks) they are deleted as they come,
 * STEADY_DELETES or URGENT_DELETES to a command, so the tail stays bounded under any stream of writes.
 */
const PRUNE_BACKLOG = 512;
/**
 * Tail documents deleted in one command past PRUNE_BACKLOG: a few while the backlog is within
 * twice the bound, more past that. The user's write that comes meanwhile waits for the whole
 * command: at 5 000 flags, eight to a command took 13 ms on average during sequential toggles, up
 * to 31 ms, and set the toggles' p99 (command monitoring, 300 writes of each kind: on/off p99
 * 60.8 ms); a burst of writes crosses the bound with every block sealed, so most of them are
 * deleted two at a time. A client that never pauses (the 2 000-flag replay) drives the backlog
 * past twice the bound, where eight to a command keep up with it (0.29× the reference's time).
 */
const STEADY_DELETES = 2;
const URGENT_DELETES = 8;

interface PrunerLogger {
  warn(obj: object, msg?: string): void;
}

/**
 * Deletes the tail documents (`event_tail`) of blocks sealed TAIL_KEPT_BLOCKS ago and before, by
 * `_id`, so the tail stays a few blocks long: one at a time when requests' writes pause, several
 * at once past PRUNE_BACKLOG. One `deleteMany` of a block's 256 documents held the embedded
 * database's only writer for ~63 ms at 5 000 flags, and the user's write that came meanwhile
 * waited for all of it; a delete by `_id` takes ~2 ms, 16 in one `bulkWrite` ~1 ms each.
 *
 * The documents are named by key, from `floor` up, not found by a query: FerretDB answers any
 * query on `id` by reading every tail document's body (20 + 46 + 130 ms of `find` and `getMore`
 * at 2 000 flags, holding the writer). A key already gone (pruned by another instance) deletes
 * nothing.
 */
export class TailPruner {
  private pruning: Promise<void> | undefined;
  private again = false;
  /** The lowest id whose tail document may still exist (ids are dense: the rest are known by key). */
  private floor = Number.POSITIVE_INFINITY;
  /**
   * Tail documents an earlier run left unpruned (it stopped behind its writers): ids `next` up to
   * `end`, deleted one by one when writers pause, after the newest sealed block's.
   */
  private leftovers: { next: number; end: number } | undefined;

  constructor(
    private readonly tail: Collection<TailEntry>, private readonly writer: LogWriter, private readonly log: PrunerLogger,
    /** The newest block of the run of sealed blocks from block 0. */
    private readonly sealedThrough: () => number,
    private readonly stopped: () => boolean,
  ) {}

  /** Where pruning starts, from the start's read of the tail (its lowest id, infinite when empty). */
  begin(lowestInTail: number): void {
    const sealed = this.sealedThrough();
    // Every later tail document belongs to a block not sealed yet, above this.
    const floor = Math.min(this.floor, lowestInTail, firstIdOf(sealed + 1));
    const kept = this.keptFrom();
    if (floor < kept) {
      this.leftovers = { next: floor, end: kept };
      this.floor = kept;
    } else {
      this.floor = floor;
    }
  }

  /** Prunes an earlier run's leftovers when writers pause (a start calls it once it serves). */
  pruneLeftovers(): void {
    if (this.leftovers) this.soon();
  }

  /**
   * Starts pruning, or asks the pruning under way to look again when it ends. It waits for
   * writers to pause, so it runs beside the mirror's ordered work, not in it.
   */
  soon(): void {
    if (this.pruning) {
      this.again = true;
      return;
    }
    this.pruning = (async () => {
      try {
        do {
          this.again = false;
          await this.prune();
        } while (this.again && !this.stopped());
      } catch (err) {
        this.log.warn({ err }, 'event log mirror: pruning the tail failed (retried after the next block)');
      } finally {
        this.pruning = undefined;
      }
    })();
  }

  /** Settles when no pruning is under way. */
  async settled(): Promise<void> {
    while (this.pruning) await this.pruning;
  }

  get busy(): boolean {
    return this.pruning !== undefined;
  }

  private keptFrom(): number {
    return firstIdOf(this.sealedThrough() - TAIL_KEPT_BLOCKS + 1);
  }

  private backlog(): number {
    return this.keptFrom() - this.floor;
  }

  private async prune(): Promise<void> {
    const below = this.keptFrom();
    if (below <= 1 || !Number.isFinite(this.floor)) return;
    while (this.floor < below) {
      // Urgent once the backlog (to the newest block sealed, meanwhile too) passes its bound.
      const deleted = await this.deleteInTurn(this.floor, below, () => this.backlog() > PRUNE_BACKLOG);
      if (deleted === 0) return;
      this.floor += deleted;
    }
    const leftovers = this.leftovers;
    while (leftovers && leftovers.next < leftovers.end) {
      if (this.again) return; // a block sealed meanwhile: its documents first
      const deleted = await this.deleteInTurn(leftovers.next, leftovers.next + 1, () => this.again);
      if (deleted === 0) return;
      leftovers.next += deleted;
    }
    this.leftovers = undefined;
  }

  /**
   * Deletes tail documents from `from` (below `end`) in a maintenance turn: one when writers
   * paused, several in one command when `urgent()` (the turn came at once). The number deleted;
   * 0, deleting nothing, once stopping.
   */
  private async deleteInTurn(from: number, end: number, urgent: () => boolean): Promise<number> {
    const ended = await this.writer.maintenanceTurn(() => this.stopped() || urgent());
    try {
      if (this.stopped()) return 0;
      const count = urgent() ? Math.min(this.backlog() > 2 * PRUNE_BACKLOG ? URGENT_DELETES : STEADY_DELETES, end - from) : 1;
      if (count === 1) {
        await this.tail.deleteOne({ _id: tailKey(from) });
      } else {
        const deletes = Array.from({ length: count }, (_, i) => ({ deleteOne: { filter: { _id: tailKey(from + i) } } }));
        await this.tail.bulkWrite(deletes, { ordered: false });
      }
      return count;
    } finally {
      ended();
    }
  }
}
