import t from 'tap';
import { MongoClient } from 'mongodb';

/**
 * The embedded FerretDB looks documents up by `_id` through its `_id` index (src/db/embedded.ts,
 * FERRETDB_ID_PATCH). Without it every `_id` read, update and delete scanned its whole collection,
 * so a write's cost grew with the configuration. FerretDB's `explain` reports SQLite's query plan.
 */
t.test('the embedded database finds a document by _id through the _id index', async (t) => {
  const url = process.env.MONGODB_URL;
  if (!url) {
    t.pass('no database: nothing to check');
    return;
  }
  const client = await new MongoClient(url).connect();
  t.teardown(() => client.close());
  const db = client.db(`vane_embedded_${process.pid}`);
  t.teardown(() => db.dropDatabase());
  const info = await db.admin().command({ buildInfo: 1 });
  if (!('ferretdbVersion' in info)) {
    t.pass('not FerretDB: a MongoDB uses its _id index anyway');
    return;
  }
  await db.collection<{ _id: string; n: number }>('flags').insertMany(Array.from({ length: 50 }, (_, n) => ({ _id: `f${n}`, n })));
  const explained = await db.command({ explain: { find: 'flags', filter: { _id: 'f42' } } });
  const plan = JSON.stringify(explained.queryPlanner);
  t.match(plan, /SEARCH \S+ USING INDEX \S+__id_/, `SQLite searches the _id index (plan: ${plan})`);
  t.notMatch(plan, /SCAN/, 'no table scan');
  t.same(await db.collection<{ _id: string; n: number }>('flags').findOne({ _id: 'f42' }), { _id: 'f42', n: 42 }, 'and finds the document');
});
