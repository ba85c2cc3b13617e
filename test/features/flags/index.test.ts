/**
 * FlagStore keeps its order, child lists, strategy owners and active count current flag by flag
 * (a MirrorView over the state): after every kind of flag write they equal what a store that
 * builds them whole from the same state answers.
 */
import t from 'tap';
import { buildApp } from '../../../src/app.js';
import { buildTestApp, dropDatabase, testConfig } from '../../helpers/app.js';
import { timeUntil } from '../../helpers/wait.js';
import { FlagStore } from '../../../src/features/flags/store.js';
import { BASE, createFlag, send } from './helpers.js';

t.test('the incrementally kept flag index equals one built whole', async (t) => {
  const app = await buildTestApp(t);
  const kept = app.services.flags.store;
  // Read once now, so every later read is an update of this one, not a build.
  await kept.all();
  const names = Array.from({ length: 12 }, (_, i) => `idx.${String(i).padStart(2, '0')}`);
  const strategyIds: string[] = [];
  const compare = async (step: string) => {
    const whole = new FlagStore(app.database.outbox);
    t.same((await kept.all()).map((f) => [f.name, f._rev, f.archived]), (await whole.all()).map((f) => [f.name, f._rev, f.archived]), `${step}: order`);
    t.equal(await kept.countActive(), await whole.countActive(), `${step}: active flags`);
    for (const name of names) t.same(await kept.children(name), await whole.children(name), `${step}: children of ${name}`);
    for (const id of strategyIds) t.equal((await kept.findByStrategyId(id))?.name, (await whole.findByStrategyId(id))?.name, `${step}: owner of ${id}`);
  };
  for (const name of names) t.equal((await createFlag(app, { name })).statusCode, 201);
  await compare('created');
  for (const [i, name] of names.entries()) {
    const res = await send(app, 'POST', `${BASE}/${name}/environments/development/strategies`, { name: 'default', parameters: {}, constraints: [] });
    strategyIds.push(res.json().id as string);
    if (i % 3 === 1) t.equal((await send(app, 'POST', `${BASE}/${name}/dependencies`, { feature: names[i - 1] })).statusCode, 200);
  }
  await compare('strategies and dependencies');
  t.equal((await send(app, 'DELETE', `${BASE}/${names[4]}/dependencies`)).statusCode, 200);
  t.equal((await send(app, 'DELETE', `${BASE}/${names[7]}`)).statusCode, 202, 'a child archived');
  t.equal((await send(app, 'DELETE', `${BASE}/${names[5]}`)).statusCode, 202);
  t.equal((await send(app, 'DELETE', `${BASE}/${names[0]}/environments/development/strategies/${strategyIds[0]}`)).statusCode, 200);
  await compare('removals and archives');
  t.equal((await send(app, 'POST', `/api/admin/archive/revive/${names[7]}`)).statusCode, 200);
  await app.database.outbox.settle();
  await compare('revived, events flushed');
});

t.test('after a start the flags are parsed and the index built in the background, before any request asks', async (t) => {
  const config = await testConfig(t);
  t.teardown(() => dropDatabase(config));
  const a = await buildApp(config, { logger: false });
  const names = ['warm.a', 'warm.b', 'warm.c'];
  for (const name of names) t.equal((await createFlag(a, { name })).statusCode, 201);
  await a.close();

  const b = await buildApp(config, { logger: false });
  t.teardown(() => b.close());
  // Left to the first reader, the parse stalled the main thread ~500 ms at 5 000 flags.
  const index = b.services.flags.store['index'];
  const built = await timeUntil(async () => index['value'] !== undefined, 5000);
  t.ok(built !== undefined, 'the index is built with no request');
  t.same(index['value']?.ordered.map((f) => f.name).filter((n) => n.startsWith('warm.')), names, 'of every flag, in creation order');
});
