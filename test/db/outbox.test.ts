/**
 * The change writer (src/db/outbox/): every write one commit of the commit log, decided by a
 * unique `_id`; the event log fed from the commits.
 */
import t from 'tap';
import { MongoClient } from 'mongodb';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../../src/app.js';
import { EVENT_TAIL, tailKey, type TailEntry } from '../../src/db/event-log/append.js';
import { storedEventJson } from '../../src/db/event-log/stored.js';
import { CommitLog, decodeCommit, encodeCommit, nextEventIdAfter } from '../../src/db/outbox/commit-log.js';
import { MaintenancePacer } from '../../src/db/outbox/maintenance.js';
import { SNAPSHOT_MARKS, SNAPSHOT_PARTS } from '../../src/db/outbox/snapshots.js';
import {
  buildEvents, ConcurrentModificationError, DuplicateKeyError, Outbox, type StoredDocument,
} from '../../src/db/outbox/index.js';
import { buildTestApp, committed, testConfig, dropDatabase, ADMIN, JSON_ADMIN } from '../helpers/app.js';

const crashScript = fileURLToPath(new URL('../fixtures/crash-between-writes.js', import.meta.url));

interface Doc extends StoredDocument {
  _id: string;
  value: string;
  email?: string;
}

/** A writer of its own on `config`'s database, loaded (as an instance is at start). */
async function writer(t: { teardown(fn: () => unknown): void }, url: string, db: string): Promise<Outbox> {
  const client = await MongoClient.connect(url);
  t.teardown(() => client.close(true));
  const outbox = new Outbox(client.db(db));
  await outbox.load();
  return outbox;
}

async function twoWriters(t: { teardown(fn: () => unknown): void }): Promise<[Outbox, Outbox]> {
  const config = await testConfig(t);
  t.teardown(() => dropDatabase(config));
  return [await writer(t, config.MONGODB_URL!, config.MONGODB_DB), await writer(t, config.MONGODB_URL!, config.MONGODB_DB)];
}

const audit = { name: 'test', id: -42 };

t.test('a change and its event survive a crash between the commit and the append', async (t) => {
  const config = await testConfig(t);
  t.teardown(() => dropDatabase(config));
  // A fresh instance initialises the database (events 1–5), then goes away.
  await (await buildApp(config, { logger: false })).close();

  const run = spawnSync(process.execPath, [crashScript, config.MONGODB_URL!, config.MONGODB_DB], { encoding: 'utf8' });
  t.equal(run.signal, 'SIGKILL', `the writer died mid-operation ${run.stderr}`);

  const app = await buildApp(config, { logger: false });
  t.teardown(() => app.close());
  const tokens = [...(await committed(app, 'api_tokens')).values()].filter((doc) => doc.tokenName === 'written-before-the-crash');
  t.equal(tokens.length, 1, 'the change was committed');
  const listed = (await app.inject({ url: '/api/admin/api-tokens', headers: ADMIN })).json().tokens as Array<{ tokenName: string }>;
  t.ok(listed.some((token) => token.tokenName === 'written-before-the-crash'), 'and is served after the restart');
  const ours = async () => (await app.database.db.collection('events').find({ type: 'api-token-created' }).toArray())
    .filter((e) => (e.data as { tokenName?: string } | null)?.tokenName === 'written-before-the-crash');
  await app.stores.eventLog.whenReady();
  await app.database.outbox.settle();
  t.ok(await eventuallyTrue(async () => (await ours()).length === 1), 'the start appended its event: exactly one');
  const [event] = await ours();
  t.equal(event!.createdBy, 'crash-test');
  t.equal(event!.id, 6, 'under the id its commit gave it');
});

async function eventuallyTrue(check: () => Promise<boolean>, ms = 10_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return await check();
}

t.test('no event is ever stored without its change', async (t) => {
  const config = await testConfig(t);
  t.teardown(() => dropDatabase(config));
  const app = await buildApp(config, { logger: false });
  t.teardown(() => app.close());
  // A refused change (unknown environment) writes neither the token nor an event.
  await app.database.outbox.flushed();
  const before = await app.database.db.collection('events').countDocuments();
  const commits = app.database.outbox.committed;
  const res = await app.inject({
    method: 'POST', url: '/api/admin/api-tokens', headers: JSON_ADMIN, payload: { tokenName: 'x', type: 'client', environment: 'nope' },
  });
  t.equal(res.statusCode, 400);
  await app.database.outbox.flushed();
  t.equal(await app.database.db.collection('events').countDocuments(), before);
  t.equal(app.database.outbox.committed, commits, 'nothing committed');
});

