import type { EventTag } from '../../db/outbox/index.js';

/** What favourites read of other features (composition.ts passes what answers each). */
export interface FavoriteSources {
  /** A flag by name (archived ones included): when it was created and the tags its events carry; or null. */
  flag(name: string): { createdAt: Date; tags: EventTag[] } | null;
  /** A project by id, or null. */
  projectCreatedAt(id: string): Promise<Date | null>;
}
