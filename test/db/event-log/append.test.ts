import t from 'tap';
import { EVENT_TAIL, tailKey, type TailEntry } from '../../../src/db/event-log/append.js';
import { storedEventJson } from '../../../src/db/event-log/stored.js';
import type { NumberedEvent } from '../../../src/db/outbox/commit-log.js';
import { buildEvents } from '../../../src/db/outbox/index.js';
import { buildTestApp } from '../../helpers/app.js';

const ACTOR = { name: 'append-test', id: -7 };

function events(prefix: string, first: number, count: number): NumberedEvent[] {
  return Array.from({ length: count }, (_, i) => ({
    id: first + i,
    event: buildEvents(ACTOR, [{ type: 'tag-created', data: { value: `${prefix}-${i}` } }])[0]!,
  }));
}

t.test('appendMany stores events under their ids; appending again stores nothing twice', async (t) => {
  const app = await buildTestApp(t);
  const { outbox } = app.database;
  await outbox.settle();
  const db = app.database.db;
  const log = outbox.eventLog;
  const idsOf = async (batch: NumberedEvent[]) => {
    const stored = await db.collection<{ _id: string; id: number }>('events').find({ _id: { $in: batch.map((e) => e.event.key) } }).toArray();
    const byKey = new Map(stored.map((doc) => [doc._id, doc.id]));
    return batch.map((e) => byKey.get(e.event.key));
  };
  const next = log.newestId + 1;

  const first = events('first', next, 5);
  await log.appendMany(first);
  t.same(await idsOf(first), first.map((e) => e.id), 'under the ids given');

  // Repeated (after a crash): nothing stored twice.
  const tailBefore = await db.collection(EVENT_TAIL).countDocuments();
  const eventsBefore = await db.collection('events').countDocuments();
  await log.appendMany(first);
  t.equal(await db.collection(EVENT_TAIL).countDocuments(), tailBefore, 'no second tail document');
  t.equal(await db.collection('events').countDocuments(), eventsBefore, 'no second copy');

  // In the tail but never stored (a crash between the two commands): stored now.
  const second = events('second', next + 5, 3);
  const [claimed] = second;
  await db.collection<TailEntry>(EVENT_TAIL).insertOne({ _id: tailKey(claimed!.id), id: claimed!.id, key: claimed!.event.key, body: storedEventJson(claimed!.id, claimed!.event) });
  await log.appendMany(second);
  t.same(await idsOf(second), second.map((e) => e.id));

  const page = await app.inject({ url: '/api/admin/search/events?type=IS:tag-created&limit=100', headers: { authorization: app.config.INIT_ADMIN_API_TOKENS.split(',')[0]! } });
  const values = (page.json().events as Array<{ data: { value: string } }>).map((e) => e.data.value).filter((v) => /^(first|second)-/.test(v));
  t.equal(values.length, 8, 'each event once in the search');
});
