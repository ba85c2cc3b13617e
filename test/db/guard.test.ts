import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import {
  DatabaseGuard, DatabaseTimeoutError, DatabaseUnavailableError, TooManyStatementsError, inBatches,
} from '../../src/db/guard.js';
import { startEmbeddedDatabase } from '../../src/db/embedded.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

t.test('writes never exceed their slots; reads have their own', async (t) => {
  const guard = new DatabaseGuard(1000, { maxWrites: 1, maxReads: 2, maxStatements: 32 }, quiet);
  let writing = 0;
  let maxWriting = 0;
  let reading = 0;
  let maxReading = 0;
  const write = () => guard.run('write', 'replaceOne', 'flags', async () => {
    maxWriting = Math.max(maxWriting, ++writing);
    await new Promise((r) => setTimeout(r, 5));
    writing--;
  });
  const read = () => guard.run('read', 'findOne', 'flags', async () => {
    maxReading = Math.max(maxReading, ++reading);
    await new Promise((r) => setTimeout(r, 5));
    reading--;
  });
  await Promise.all([...Array.from({ length: 20 }, write), ...Array.from({ length: 20 }, read)]);
  t.equal(maxWriting, 1, 'one write at a time');
  t.equal(maxReading, 2, 'two reads at a time');
  t.same(guard.stats().writesInUse, 0);
});

t.test('a deadline names the operation and collection; a queued operation is never sent', async (t) => {
  const errors: unknown[] = [];
  const guard = new DatabaseGuard(100, { maxWrites: 1, maxReads: 1, maxStatements: 32 }, { error: (o) => errors.push(o) });
  const stuck = deferred();
  let secondSent = false;
  const first = guard.run('write', 'replaceOne', 'flags', () => stuck.promise);
  const second = guard.run('write', 'insertOne', 'events', async () => { secondSent = true; });
  const [a, b] = await Promise.allSettled([first, second]);
  t.ok(a.status === 'rejected' && a.reason instanceof DatabaseTimeoutError && a.reason.sent, 'the sent one timed out');
  t.match((a as PromiseRejectedResult).reason.message, /replaceOne on flags did not finish within 100 ms/);
  t.ok(b.status === 'rejected' && b.reason instanceof DatabaseTimeoutError && !b.reason.sent, 'the queued one was never sent');
  t.notOk(secondSent);
  t.match(errors, [{ operation: 'replaceOne', collection: 'flags', sent: true }, { operation: 'insertOne', collection: 'events', sent: false }]);
  // The stuck operation keeps its slot until it settles (at most one more deadline).
  t.equal(guard.stats().writesInUse, 1);
  stuck.resolve();
  await new Promise((r) => setTimeout(r, 0));
  t.equal(guard.stats().writesInUse, 0, 'released once the driver settles it');
  const never = guard.run('write', 'replaceOne', 'flags', () => new Promise(() => undefined));
  await t.rejects(never, DatabaseTimeoutError);
  await new Promise((r) => setTimeout(r, 150));
  t.equal(guard.stats().writesInUse, 0, 'an operation the driver never settles frees its slot after a second deadline');
  t.equal(guard.stats().overdue, 1);
});

t.test('an operation past its deadline without an answer, and none completed since: refused at once until one completes', async (t) => {
  // 2 s: the guard forgets an unanswered operation a second deadline after its first, and a
  // loaded CI machine held this test past that before the refused write ran (229 ms past a 100 ms
  // deadline once, more than 500 ms past a 500 ms one another time).
  const guard = new DatabaseGuard(2000, { maxWrites: 1, maxReads: 2, maxStatements: 32 }, quiet);
  t.equal(await guard.run('read', 'findOne', 'flags', async () => 1), 1);
  const hung = deferred();
  const first = guard.run('read', 'findOne', 'commits', () => hung.promise);
  // Within the first one's deadline a slow database is still given the benefit of the doubt.
  t.equal(await guard.run('read', 'findOne', 'flags', async () => 2), 2, 'another completes: progress');
  await t.rejects(first, DatabaseTimeoutError);
  const hungAgain = guard.run('read', 'findOne', 'commits', () => new Promise(() => undefined));
  await t.rejects(hungAgain, DatabaseTimeoutError);
  const started = performance.now();
  const refused = await guard.run('write', 'insertOne', 'commits', async () => 3).then(() => undefined, (err: unknown) => err);
  t.ok(refused instanceof DatabaseUnavailableError, 'refused');
  t.match((refused as Error).message, /has no answer yet, and none has completed since/);
  t.ok(performance.now() - started < 50, 'at once, not after a deadline of its own');
  t.equal(await guard.run('write', 'replaceOne', 'health', async () => 4, { probe: true }), 4, 'the health probe still runs');
  t.equal(await guard.run('write', 'insertOne', 'commits', async () => 5), 5, 'an answer since: accepted again');
  hung.resolve();
});

