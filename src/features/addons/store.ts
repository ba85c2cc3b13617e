import type { Outbox, PendingEvent, StoredDocument } from '../../db/outbox/index.js';
import type { CollectionMirror } from '../../db/state.js';

/** What the configuration state holds of the collections (src/db/state.ts). */
declare module '../../db/state.js' {
  interface HeldDocuments {
    addons: AddonDocument;
    addon_sequence: AddonSequence;
  }
}

export type ParameterValue = string | number | boolean;

/** An addon configuration: `_id` is its integer id. */
export interface AddonDocument extends StoredDocument {
  _id: number;
  provider: string;
  enabled: boolean;
  description: string | null;
  parameters: Record<string, ParameterValue>;
  events: string[];
  projects: string[];
  environments: string[];
  createdAt: Date;
  /**
   * The newest event id when it was created or last enabled: only later events are delivered
   * (Unleash hands an addon the events announced while it is enabled).
   */
  since: number;
}

/**
 * The last id given, so that a deleted configuration's id is never given again (Unleash's ids
 * are a serial): written in the same commit as each insert.
 */
interface AddonSequence extends StoredDocument {
  _id: 'addons';
  last: number;
}

export class AddonStore {
  private readonly mirror: CollectionMirror<AddonDocument>;
  private readonly sequence: CollectionMirror<AddonSequence>;

  constructor(private readonly outbox: Outbox) {
    outbox.collection<AddonDocument>('addons');
    this.mirror = outbox.state.mirror('addons');
    this.sequence = outbox.state.mirror('addon_sequence');
  }

  get(id: number): AddonDocument | undefined {
    return this.mirror.get(id);
  }

  /** Every configuration, by id. */
  list(): AddonDocument[] {
    return [...this.mirror.values()].sort((a, b) => a._id - b._id);
  }

  /** The newest event id committed so far (a new or re-enabled configuration's `since`). */
  get lastEventId(): number {
    return this.outbox.lastEventId;
  }

  /**
   * Inserts under the id after the last one given, with the sequence in the same commit: a
   * concurrent insert (here or on another instance) fails the commit and the caller retries.
   */
  async insertNext(build: (id: number) => AddonDocument, events: (doc: AddonDocument) => PendingEvent[]): Promise<AddonDocument> {
    return await this.outbox.exclusive('addons:insert', async () => {
      const current = this.sequence.get('addons');
      const highest = Math.max(current?.last ?? 0, ...[...this.mirror.values()].map((doc) => doc._id));
      const doc = build(highest + 1);
      const rev = current?._rev ?? null;
      await this.outbox.write([
        { coll: 'addons', id: doc._id, base: null, doc: { ...doc, _rev: 1 } },
        { coll: 'addon_sequence', id: 'addons', base: rev, doc: { _id: 'addons', last: doc._id, _rev: (rev ?? 0) + 1 } },
      ], events(doc));
      return doc;
    });
  }

  async replace(current: AddonDocument, next: AddonDocument, events: PendingEvent[]): Promise<void> {
    await this.outbox.replace(this.outbox.collection<AddonDocument>('addons'), current, next, events);
  }

  async remove(current: AddonDocument, events: PendingEvent[]): Promise<void> {
    await this.outbox.remove(this.outbox.collection<AddonDocument>('addons'), current, events);
  }
}
