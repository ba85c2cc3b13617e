import type { FastifyInstance } from 'fastify';
import { searchTextOf, tailKey, type EventDocument, type TailEntry } from '../../../src/db/outbox.js';

export type EventSeed = Partial<EventDocument> & { id: number; type: string; createdAt: Date };

/**
 * Writes events as an instance of Vane writes them (a claim with the event's JSON in `event_tail`,
 * the document in `events`, the newest id in `meta`), then has the app's log mirror read them, as it would another
 * instance's. Defaults: an admin-token event with no data.
 */
export async function seedLog(app: FastifyInstance, events: EventSeed[]): Promise<void> {
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
  await app.database.db.collection<TailEntry>('event_tail').insertMany(tail);
  await app.database.db.collection<EventDocument>('events').insertMany(docs);
  const lastId = Math.max(...events.map((e) => e.id));
  await app.database.db.collection<{ _id: string; lastId: number }>('meta').updateOne({ _id: 'events' }, { $max: { lastId } });
  await app.stores.eventLog.sync();
}
