import t from 'tap';
import { EVENT_TAIL, tailKey, type EventAppender, type TailEntry } from '../../../src/db/event-log/append.js';
import { storedEventJson } from '../../../src/db/event-log/stored.js';
import { buildEvents, type PendingEvent } from '../../../src/db/outbox/index.js';
import { buildTestApp } from '../../helpers/app.js';
import { watchCalls } from '../../helpers/spy.js';

const ACTOR = { name: 'append-test', id: -7 };

function events(prefix: string, count: number): PendingEvent[] {
  return Array.from({ length: count }, (_, i) => buildEvents(ACTOR, [{ type: 'tag-created', data: { value: `${prefix}-${i}` } }])[0]!);
}

/** Counts the appender's inserts by collection and method. */
function countInserts(appender: EventAppender): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const name of ['tail', 'events']) {
    watchCalls(appender, name, (method) => method === 'insertOne' || method === 'insertMany', (method) => {
      counts[`${name}.${method}`] = (counts[`${name}.${method}`] ?? 0) + 1;
    });
  }
  return counts;
}

t.test('appendMany stores events in order in one command for the claims and one for the copies; collisions are settled one by one', async (t) => {
  const app = await buildTestApp(t);
  const { outbox } = app.database;
  await outbox.flushed();
  const db = app.database.db;
  const log = outbox.eventLog;
  const appender = log['appender'];
  const idsOf = async (batch: PendingEvent[]) => {
    const stored = await db.collection<{ _id: string; id: number }>('events').find({ _id: { $in: batch.map((e) => e.key) } }).toArray();
    const byKey = new Map(stored.map((doc) => [doc._id, doc.id]));
    return batch.map((e) => byKey.get(e.key));
  };
  const next = appender.lastEventId + 1;

  const counts = countInserts(appender);
  const first = events('first', 5);
  await log.appendMany(first);
  t.same(counts, { 'tail.insertMany': 1, 'events.insertMany': 1 }, 'two commands for five events');
  t.same(await idsOf(first), [next, next + 1, next + 2, next + 3, next + 4], 'consecutive ids in order');

  // Another instance claims an id in the middle of the next batch.
  const taken = next + 7;
  await db.collection<TailEntry>(EVENT_TAIL).insertOne({ _id: tailKey(taken), id: taken, key: 'another-instance', body: storedEventJson(taken, events('other', 1)[0]!) });
  const second = events('second', 5);
  await log.appendMany(second);
  t.same(await idsOf(second), [next + 5, next + 6, next + 8, next + 9, next + 10], 'the claims before the taken id in one insert, the rest after it');

  // A flush repeated (after a crash): nothing is stored twice, nothing claimed again.
  const tailBefore = await db.collection(EVENT_TAIL).countDocuments();
  const eventsBefore = await db.collection('events').countDocuments();
  await log.appendMany([...first, ...second]);
  t.equal(await db.collection(EVENT_TAIL).countDocuments(), tailBefore, 'no new claim');
  t.equal(await db.collection('events').countDocuments(), eventsBefore, 'no new copy');
  t.same(await idsOf(first), [next, next + 1, next + 2, next + 3, next + 4], 'the same ids');

  // Claimed before but never stored (a crash between the two commands): stored under its claim.
  const third = events('third', 3);
  const claimAt = next + 11;
  await db.collection<TailEntry>(EVENT_TAIL).insertOne({ _id: tailKey(claimAt), id: claimAt, key: third[0]!.key, body: storedEventJson(claimAt, third[0]!) });
  await log.appendMany(third);
  t.same(await idsOf(third), [claimAt, claimAt + 1, claimAt + 2], 'the earlier claim kept, the others after it');

  const page = await app.inject({ url: '/api/admin/search/events?type=IS:tag-created&limit=100', headers: { authorization: app.config.INIT_ADMIN_API_TOKENS.split(',')[0]! } });
  const values = (page.json().events as Array<{ data: { value: string } }>).map((e) => e.data.value).filter((v) => /^(first|second|third)-/.test(v));
  t.equal(values.length, 13, 'each event once in the search');
});
