import t from 'tap';
import { MongoClient, type CommandStartedEvent } from 'mongodb';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../../src/app.js';
import { EVENT_TAIL, tailKey, type TailEntry } from '../../src/db/event-log/append.js';
import { storedEventJson } from '../../src/db/event-log/stored.js';
import { buildEvents, Outbox, packEvents, pendingEvents, type PendingEvent } from '../../src/db/outbox/index.js';
import { DatabaseTimeoutError } from '../../src/db/guard.js';
import { buildTestApp, testConfig, dropDatabase, ADMIN, JSON_ADMIN } from '../helpers/app.js';
import { watchCalls } from '../helpers/spy.js';

const crashScript = fileURLToPath(new URL('../fixtures/crash-between-writes.js', import.meta.url));

t.test('a change and its event survive a crash between the two writes', async (t) => {
  const config = await testConfig(t);
  t.teardown(() => dropDatabase(config));
  // A fresh instance initialises the database (events 1–5), then goes away.
  await (await buildApp(config, { logger: false })).close();

  const run = spawnSync(process.execPath, [crashScript, config.MONGODB_URL!, config.MONGODB_DB], { encoding: 'utf8' });
  t.equal(run.signal, 'SIGKILL', `the writer died mid-operation ${run.stderr}`);

  const app = await buildApp(config, { logger: false });
  t.teardown(() => app.close());
  const tokens = await app.database.db.collection('api_tokens').find({ tokenName: 'written-before-the-crash' }).toArray();
  t.equal(tokens.length, 1, 'the change was written');
  // The writer published its revision before it died (Revisions.changed, before the flush), so
  // it looks alive for goneAfterMs: the restarted instance then appends the event but leaves its
  // copy in `_outbox` (harmless, Outbox.clearsAreSafe); with no other instance it clears it.
  const revisions = await app.database.db.collection<{ _id: string }>('meta').countDocuments({ _id: { $regex: '^rev:' } });
  t.ok(!tokens[0]!._outbox || revisions > 1, `its pending event was flushed at start (${revisions} revision documents)`);
  const events = await app.database.db.collection('events').find({ type: 'api-token-created' }).sort({ id: 1 }).toArray();
  const ours = events.filter((e) => e.data?.tokenName === 'written-before-the-crash');
  t.equal(ours.length, 1, 'exactly one event for the change');
  t.equal(ours[0]!.createdBy, 'crash-test');
  t.equal(ours[0]!.id, 6, 'it takes the next event id');
});

t.test('no event is ever stored without its change', async (t) => {
  const config = await testConfig(t);
  t.teardown(() => dropDatabase(config));
  const app = await buildApp(config, { logger: false });
  t.teardown(() => app.close());
  // A refused change (unknown environment) writes neither the token nor an event.
  await app.database.outbox.flushed(); // events are appended after the response (Outbox.queueFlush)
  const before = await app.database.db.collection('events').countDocuments();
  const res = await app.inject({
    method: 'POST', url: '/api/admin/api-tokens', headers: JSON_ADMIN, payload: { tokenName: 'x', type: 'client', environment: 'nope' },
  });
  t.equal(res.statusCode, 400);
  await app.database.outbox.flushed();
  t.equal(await app.database.db.collection('events').countDocuments(), before);
  t.equal(await app.database.db.collection('api_tokens').countDocuments({ tokenName: 'x' }), 0);
});

t.test('a write\'s flush waits for the gate after its response; a reader of the log opens it at once', async (t) => {
  const app = await buildTestApp(t);
  const outbox = app.database.outbox;
  await outbox.flushed();
  outbox.flushQuietMs = 60_000;
  const created = (name: string) => app.inject({ method: 'POST', url: '/api/admin/tags', headers: JSON_ADMIN, payload: { type: 'simple', value: name } });
  const inTail = async (value: string) => (await app.database.db.collection<TailEntry>(EVENT_TAIL).countDocuments({ body: { $regex: value } })) > 0;
  t.equal((await created('gated-one')).statusCode, 201);
  t.equal((await created('gated-two')).statusCode, 201);
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.notOk(await inTail('gated-one'), 'acknowledged, its event not appended yet: the gate is closed');
  const started = Date.now();
  await outbox.flushed();
  t.ok(Date.now() - started < 5000, 'flushed() opened the gate');
  t.ok(await inTail('gated-one') && await inTail('gated-two'), 'both events appended');
  const page = await app.inject({ url: '/api/admin/search/events?type=IS:tag-created', headers: ADMIN });
  t.match(page.json().events.map((e: { data: { value: string } }) => e.data.value), ['gated-two', 'gated-one'], 'in write order');
});

