import { searchTextOf, tailKey } from '../../../src/db/outbox.js';
/**
 * Writes events as an instance of Vane writes them (a claim with the event's JSON in `event_tail`,
 * the document in `events`, the newest id in `meta`), then has the app's log mirror read them, as it would another
 * instance's. Defaults: an admin-token event with no data.
 */
export async function seedLog(app, events) {
    const docs = events.map((e) => {
        const base = {
            createdBy: 'admin', createdByUserId: -42, data: null, preData: null, tags: [], featureName: null, project: null,
            environment: null, ...e,
        };
        return { _id: `seed-${e.id}`, ...base, searchText: searchTextOf(base) };
    });
    const tail = docs.map(({ _id, searchText: _s, ...rest }) => ({
        _id: tailKey(rest.id), id: rest.id, key: _id, body: JSON.stringify(rest),
    }));
    await app.database.db.collection('event_tail').insertMany(tail);
    await app.database.db.collection('events').insertMany(docs);
    const lastId = Math.max(...events.map((e) => e.id));
    await app.database.db.collection('meta').updateOne({ _id: 'events' }, { $max: { lastId } });
    await app.stores.eventLog.sync();
}
//# sourceMappingURL=helpers.js.map