t.test('closed: refused at once, probes still run', async (t) => {
  const guard = new DatabaseGuard(1000, { maxWrites: 1, maxReads: 1, maxStatements: 32 }, quiet);
  guard.close('the probe failed');
  await t.rejects(guard.run('write', 'insertOne', 'flags', async () => 1), DatabaseUnavailableError);
  t.equal(await guard.run('write', 'replaceOne', 'health', async () => 2, { probe: true }), 2);
  guard.open();
  t.equal(await guard.run('write', 'insertOne', 'flags', async () => 3), 3);
});

t.test('a bulkWrite of more statements than a command may carry is refused before it is sent', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'vane-guard-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const server = await startEmbeddedDatabase(dir, quiet);
  t.teardown(() => server.stop());
  const client = await new MongoClient(server.url).connect();
  t.teardown(() => client.close(true));
  const guard = new DatabaseGuard(3000, { maxWrites: 1, maxReads: 4, maxStatements: 32 }, quiet);
  const coll = guard.wrapDb(client.db('guard')).collection<{ _id: number }>('c');
  const ops = Array.from({ length: 33 }, (_, i) => ({ insertOne: { document: { _id: i } } }));
  t.throws(() => coll.bulkWrite(ops), TooManyStatementsError);
  await inBatches(ops, 32, (batch) => coll.bulkWrite(batch));
  t.equal(await coll.countDocuments({}), 33);
  // Cursor round trips go through the guard too: a closed gate refuses the next batch.
  const cursor = coll.find({}, { batchSize: 5 });
  t.ok(await cursor.next());
  guard.close('test');
  for (let i = 0; i < 4; i++) await cursor.next(); // buffered: no round trip
  await t.rejects(cursor.next(), DatabaseUnavailableError);
});

/**
 * A wedge (a write that never finishes and holds up every later one), on a database of its own
 * (it would take the shared one down): 150 upserts over existing documents. Sent as one unordered
 * bulkWrite, it never finishes on FerretDB and every later write waits for ever; in commands of
 * at most maxStatements (inBatches) it does.
 */
t.test('many upserts over existing documents, in batches, do not wedge the embedded database', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'vane-wedge-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const server = await startEmbeddedDatabase(dir, quiet);
  // Killed rather than stopped: if the wedge is back, FerretDB would not stop on SIGTERM.
  t.teardown(() => process.kill(server.pid, 'SIGKILL'));
  const client = await new MongoClient(server.url, { maxPoolSize: 10 }).connect();
  t.teardown(() => client.close(true));
  const guard = new DatabaseGuard(10_000, { maxWrites: 1, maxReads: 4, maxStatements: 32 }, quiet);
  const coll = guard.wrapDb(client.db('wedge')).collection<{ _id: string; yes: number }>('counts');
  const upserts = (yes: number) => Array.from({ length: 150 }, (_, i) => ({
    replaceOne: { filter: { _id: `flag-${i}` }, replacement: { yes }, upsert: true },
  }));
  const within = <T>(p: Promise<T>, ms: number) =>
    Promise.race([p, new Promise<never>((_r, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))]);
  await within(inBatches(upserts(1), guard.maxStatements, (batch) => coll.bulkWrite(batch, { ordered: true })), 8000);
  // Over existing documents: the case that wedged.
  await within(inBatches(upserts(2), guard.maxStatements, (batch) => coll.bulkWrite(batch, { ordered: true })), 8000);
  const other = await new MongoClient(server.url).connect();
  t.teardown(() => other.close(true));
  await within(other.db('wedge').collection('probe').insertOne({ ok: 1 }), 5000);
  t.equal((await within(coll.find({}).toArray(), 5000)).reduce((n, d) => n + d.yes, 0), 300, 'every document written');
});