t.test('a reader of the log sees the events of every write acknowledged before it, in commit order', async (t) => {
  const app = await buildTestApp(t);
  const created = (name: string) => app.inject({ method: 'POST', url: '/api/admin/tags', headers: JSON_ADMIN, payload: { type: 'simple', value: name } });
  t.equal((await created('ordered-one')).statusCode, 201);
  t.equal((await created('ordered-two')).statusCode, 201);
  const page = await app.inject({ url: '/api/admin/search/events?type=IS:tag-created', headers: ADMIN });
  t.match(page.json().events.map((e: { data: { value: string } }) => e.data.value), ['ordered-two', 'ordered-one'], 'in write order');
  // The search answers from the copy, which took the events with their commits; they reach the log after.
  await app.database.outbox.flushed();
  const inTail = await app.database.db.collection<TailEntry>(EVENT_TAIL).countDocuments({ body: { $regex: 'ordered-' } });
  t.equal(inTail, 2, 'both in the tail once flushed');
});

t.test('concurrent writers on two instances get distinct, gap-free event ids', async (t) => {
  const config = await testConfig(t);
  t.teardown(() => dropDatabase(config));
  const a = await buildApp(config, { logger: false });
  const b = await buildApp(config, { logger: false });
  t.teardown(async () => { await a.close(); await b.close(); });
  const create = (app: typeof a, i: number) =>
    app.inject({ method: 'POST', url: '/api/admin/api-tokens', headers: JSON_ADMIN, payload: { tokenName: `t${i}`, type: 'client' } });
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => create(i % 2 ? a : b, i)));
  t.ok(results.every((r) => r.statusCode === 201));
  await Promise.all([a.database.outbox.settle(), b.database.outbox.settle()]);
  const ids = (await a.database.db.collection('events').find({}).sort({ id: 1 }).toArray()).map((e) => e.id);
  t.same(ids, Array.from({ length: ids.length }, (_, i) => i + 1));
  t.equal(ids.length, 25);
});

t.test('appending a commit\'s events again, after a crash at any step, stores each once under its id', async (t) => {
  const app = await buildTestApp(t);
  const db = app.database.db;
  const log = app.stores.eventLog;
  await app.database.outbox.settle();
  const first = log.newestId + 1;
  const numbered = (i: number, value: string) => ({ id: first + i, event: buildEvents(audit, [{ type: 'tag-created', data: { value } }])[0]! });
  const events = [numbered(0, 'tail-only'), numbered(1, 'both'), numbered(2, 'neither')];
  const [tailOnly, both] = events;
  // The first died after its tail document, the second after both of its writes.
  await db.collection<TailEntry>(EVENT_TAIL).insertOne({
    _id: tailKey(tailOnly!.id), id: tailOnly!.id, key: tailOnly!.event.key, body: storedEventJson(tailOnly!.id, tailOnly!.event),
  });
  await db.collection<TailEntry>(EVENT_TAIL).insertOne({ _id: tailKey(both!.id), id: both!.id, key: both!.event.key, body: storedEventJson(both!.id, both!.event) });
  await db.collection('events').insertOne({ _id: both!.event.key as never, id: both!.id, ...both!.event, searchText: '' });
  await log.appendMany(events);
  await log.appendMany(events);
  for (const { id, event } of events) {
    const stored = await db.collection('events').find({ _id: event.key as never }).toArray();
    t.equal(stored.length, 1, `${String((event.data as { value: string }).value)}: stored once`);
    t.equal(stored[0]!.id, id, 'under its id');
  }
});