t.test('the flushes gathered by the gate append their events together, each once, in write order', async (t) => {
  const app = await buildTestApp(t);
  const outbox = app.database.outbox;
  const created = await app.inject({ method: 'POST', url: '/api/admin/projects/default/features', headers: JSON_ADMIN, payload: { name: 'gathered' } });
  t.equal(created.statusCode, 201);
  await outbox.flushed();
  const appender = outbox.eventLog['appender'];
  const commands: string[] = [];
  for (const name of ['tail', 'events']) watchCalls(appender, name, (method) => method.startsWith('insert'), (method) => commands.push(`${name}.${method}`));
  outbox.flushQuietMs = 60_000;
  const env = '/api/admin/projects/default/features/gathered/environments/development';
  // The same flag written twice before its flush (the second write carries the first's event too), and tags between.
  for (const url of [`${env}/on`, '/api/admin/tags', `${env}/off`, '/api/admin/tags']) {
    const body = url.endsWith('tags') ? { type: 'simple', value: `gathered-${commands.length}-${url.length}-${Math.random()}` } : undefined;
    const res = await app.inject({ method: 'POST', url, headers: JSON_ADMIN, ...(body ? { payload: body } : {}) });
    t.ok(res.statusCode < 300, `${url} ${res.statusCode}`);
  }
  t.same(commands, [], 'nothing appended while the gate is closed');
  await outbox.flushed();
  t.same(commands, ['tail.insertMany', 'events.insertMany'], 'four writes, two commands');
  const stored = await app.database.db.collection('events').find({ type: { $in: ['feature-environment-enabled', 'feature-environment-disabled', 'tag-created'] } }).sort({ id: 1 }).toArray();
  t.same(stored.map((e) => e.type), ['feature-environment-enabled', 'tag-created', 'feature-environment-disabled', 'tag-created'], 'each once, in write order');
  const ids = stored.map((e) => e.id as number);
  t.same(ids, [ids[0], ids[0]! + 1, ids[0]! + 2, ids[0]! + 3], 'consecutive ids');
});

t.test('concurrent writers get distinct, gap-free event ids', async (t) => {
  const config = await testConfig(t);
  t.teardown(() => dropDatabase(config));
  const a = await buildApp(config, { logger: false });
  const b = await buildApp(config, { logger: false });
  t.teardown(async () => { await a.close(); await b.close(); });
  const create = (app: typeof a, i: number) =>
    app.inject({ method: 'POST', url: '/api/admin/api-tokens', headers: JSON_ADMIN, payload: { tokenName: `t${i}`, type: 'client' } });
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => create(i % 2 ? a : b, i)));
  t.ok(results.every((r) => r.statusCode === 201));
  await Promise.all([a.database.outbox.flushed(), b.database.outbox.flushed()]); // events are appended after the response (Outbox.queueFlush)
  const ids = (await a.database.db.collection('events').find({}).sort({ id: 1 }).toArray()).map((e) => e.id);
  t.same(ids, Array.from({ length: ids.length }, (_, i) => i + 1));
  t.equal(ids.length, 25);
});

/**
 * The windows inside one append (src/db/event-log/append.ts): a flush repeated after a crash
 * must neither lose the event nor store it twice, whatever step the crash interrupted.
 */
