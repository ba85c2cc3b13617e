/**
 * Which instance delivers: the holder of the newest lease. Leases are numbered documents of
 * `addon_leases`, only ever inserted, so the database's one guarantee, a unique `_id`, decides
 * between instances (as the commit log's numbers do): the holder renews by inserting the next
 * number, and another instance takes over by inserting it when no number came for `ttlMs` by its
 * own clock (no clocks compared). Of two that try the same number one wins; the loser reads it.
 *
 * A holder that cannot renew stops delivering before its lease could be taken (`holding`), so
 * two instances deliver at once only when one was paused longer than `ttlMs - renewMs` in the
 * middle of a delivery. Not configuration: no commit, no revision for every cache.
 */
import type { Collection, Db } from 'mongodb';
import { isDuplicateKey } from '../../db/keys.js';

interface LeaseDocument {
  _id: number;
  /** The instance delivering, or null: released (no enabled webhook left), free to take at once. */
  holder: string | null;
  at: Date;
}

export interface LeaseTimings {
  /** How long a lease lasts without a renewal, by the reader's clock. */
  ttlMs: number;
  /** How often the holder renews. */
  renewMs: number;
}

/** 10 s: a crashed deliverer's events wait at most this (plus a tick) for another instance. */
export const LEASE_TIMINGS: LeaseTimings = { ttlMs: 10_000, renewMs: 2_000 };

/** Lease numbers kept behind the newest (the others are deleted by the holder now and then). */
const KEPT = 8;

export class DeliveryLease {
  private readonly collection: Collection<LeaseDocument>;
  private epoch = -1;
  private holder: string | null = null;
  /** performance.now() when the newest number was last seen to change (or inserted here). */
  private changedAt = 0;
  /** performance.now() of this instance's last successful renewal. */
  private renewedAt = Number.NEGATIVE_INFINITY;

  constructor(db: Db, private readonly instance: string, private readonly timings: LeaseTimings = LEASE_TIMINGS) {
    this.collection = db.collection<LeaseDocument>('addon_leases');
  }

  /** Whether this instance may deliver now. */
  holding(): boolean {
    return this.holder === this.instance && performance.now() - this.renewedAt < this.timings.ttlMs - this.timings.renewMs;
  }

  /**
   * One step: reads the newest lease, then renews it (held), takes it (wanted and expired or
   * released) or releases it (held, not wanted). Whether this instance holds it afterwards.
   */
  async tick(wanted: boolean): Promise<boolean> {
    // Nothing to deliver and the lease not ours (as last read): nothing to read either, so an
    // installation without addons sends no query per tick (the soak's 2 instances logged 55
    // timed-out lease reads while the database was busy).
    if (!wanted && this.epoch >= 0 && this.holder !== this.instance) return false;
    await this.readNewest();
    const now = performance.now();
    if (this.holder === this.instance) {
      if (!wanted) await this.insert(null);
      else if (now - this.renewedAt >= this.timings.renewMs) await this.insert(this.instance);
    } else if (wanted && (this.holder === null || now - this.changedAt > this.timings.ttlMs)) {
      await this.insert(this.instance);
    }
    return this.holding();
  }

  /** Gives the lease up at once when held (a clean stop): another instance need not wait out `ttlMs`. */
  async release(): Promise<void> {
    if (this.holder === this.instance) await this.insert(null);
  }

  private async readNewest(): Promise<void> {
    if (this.epoch < 0) {
      const newest = await this.collection.find({}).sort({ _id: -1 }).limit(1).next();
      this.seen(newest ?? { _id: 0, holder: null, at: new Date(0) });
    }
    for (let next = await this.collection.findOne({ _id: this.epoch + 1 }); next; next = await this.collection.findOne({ _id: this.epoch + 1 })) {
      this.seen(next);
    }
  }

  private seen(lease: LeaseDocument): void {
    if (lease._id !== this.epoch) this.changedAt = performance.now();
    this.epoch = lease._id;
    this.holder = lease.holder;
  }

  private async insert(holder: string | null): Promise<void> {
    const lease: LeaseDocument = { _id: this.epoch + 1, holder, at: new Date() };
    try {
      await this.collection.insertOne(lease);
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      await this.readNewest(); // another instance took the number: its lease is the newest
      return;
    }
    this.seen(lease);
    if (holder === this.instance) this.renewedAt = this.changedAt;
    if (lease._id % KEPT === 0) await this.collection.deleteMany({ _id: { $lte: lease._id - KEPT } });
  }
}
