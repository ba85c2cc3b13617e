import t from 'tap';
import { MongoClient, type Db } from 'mongodb';
import { isFerretDB } from '../../src/db/outbox/server.js';

/** A fresh database on the test run's server when it is FerretDB (dropped after the test); undefined, the test skipped, otherwise. */
async function embeddedFerretDB(t: { plan(n: number, comment?: string): void; teardown(fn: () => unknown): void }, name: string): Promise<Db | undefined> {
  const url = process.env.MONGODB_URL;
  if (!url) {
    t.plan(0, 'skipped: no database (run through `npm test`)');
    return undefined;
  }
  const client = await new MongoClient(url).connect();
  t.teardown(() => client.close());
  const db = client.db(`${name}_${process.pid}`);
  t.teardown(() => db.dropDatabase());
  const info = await db.admin().command({ buildInfo: 1 });
  if (!(await isFerretDB(db))) {
    t.plan(0, `skipped: not FerretDB (${String(info.version)}); this checks the embedded build`);
    return undefined;
  }
  return db;
}

/**
 * The embedded FerretDB looks documents up by `_id` through its `_id` index (src/db/embedded.ts,
 * FERRETDB_PATCH). Without it every `_id` read, update and delete scanned its whole collection,
 * so a write's cost grew with the configuration. FerretDB's `explain` reports SQLite's query plan.
 */
t.test('the embedded database finds a document by _id through the _id index', async (t) => {
  const db = await embeddedFerretDB(t, 'vane_embedded');
  if (!db) return;
  await db.collection<{ _id: string; n: number }>('flags').insertMany(Array.from({ length: 50 }, (_, n) => ({ _id: `f${n}`, n })));
  const explained = await db.command({ explain: { find: 'flags', filter: { _id: 'f42' } } });
  const plan = JSON.stringify(explained.queryPlanner);
  t.match(plan, /SEARCH \S+ USING INDEX \S+__id_/, `SQLite searches the _id index (plan: ${plan})`);
  t.notMatch(plan, /SCAN/, 'no table scan');
  t.same(await db.collection<{ _id: string; n: number }>('flags').findOne({ _id: 'f42' }), { _id: 'f42', n: 42 }, 'and finds the document');
});

/**
 * The embedded build also reads `{_id, …}` filters through the `_id` index (FERRETDB_PATCH, second
 * edit), filtering by the rest as before; the outbox then writes conditionally in one command.
 */
t.test('the embedded database reads an _id filter with other fields through the _id index, and answers as before', async (t) => {
  const db = await embeddedFerretDB(t, 'vane_embedded_rev');
  if (!db) return;
  const flags = db.collection<{ _id: string; _rev: number; n: number; _deleted?: boolean }>('flags');
  await flags.insertMany(Array.from({ length: 50 }, (_, n) => ({ _id: `f${n}`, _rev: 3, n })));
  const explained = await db.command({ explain: { find: 'flags', filter: { _id: 'f42', _rev: 3 } } });
  const plan = JSON.stringify(explained.queryPlanner);
  t.match(plan, /SEARCH \S+ USING INDEX \S+__id_/, `SQLite searches the _id index (plan: ${plan})`);
  t.notMatch(plan, /SCAN/, 'no table scan');
  t.equal(explained.filterPushdown, true, 'explain says the filter was pushed down (what the outbox asks)');
  t.same(await flags.findOne({ _id: 'f42', _rev: 3 }), { _id: 'f42', _rev: 3, n: 42 }, 'a matching condition finds the document');
  t.equal(await flags.findOne({ _id: 'f42', _rev: 2 }), null, 'a condition the document fails finds nothing');
  t.equal(await flags.findOne({ _id: 'f42', n: { $gt: 42 } }), null, 'operators beside _id still filter');
  t.equal((await flags.replaceOne({ _id: 'f41', _rev: 2 }, { _rev: 3, n: -1 })).matchedCount, 0, 'a conditional replace at the wrong revision matches nothing');
  t.equal((await flags.replaceOne({ _id: 'f41', _rev: 3, _deleted: { $ne: true } }, { _rev: 4, n: -1 })).matchedCount, 1, 'at the right revision it replaces');
  t.same(await flags.findOne({ _id: 'f41' }), { _id: 'f41', _rev: 4, n: -1 });
  t.equal((await flags.deleteOne({ _id: 'f40', _rev: 9 })).deletedCount, 0, 'a conditional delete at the wrong revision deletes nothing');
  t.equal((await flags.deleteOne({ _id: 'f40', _rev: 3 })).deletedCount, 1);
  t.equal(await flags.countDocuments({}), 49, 'no other document touched');
  t.same(await flags.find({ _id: { $in: ['f1', 'f2'] }, n: 2 }).toArray(), [{ _id: 'f2', _rev: 3, n: 2 }], 'an _id operator is not pushed down and still answers');
});

t.test('the server\'s kind is told by buildInfo: FerretDB answers with its version', async (t) => {
  const client = await new MongoClient(process.env.MONGODB_URL ?? 'mongodb://127.0.0.1:1', { serverSelectionTimeoutMS: 5000 }).connect();
  t.teardown(() => client.close());
  const db = client.db('vane_server_kind');
  const info = await db.admin().command({ buildInfo: 1 });
  t.equal(await isFerretDB(db), typeof info.ferretdbVersion === 'string', 'as buildInfo says');
  const fake = { admin: () => ({ command: async () => ({ version: '7.0.0' }) }) } as unknown as Db;
  t.equal(await isFerretDB(fake), false, 'a MongoDB answers without ferretdbVersion');
});