t.test('a repeated flush after a crash at any step of an append stores the event once', async (t) => {
  const config = await testConfig(t);
  t.teardown(() => dropDatabase(config));
  const app = await buildApp(config, { logger: false });
  t.teardown(() => app.close());
  const { outbox } = app.database;
  const db = app.database.db;
  const coll = outbox.collection<{ _id: string; _outbox?: PendingEvent[] }>('crash_windows');
  const pending = (name: string) => buildEvents({ name: 'crash-test', id: -42 }, [{ type: 'tag-created', data: { value: name } }])[0]!;
  const stuck = async (name: string) => {
    const event = pending(name);
    await coll.insertOne({ _id: name, _outbox: [event] });
    return event;
  };
  const tail = db.collection<TailEntry>(EVENT_TAIL);
  const storedCopies = async (key: string) => await db.collection('events').countDocuments({ _id: key as never });

  // 1. Died after claiming id 6, before storing the event.
  const one = await stuck('claimed-only');
  await tail.insertOne({ _id: tailKey(6), id: 6, key: one.key, body: storedEventJson(6, one) });
  await outbox.flush(coll, 'claimed-only');
  t.equal(await storedCopies(one.key), 1);
  t.equal((await db.collection('events').findOne({ _id: one.key as never }))!.id, 6, 'stored under its claimed id');

  // 2. Died after storing the event (id 7), before clearing the pending copy.
  const two = await stuck('stored');
  await tail.insertOne({ _id: tailKey(7), id: 7, key: two.key, body: storedEventJson(7, two) });
  await db.collection('events').insertOne({ _id: two.key as never, id: 7, ...two, searchText: '' });
  await outbox.flush(coll, 'stored');
  t.equal(await storedCopies(two.key), 1, 'not stored twice');
  t.notOk((await coll.findOne({ _id: 'stored' }))!._outbox, 'the pending copy is cleared');

  // 3. Stored as id 8 long ago; its claim has left the tail since: the new claim (9) becomes void.
  const three = await stuck('claim-pruned');
  await db.collection('events').insertOne({ _id: three.key as never, id: 8, ...three, searchText: '' });
  await tail.insertOne({ _id: tailKey(8), id: 8, key: 'someone-else', body: storedEventJson(8, three) });
  await tail.deleteOne({ _id: tailKey(8) });
  // As another instance publishes its newest id (a revision document); the hint is as fresh as the last poll.
  await db.collection('meta').updateOne({ _id: 'rev:another-instance' as never }, { $set: { seq: 1, at: new Date(), lastId: 8, recent: [] } }, { upsert: true });
  await outbox.pollRevisions();
  await outbox.flush(coll, 'claim-pruned');
  t.equal(await storedCopies(three.key), 1, 'not stored twice');
  t.notOk(await tail.findOne({ _id: tailKey(9) }), 'a flush finds it in the log by key: no new claim (Outbox.alreadyLogged)');
  // Appended again all the same (another instance's flush that read the document before it was stored):
  outbox.eventLog.startAfter(8); // as a flush does, from the other instance's newest id
  await outbox.eventLog.append(three);
  t.equal(await storedCopies(three.key), 1, 'not stored twice');
  const voided = await tail.findOne({ _id: tailKey(9) });
  t.ok(voided?.void, 'the claim it made instead is a void slot');

  const res = await app.inject({ method: 'POST', url: '/api/admin/tags', headers: JSON_ADMIN, payload: { type: 'simple', value: 'after' } });
  t.equal(res.statusCode, 201);
  const newest = (await app.inject({ url: '/api/admin/search/events?limit=4', headers: ADMIN })).json().events;
  t.equal(newest[0].id, 10, 'the next event takes the id after the void slot');
  t.equal((await app.inject({ url: '/api/admin/search/events?id=IS:9', headers: ADMIN })).json().total, 0, 'the void slot holds no event');
});

t.test('pending events are stored packed in one string; documents holding an array flush the same', async (t) => {
  const app = await buildTestApp(t);
  const { outbox } = app.database;
  const db = app.database.db;
  const coll = outbox.collection<{ _id: string; value: number }>('packed_outbox');
  const events = buildEvents({ name: 'pack-test', id: -1 }, [{ type: 'tag-created', data: { value: 'packed', at: new Date(0) } }]);
  await outbox.insertPending(coll, { _id: 'packed', value: 1 }, events);
  const raw = await db.collection('packed_outbox').findOne({ _id: 'packed' as never });
  t.type(raw?._outbox, 'string', 'one Extended JSON string, not nested documents');
  t.same(pendingEvents(raw?._outbox as string), events, 'read back as the events written, dates included');
  await outbox.flush(coll, 'packed');
  t.notOk((await db.collection('packed_outbox').findOne({ _id: 'packed' as never }))?._outbox, 'flushed and cleared');
  const stored = await db.collection('events').findOne({ _id: events[0]!.key as never });
  t.equal(stored?.type, 'tag-created', 'the event is in the log');
  t.same(pendingEvents(undefined), [], 'no _outbox: no events');

  // As written before packing: the events as an array of documents.
  const legacy = outbox.collection<{ _id: string; _outbox?: PendingEvent[] }>('packed_outbox');
  const [old] = buildEvents({ name: 'pack-test', id: -1 }, [{ type: 'tag-created', data: { value: 'array' } }]);
  await legacy.insertOne({ _id: 'array', _outbox: [old!] });
  await outbox.flush(legacy, 'array');
  t.notOk((await db.collection('packed_outbox').findOne({ _id: 'array' as never }))?._outbox, 'an array _outbox is flushed and cleared');
  t.equal((await db.collection('events').findOne({ _id: old!.key as never }))?.type, 'tag-created', 'its event is in the log');
});

