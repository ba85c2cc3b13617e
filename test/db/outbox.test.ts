import t from 'tap';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../../src/app.js';
import { testConfig, dropDatabase, JSON_ADMIN } from '../helpers/app.js';

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
  t.notOk(tokens[0]!._outbox, 'its pending event was flushed at start');
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
  const before = await app.database.db.collection('events').countDocuments();
  const res = await app.inject({
    method: 'POST', url: '/api/admin/api-tokens', headers: JSON_ADMIN, payload: { tokenName: 'x', type: 'client', environment: 'nope' },
  });
  t.equal(res.statusCode, 400);
  t.equal(await app.database.db.collection('events').countDocuments(), before);
  t.equal(await app.database.db.collection('api_tokens').countDocuments({ tokenName: 'x' }), 0);
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
  const ids = (await a.database.db.collection('events').find({}).sort({ id: 1 }).toArray()).map((e) => e.id);
  t.same(ids, Array.from({ length: ids.length }, (_, i) => i + 1));
  t.equal(ids.length, 25);
});