t.test('two writers on one document: the one whose commit comes second re-reads and is refused, never lost', async (t) => {
  const [a, b] = await twoWriters(t);
  const coll = a.collection<Doc>('docs');
  await a.insert(coll, { _id: 'shared', value: 'first' }, []);
  await b.poll();
  const heldByB = b.state.mirrorOf('docs').get('shared')!;
  await a.replace(coll, a.state.mirrorOf('docs').get('shared')!, { _id: 'shared', value: 'by a' }, []);
  // B writes from the version it read: its commit number is taken, it reads A's, and refuses.
  await t.rejects(b.replace(coll, heldByB, { _id: 'shared', value: 'by b, stale' }, []), ConcurrentModificationError);
  t.equal(b.state.mirrorOf('docs').get('shared')?.value, 'by a', 'B holds A\'s write now');
  // Written on top of it, it goes through; a write of another document from a stale head too.
  await b.replace(coll, b.state.mirrorOf('docs').get('shared')!, { _id: 'shared', value: 'by b' }, []);
  await b.insert(coll, { _id: 'other', value: 'b' }, []);
  await a.insert(coll, { _id: 'third', value: 'a, from a stale head' }, []);
  await a.poll();
  await b.poll();
  for (const w of [a, b]) t.same([...w.state.mirrorOf('docs').values()].map((d) => [d._id, d.value, d._rev]).sort(), [
    ['other', 'b', 1], ['shared', 'by b', 3], ['third', 'a, from a stale head', 1],
  ]);
});

t.test('an `_id` or a unique field taken by another instance\'s commit is a duplicate key', async (t) => {
  const [a, b] = await twoWriters(t);
  const coll = a.collection<Doc>('docs');
  a.unique('docs', ['email']);
  b.unique('docs', ['email']);
  await a.insert(coll, { _id: 'one', value: 'a', email: 'x@example.com' }, []);
  await t.rejects(b.insert(coll, { _id: 'one', value: 'b' }, []), DuplicateKeyError, 'the same `_id`');
  const err = await b.insert(coll, { _id: 'two', value: 'b', email: 'x@example.com' }, []).catch((e: unknown) => e);
  t.ok(err instanceof DuplicateKeyError && err.field === 'email', 'the same e-mail');
  await b.insert(coll, { _id: 'two', value: 'b', email: 'y@example.com' }, []);
  await a.poll();
  t.equal(a.state.mirrorOf('docs').size, 2);
});

t.test('the log is the truth: a writer loaded from it holds every commit, deletions included', async (t) => {
  const config = await testConfig(t);
  t.teardown(() => dropDatabase(config));
  const a = await writer(t, config.MONGODB_URL!, config.MONGODB_DB);
  const coll = a.collection<Doc>('docs');
  await a.insert(coll, { _id: 'kept', value: 'v1' }, buildEvents(audit, [{ type: 'tag-created', data: { value: 'kept' } }]));
  await a.insert(coll, { _id: 'gone', value: 'v1' }, []);
  await a.replace(coll, a.state.mirrorOf('docs').get('kept')!, { _id: 'kept', value: 'v2' }, []);
  await a.remove(coll, a.state.mirrorOf('docs').get('gone')!, []);
  const b = await writer(t, config.MONGODB_URL!, config.MONGODB_DB);
  t.same([...b.state.mirrorOf('docs').values()].map((d) => [d._id, d.value, d._rev]), [['kept', 'v2', 2]]);
  t.equal(b.committed, a.committed);
  t.equal(b.lastEventId, a.lastEventId, 'and knows the next event id');
  const client = await MongoClient.connect(config.MONGODB_URL!);
  t.teardown(() => client.close());
  const log = new CommitLog(client.db(config.MONGODB_DB));
  t.ok(await log.read(a.committed), 'the newest commit is stored');
  t.equal(await log.read(a.committed + 1), undefined);
});

t.test('maintenance writes take their share of the time once writers pause; one in hurry goes at once', async (t) => {
  const pacer = new MaintenancePacer();
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const share = MaintenancePacer.MAINTENANCE_SHARE;
  const timedTurn = async (hurry = false) => {
    const at = performance.now();
    const ended = await pacer.turn(() => hurry);
    return { ended, waited: performance.now() - at };
  };

  pacer.noteWrite();
  const afterWrite = await timedTurn();
  t.ok(afterWrite.waited >= MaintenancePacer.WRITER_PAUSE_MS - 30, `waits for writers to pause (${afterWrite.waited.toFixed(0)} ms)`);
  await sleep(100); // a maintenance write of 100 ms
  afterWrite.ended();
  const second = await timedTurn();
  second.ended();
  const due = 100 * (1 - share) / share;
  t.ok(second.waited >= due - 30 && second.waited < due + 1000, `after a write of 100 ms the next waits ~${due} ms (${second.waited.toFixed(0)})`);

  const long = await timedTurn(true);
  let granted = false;
  const waiting = pacer.turn(() => false).then((ended) => {
    granted = true;
    return ended;
  });
  await sleep(150);
  t.notOk(granted, 'none goes beside a maintenance write under way');
  const hurried = await timedTurn(true);
  t.ok(hurried.waited < 50, `one in hurry goes at once, even then (${hurried.waited.toFixed(0)} ms)`);
  hurried.ended();
  long.ended();
  (await waiting)();
  t.ok(granted, 'the waiting one goes once the write under way has ended and had its share');
});