t.test('a start after a crash in a burst of writes repairs from what its load read: no document read again, nothing appended twice', async (t) => {
  const config = await testConfig(t, { VANE_MONITOR_COMMANDS: '1' });
  t.teardown(() => dropDatabase(config));
  const names = ['burst-1', 'burst-2', 'burst-3', 'burst-4', 'burst-5', 'burst-6'];
  const first = await buildApp(config, { logger: false });
  for (const name of names) {
    const res = await first.inject({ method: 'POST', url: '/api/admin/projects/default/features', headers: JSON_ADMIN, payload: { name } });
    t.equal(res.statusCode, 201);
  }
  await first.database.outbox.flushed();
  const flags = first.database.db.collection<{ _id: string; _outbox?: string }>('flags');
  const leftovers = await flags.find({ _id: { $in: names } }).toArray();
  t.equal(leftovers.filter((doc) => doc._outbox !== undefined).length, names.length, 'flushed, their clears still waiting');
  // What a crash then leaves: the documents as they were (a clean stop clears them), and one
  // event whose flush never ran.
  const [lost] = buildEvents({ name: 'crash-test', id: -42 }, [{ type: 'feature-updated', featureName: 'burst-6', project: 'default', data: { note: 'never logged' } }]);
  leftovers.at(-1)!._outbox = packEvents([...pendingEvents(leftovers.at(-1)!._outbox), lost!]);
  await first.close();
  const client = await new MongoClient(config.MONGODB_URL!).connect();
  t.teardown(() => client.close());
  for (const doc of leftovers) await client.db(config.MONGODB_DB).collection<{ _id: string }>('flags').replaceOne({ _id: doc._id }, doc);
  const logged = await client.db(config.MONGODB_DB).collection('events').countDocuments();

  let release!: () => void;
  const second = await buildApp(config, { logger: false, loadInBackground: true, holdLoad: new Promise<void>((resolve) => (release = resolve)) });
  t.teardown(() => second.close());
  const commands: string[] = [];
  const record = (event: CommandStartedEvent) => {
    if (event.command[event.commandName] === 'flags' && event.commandName !== 'createIndexes') commands.push(event.commandName);
  };
  second.database.client.on('commandStarted', record);
  release();
  await second.loaded;
  // The clears run in the background (clearRepaired), some before serving: there is no write to wait for.
  t.same(commands.filter((name) => name !== 'update'), ['find'], 'serving after the load\'s read, no read of a flag again');
  const cleared = async () => (await second.database.db.collection<{ _id: string }>('flags').find({ _id: { $in: names }, _outbox: { $exists: true } }).toArray()).map((d) => d._id);
  const deadline = Date.now() + 10_000;
  while ((await cleared()).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  second.database.client.off('commandStarted', record);
  t.equal(commands.filter((name) => name === 'update').length, names.length, 'and the clears (the finds after serving are this test\'s own)');
  const events = second.database.db.collection<{ featureName?: string; data?: { note?: string } }>('events');
  t.equal(await events.countDocuments(), logged + 1, 'the lost event appended; the others not again');
  t.equal(await events.countDocuments({ 'data.note': 'never logged' }), 1);
  t.same((await second.database.db.collection<{ _id: string }>('flags').find({ _id: { $in: names }, _outbox: { $exists: true } }).toArray()).map((d) => d._id), [], 'cleared');
});

t.test('a fresh start reports no crash leftovers: its own initial events are flushed before the repair looks', async (t) => {
  const config = await testConfig(t);
  t.teardown(() => dropDatabase(config));
  const lines: string[] = [];
  const app = await buildApp(config, { logger: { level: 'warn', stream: { write: (line: string) => void lines.push(line) } } });
  t.teardown(() => app.close());
  t.same(lines.filter((line) => line.includes('earlier crash')), [], 'no "flushed events left pending by an earlier crash" warning');
  t.equal(await app.database.db.collection('events').countDocuments(), 5, 'the initial events are in the log');
});

t.test('a clear of an earlier revision applied late never loses the events of a write whose flush failed', async (t) => {
  const app = await buildTestApp(t);
  const { outbox } = app.database;
  const db = app.database.db;
  const coll = outbox.collection<{ _id: string; value: number; _rev?: number }>('late_clear');
  const event = (value: string) => buildEvents({ name: 'late-clear-test', id: -1 }, [{ type: 'tag-created', data: { value } }]);
  const first = event('first');
  await outbox.insert(coll, { _id: 'doc', value: 1 }, first);
  await outbox.flushed();

  // The second write is acknowledged; its flush then fails (the database stopped answering).
  const appender = outbox as unknown as { appendEvents: (e: PendingEvent[]) => Promise<void> };
  const append = appender.appendEvents;
  appender.appendEvents = () => Promise.reject(new DatabaseTimeoutError('insertOne', 'event_tail', 10, true));
  const second = event('second');
  await outbox.replace(coll, { _id: 'doc', _rev: 1 }, { _id: 'doc', value: 2 }, second);
  await outbox.flushed();
  appender.appendEvents = append;
  const stored = await db.collection('late_clear').findOne({ _id: 'doc' as never });
  t.same(pendingEvents(stored?._outbox as string).map((e) => e.key), second.map((e) => e.key), 'its events wait in the document');

  // FerretDB applies an update it was sent before the outage only now: the clear armed by the first
  // write's flush removes `_outbox` from the second write's document.
  await db.collection('late_clear').updateOne({ _id: 'doc' as never }, { $unset: { _outbox: '' } });

  await outbox.reconcile();
  t.equal(await db.collection('events').countDocuments({ _id: second[0]!.key as never }), 1, "the second write's event is in the log");
  t.equal(await db.collection('events').countDocuments({ _id: first[0]!.key as never }), 1, "and the first's, once");
});

t.test('a conditional write is one command with its revision in the filter (MongoDB, the embedded FerretDB)', async (t) => {
  const config = await testConfig(t, { REVISION_POLL_MS: '60000', VANE_MONITOR_COMMANDS: '1' });
  t.teardown(() => dropDatabase(config));
  const app = await buildApp(config, { logger: false });
  t.teardown(() => app.close());
  if (!app.database.outbox.conditionInFilter) {
    t.pass('a stock FerretDB: the revision is checked by an _id read first (Outbox.conditionally)');
    return;
  }
  const created = await app.inject({ method: 'POST', url: '/api/admin/projects/default/features', headers: JSON_ADMIN, payload: { name: 'one-command' } });
  t.equal(created.statusCode, 201);
  await app.database.outbox.settle();
  const commands: CommandStartedEvent[] = [];
  const record = (event: CommandStartedEvent) => {
    if (event.command[event.commandName] === 'flags') commands.push(event);
  };
  app.database.client.on('commandStarted', record);
  t.teardown(() => app.database.client.off('commandStarted', record));
  const toggled = await app.inject({ method: 'POST', url: '/api/admin/projects/default/features/one-command/environments/development/on', headers: ADMIN });
  t.equal(toggled.statusCode, 200);
  t.same(commands.map((c) => c.commandName), ['update'], 'no read of the flag before its write');
  const filter = (commands[0]?.command.updates as Array<{ q: Record<string, unknown> }> | undefined)?.[0]?.q;
  t.equal(filter?._id, 'one-command');
  t.equal(filter?._rev, 1, 'the revision the state held is the condition');

  // The condition holds: another writer's revision (here by hand) makes the write find nothing; it is retried on what the database holds.
  await app.database.db.collection<{ _id: string; _rev: number }>('flags').updateOne({ _id: 'one-command' }, { $inc: { _rev: 1 } });
  commands.length = 0;
  const again = await app.inject({ method: 'POST', url: '/api/admin/projects/default/features/one-command/environments/development/off', headers: ADMIN });
  t.equal(again.statusCode, 200, 'the write is retried on the re-read revision');
  t.same(commands.map((c) => c.commandName), ['update', 'find', 'update'], 'refused, re-read, written');
  const stored = await app.database.db.collection<{ _id: string; _rev: number }>('flags').findOne({ _id: 'one-command' });
  t.equal(stored?._rev, 4, 'on top of the other write');
  const flag = await app.inject({ url: '/api/admin/projects/default/features/one-command', headers: ADMIN });
  t.equal(flag.json().environments.find((e: { name: string }) => e.name === 'development').enabled, false, 'and applied');
});

t.test('maintenance writes take their share of the time once writers pause; one in hurry goes at once', async (t) => {
  const app = await buildTestApp(t);
  const outbox = app.database.outbox;
  await outbox.settle(); // the start's own clears, out of the way
  outbox['untilWritersPause'] = () => 0;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const share = Outbox.MAINTENANCE_SHARE;
  const timedTurn = async (hurry = false) => {
    const at = performance.now();
    const ended = await outbox.maintenanceTurn(() => hurry);
    return { ended, waited: performance.now() - at };
  };

  const first = await timedTurn();
  await sleep(100); // a maintenance write of 100 ms
  first.ended();
  const second = await timedTurn();
  second.ended();
  const due = 100 * (1 - share) / share;
  t.ok(second.waited >= due - 30 && second.waited < due + 1000, `after a write of 100 ms the next waits ~${due} ms (${second.waited.toFixed(0)})`);

  const long = await timedTurn(true);
  let granted = false;
  const waiting = outbox.maintenanceTurn(() => false).then((ended) => {
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
