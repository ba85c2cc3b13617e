/**
 * An event as the log stores it: the `events` document, the JSON the tail, the blocks and the
 * search return, and the lower-cased text the free-text search matches. Pure.
 */
import type { PendingEvent } from '../outbox/events.js';

/** An event as stored in the `events` collection. */
export interface EventDocument extends Omit<PendingEvent, 'key'> {
  _id: string;
  id: number;
  /** Lower-cased JSON of data, preData and tags: what the free-text search matches. */
  searchText: string;
}

/** An event as the search returns it before presentation (no key, no search text), as JSON. */
export function storedEventJson(id: number, event: PendingEvent): string {
  const { key: _key, ...rest } = event;
  return JSON.stringify({ id, ...rest });
}

/** An event as the search returns it before presentation: every field but the key and the search text. */
export type StoredEvent = Omit<EventDocument, '_id' | 'searchText'>;

export function searchTextOf(event: Pick<PendingEvent, 'data' | 'preData' | 'tags'>): string {
  const parts: string[] = [];
  if (event.data !== null && event.data !== undefined) parts.push(JSON.stringify(event.data));
  if (event.tags && event.tags.length > 0) parts.push(JSON.stringify(event.tags));
  if (event.preData !== null && event.preData !== undefined) parts.push(JSON.stringify(event.preData));
  return parts.join('\u0000').toLowerCase();
}
