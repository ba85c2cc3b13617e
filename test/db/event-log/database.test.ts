import t from 'tap';
import { MongoClient } from 'mongodb';
import { buildApp } from '../../../src/app.js';
import { EVENT_INDEXES } from '../../../src/db/event-log/database.js';
import { ADMIN, JSON_ADMIN, dropDatabase, testConfig } from '../../helpers/app.js';

t.test('the search indexes exist only where the server reads through them: on FerretDB those of an earlier release are dropped', async (t) => {
  const config = await testConfig(t);
  t.teardown(() => dropDatabase(config));
  // An `events` collection as an earlier release left it: every search index created.
  const client = new MongoClient(config.MONGODB_URL!);
  await client.connect();
  t.teardown(() => client.close());
  const events = client.db(config.MONGODB_DB).collection('events');
  for (const { key, ...options } of EVENT_INDEXES) await events.createIndex(key, options);
  const names = async () => (await events.listIndexes().toArray()).map((index) => String(index.name));
  t.ok(EVENT_INDEXES.every(({ name }) => name !== undefined), 'every search index is named');
  const search = EVENT_INDEXES.map(({ name }) => name!);

  const app = await buildApp(config, { logger: false });
  t.teardown(() => app.close());
  await app.ready();
  const present = await names();
  const ferret = app.database.outbox.isFerretDB;
  t.same(search.filter((name) => present.includes(name)), ferret ? [] : search, ferret ? 'dropped on FerretDB' : 'kept on MongoDB');
  t.ok(present.includes('id_unique'), 'the unique id index appending relies on stays');

  // Appending and searching work without them.
  const created = await app.inject({
    method: 'POST', url: '/api/admin/projects/default/features',
    headers: JSON_ADMIN,
    payload: { name: 'indexless' },
  });
  t.equal(created.statusCode, 201);
  const found = await app.inject({ method: 'GET', url: '/api/admin/search/events?feature=IS:indexless', headers: ADMIN });
  t.equal(found.json().total, 1);
});
