import type { Collection } from 'mongodb';
import type { Outbox, PendingEvent, StoredDocument } from '../../db/outbox/index.js';
import { MirrorView, type CollectionMirror } from '../../db/state.js';
import { NO_MARKS, type FavoriteMarks, type FavoriteReadModel } from './read-model.js';

declare module '../../db/state.js' {
  interface HeldDocuments {
    favorites: FavoriteDocument;
  }
}

export type FavoriteKind = 'flag' | 'project';

/** One person's mark on one flag or project: `_id` is `<kind>:<userId>:<name>`. */
export interface FavoriteDocument extends StoredDocument {
  _id: string;
  userId: number;
  kind: FavoriteKind;
  name: string;
  /** The creation time of the flag or project marked (read-model.ts). */
  markedCreatedAt: Date;
  createdAt: Date;
}

export function favoriteId(kind: FavoriteKind, userId: number, name: string): string {
  return `${kind}:${userId}:${name}`;
}

interface Marks {
  flags: Map<string, number>;
  projects: Map<string, number>;
}

function indexOf(docs: Iterable<FavoriteDocument>): Map<number, Marks> {
  const byUser = new Map<number, Marks>();
  for (const doc of docs) {
    let marks = byUser.get(doc.userId);
    if (!marks) byUser.set(doc.userId, marks = { flags: new Map(), projects: new Map() });
    (doc.kind === 'flag' ? marks.flags : marks.projects).set(doc.name, doc.markedCreatedAt.getTime());
  }
  return byUser;
}

/**
 * Favourite flags and projects, held in the configuration state (src/db/state.ts) and indexed by
 * person; a change rebuilds the index (marks change at the pace of clicks).
 */
export class FavoriteStore implements FavoriteReadModel {
  readonly collection: Collection<FavoriteDocument>;
  private readonly mirror: CollectionMirror<FavoriteDocument>;
  private readonly index: MirrorView<FavoriteDocument, Map<number, Marks>>;

  constructor(private readonly outbox: Outbox) {
    this.collection = outbox.collection<FavoriteDocument>('favorites');
    this.mirror = outbox.state.mirror('favorites');
    this.index = new MirrorView(this.mirror, indexOf, () => undefined);
  }

  marksOf(userId: number | null): FavoriteMarks {
    return (userId === null ? undefined : this.index.get().get(userId)) ?? NO_MARKS;
  }

  get(id: string): FavoriteDocument | undefined {
    return this.mirror.get(id);
  }

  /**
   * Commits `next` in place of `current` (either may be absent) with `events`: a mark set again,
   * or one cleared that was never set, commits its event alone, as Unleash records one per call.
   */
  async write(current: FavoriteDocument | undefined, next: FavoriteDocument | null, events: PendingEvent[]): Promise<void> {
    if (current && next === null) await this.outbox.remove(this.collection, current, events);
    else if (next && !current) await this.outbox.insert(this.collection, next, events);
    else if (next && current && next.markedCreatedAt.getTime() !== current.markedCreatedAt.getTime()) {
      await this.outbox.replace(this.collection, current, next, events);
    } else await this.outbox.write([], events);
  }
}
