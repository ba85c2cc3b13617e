/**
 * The delivery log: one entry per delivery attempt, listed by `GET /api/admin/addons/:id/events`
 * as Unleash lists its integration events. Not configuration: written straight to its
 * collection (as sessions are), by the one instance that delivers (lease.ts), and bounded per
 * addon. It also holds each addon's delivery position: the newest entry says which event was
 * last handled, so a restart or another instance taking over goes on from there.
 */
import type { Collection, Db } from 'mongodb';
import { isDuplicateKey } from '../../db/keys.js';
import type { IntegrationEventView } from './schemas.js';

export type DeliveryState = 'success' | 'failed' | 'successWithErrors';

export interface DeliveryEntry {
  addonId: number;
  eventId: number;
  /** The last attempt at this event: it succeeded, or no retry follows. */
  final: boolean;
  state: DeliveryState;
  stateDetails: string;
  /** The event and the details as JSON in jsonb key order (kept as text: event data may hold any key). */
  event: string;
  details: string;
}

interface DeliveryDocument extends DeliveryEntry {
  /** Microseconds since the epoch at writing (unique, increasing): newest first is `_id` descending. */
  _id: number;
  createdAt: Date;
}

/** Entries kept per addon: a page of the listing holds at most 100 (Unleash keeps the last 100 of two hours, and each integration's newest). */
export const KEPT_PER_ADDON = 100;
/** Entries written past the bound before the oldest are deleted: one delete per 20 attempts, not one per attempt. */
const PRUNE_EVERY = 20;

export class DeliveryLog {
  readonly collection: Collection<DeliveryDocument>;
  private lastId = 0;
  private readonly sincePrune = new Map<number, number>();

  constructor(db: Db, private readonly kept = KEPT_PER_ADDON) {
    this.collection = db.collection<DeliveryDocument>('integration_events');
  }

  private nextId(): number {
    this.lastId = Math.max(this.lastId + 1, Date.now() * 1000);
    return this.lastId;
  }

  async record(entry: DeliveryEntry): Promise<void> {
    for (;;) {
      const doc: DeliveryDocument = { _id: this.nextId(), createdAt: new Date(), ...entry };
      try {
        await this.collection.insertOne(doc);
        break;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    }
    const written = (this.sincePrune.get(entry.addonId) ?? this.kept) + 1;
    this.sincePrune.set(entry.addonId, written);
    if (written >= this.kept + PRUNE_EVERY) {
      await this.prune(entry.addonId);
      this.sincePrune.set(entry.addonId, this.kept);
    }
  }

  /** Deletes an addon's entries past the newest `kept`. */
  async prune(addonId: number): Promise<void> {
    const cutoff = await this.collection.find({ addonId }, { projection: { _id: 1 } }).sort({ _id: -1 }).skip(this.kept).limit(1).next();
    if (cutoff) await this.collection.deleteMany({ addonId, _id: { $lte: cutoff._id } });
  }

  async removeAddon(addonId: number): Promise<void> {
    await this.collection.deleteMany({ addonId });
    this.sincePrune.delete(addonId);
  }

  /** The id of the last event handled for an addon (undefined without entries): an unfinished one is handled again. */
  async position(addonId: number): Promise<number | undefined> {
    const newest = await this.collection.find({ addonId }, { projection: { eventId: 1, final: 1 } }).sort({ _id: -1 }).limit(1).next();
    if (!newest) return undefined;
    return newest.final ? newest.eventId : newest.eventId - 1;
  }

  /** A page of an addon's entries, newest first. */
  async page(addonId: number, limit: number, offset: number): Promise<IntegrationEventView[]> {
    const docs = await this.collection.find({ addonId }).sort({ _id: -1 }).skip(offset).limit(limit).toArray();
    return docs.map((doc) => ({
      id: String(doc._id),
      integrationId: doc.addonId,
      createdAt: doc.createdAt.toISOString(),
      state: doc.state,
      stateDetails: doc.stateDetails,
      event: JSON.parse(doc.event) as Record<string, unknown>,
      details: JSON.parse(doc.details) as Record<string, unknown>,
    }));
  }
}