t.test('a commit reads back as written: integer ids stay numbers, dates stay dates, events keep their ids', async (t) => {
  const at = new Date('2026-01-02T03:04:05.678Z');
  const commit = {
    seq: 7, instance: 'i', at, firstEvent: 40,
    changes: [
      { coll: 'users', id: 3, doc: { _id: 3, _rev: 2, email: 'a@example.com', createdAt: at, nested: { list: [1, 2.5, 'x', null] } } },
      { coll: 'flags', id: 'gone', doc: null },
    ],
    events: buildEvents(audit, [{ type: 'tag-created', data: { value: 'v' } }, { type: 'tag-created', data: { value: 'w' } }], { at })
      .map((event, i) => ({ id: 40 + i, event })),
  };
  const back = decodeCommit({ ...encodeCommit(commit) });
  t.same(back, commit);
  t.equal(typeof back.changes[0]!.id, 'number');
  t.equal(typeof back.changes[0]!.doc!._id, 'number');
  t.ok(back.changes[0]!.doc!.createdAt instanceof Date);
  t.equal(nextEventIdAfter(back), 42);
  t.equal(nextEventIdAfter({ ...back, events: [] }), 40, 'a commit without events passes its first id on');
  t.equal(nextEventIdAfter(undefined), 1);
});

t.test('a start reads the newest snapshot and the commits after it, and holds what a start from the whole log holds', async (t) => {
  const config = await testConfig(t);
  t.teardown(() => dropDatabase(config));
  const a = await writer(t, config.MONGODB_URL!, config.MONGODB_DB);
  const coll = a.collection<Doc>('docs');
  for (let i = 0; i < 30; i++) await a.insert(coll, { _id: `d${i}`, value: `v${i}` }, buildEvents(audit, [{ type: 'tag-created', data: { value: `d${i}` } }]));
  await a.checkpoint();
  const client = await MongoClient.connect(config.MONGODB_URL!);
  t.teardown(() => client.close());
  const db = client.db(config.MONGODB_DB);
  const marks = await db.collection(SNAPSHOT_MARKS).find({}).toArray();
  t.equal(marks.length, 0, 'no snapshot while the event log does not hold the commits\' events (this writer has no started log)');
  // A started instance's log holds them: its snapshot is written.
  const app = await buildApp(config, { logger: false });
  t.teardown(() => app.close());
  await app.database.outbox.checkpoint();
  const [mark] = await db.collection<{ seq: number }>(SNAPSHOT_MARKS).find({}).toArray();
  t.equal(mark?.seq, app.database.outbox.committed, 'a snapshot at the newest commit');
  // Commits after it: a change, a deletion, a new document.
  const held = (id: string) => app.database.outbox.state.mirrorOf('docs').get(id)!;
  const appColl = app.database.outbox.collection<Doc>('docs');
  await app.database.outbox.replace(appColl, held('d1'), { _id: 'd1', value: 'changed' }, []);
  await app.database.outbox.remove(appColl, held('d2'), []);
  await app.database.outbox.insert(appColl, { _id: 'after', value: 'new' }, []);
  const fresh = await writer(t, config.MONGODB_URL!, config.MONGODB_DB);
  const values = (w: Outbox) => [...w.state.mirrorOf('docs').values()].map((d) => [d._id, d.value, d._rev]).sort();
  t.same(values(fresh), values(app.database.outbox));
  t.equal(fresh.committed, app.database.outbox.committed);
  t.equal(fresh.lastEventId, app.database.outbox.lastEventId);
  t.same(values(fresh).find(([id]) => id === 'd1'), ['d1', 'changed', 2]);
  t.notOk(values(fresh).some(([id]) => id === 'd2'), 'the deletion after the snapshot is applied');
  // A snapshot whose parts are not all there is passed over: the whole log is read instead.
  await db.collection(SNAPSHOT_PARTS).deleteMany({});
  const fromLog = await writer(t, config.MONGODB_URL!, config.MONGODB_DB);
  t.same(values(fromLog), values(app.database.outbox), 'a snapshot missing a part is passed over');
});
