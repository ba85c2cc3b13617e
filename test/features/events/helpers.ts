import type { FastifyInstance } from 'fastify';
import { EVENT_TAIL, tailKey, type TailEntry } from '../../../src/db/event-log/append.js';
import { searchTextOf, type EventDocument } from '../../../src/db/event-log/stored.js';

export type EventSeed = Partial<EventDocument> & { id: number; type: string; createdAt: Date };

/**
 * Writes `events` to the log's collections as another instance would (a claim with the event's
 * JSON in `event_tail`, the document in `events`; defaults: an admin-token event with no data),
 * then has the log read them
 * (`sync`, which also waits for its sealing and pruning), or returns that promise unawaited with
 * `{ awaitSync: false }` (a test that holds the pruning back).
 */
export async function seedLog(app: FastifyInstance, events: EventSeed[], options: { awaitSync?: boolean } = {}): Promise<{ synced: Promise<void> }> {
  const docs: EventDocument[] = events.map((e) => {
    const base = {
      createdBy: 'admin', createdByUserId: -42, data: null, preData: null, tags: [], featureName: null, project: null,
      environment: null, ...e,
    };
    return { _id: `seed-${e.id}`, ...base, searchText: searchTextOf(base) };
  });
  const tail: TailEntry[] = docs.map(({ _id, searchText: _s, ...rest }) => ({
    _id: tailKey(rest.id), id: rest.id, key: _id, body: JSON.stringify(rest),
  }));
  await app.database.db.collection<TailEntry>(EVENT_TAIL).insertMany(tail);
  await app.database.db.collection<EventDocument>('events').insertMany(docs);
  const synced = app.stores.eventLog.sync();
  if (options.awaitSync === false) return { synced };
  await synced;
  return { synced };
}

const FILLER_START = Date.UTC(2025, 0, 1);

/**
 * A varied event for a seeded log: three types, `flags` flags, a project on four in five, an
 * environment on every other, four users, the word "seven" in every seventh's data, a group on
 * every third; ten a day from 2025-01-01.
 */
export function fillerEvent(id: number, flags = 17): EventSeed {
  return {
    id, type: ['feature-created', 'feature-strategy-add', 'segment-created'][id % 3]!, createdAt: new Date(FILLER_START + id * 8_640_000),
    featureName: `flag-${id % flags}`, project: id % 5 ? 'default' : null, environment: id % 2 ? 'production' : null,
    createdByUserId: id % 4, data: { n: id, words: id % 7 === 0 ? 'seven' : 'other' },
    ...(id % 3 === 1 ? { groupType: 'transaction', groupId: `g-${Math.floor(id / 2)}` } : {}),
  };
}
