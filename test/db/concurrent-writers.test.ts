/**
 * Several instances writing the same flags at once on one database: no acknowledged write is
 * lost, from any instance's view or after a restart, and each has exactly its event.
 *
 * On FerretDB a conditional update is a read, then a write by `_id`, outside any transaction:
 * with writes of one flag from two instances, racing `replaceOne({_id, _rev})` calls each answered
 * `modifiedCount: 1` while 2 to 4 of 480 strategy adds vanished. Writes now go through the commit
 * log (src/db/outbox/commit-log.ts), whose only compare-and-set is a unique `_id`.
 */
import t, { type Test } from 'tap';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import { committed, dropDatabase, JSON_ADMIN, ADMIN, testConfig } from '../helpers/app.js';
import { unpackFlag, type StoredFlag } from '../../src/features/flags/store.js';

const FLAGS = 10;
const ROUNDS = 6;
const FEATURES = '/api/admin/projects/default/features';

interface Acknowledged {
  flag: string;
  environment: string;
  id: string;
}

/** An instance serving HTTP, as behind a load balancer: closing it lets the requests it has taken finish. */
interface Instance {
  app: FastifyInstance;
  base: string;
}

async function start(config: Config): Promise<Instance> {
  const app = await buildApp(config, { logger: false });
  return { app, base: await app.listen({ port: 0, host: '127.0.0.1' }) };
}

async function send(instance: Instance, method: string, path: string, payload?: unknown): Promise<{ status: number; body: string } | undefined> {
  try {
    const res = await fetch(`${instance.base}${path}`, {
      method, headers: payload === undefined ? ADMIN : JSON_ADMIN, ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
    });
    return { status: res.status, body: await res.text() };
  } catch {
    return undefined; // refused: the instance had closed
  }
}

/**
 * One writer's work: each round, a flexible rollout on every flag in its environment, and every
 * third round its environment toggled. Returns the strategies the server acknowledged.
 */
async function write(instance: () => Instance, environment: string, label: string): Promise<{ added: Acknowledged[]; unknown: number }> {
  const added: Acknowledged[] = [];
  let unknown = 0;
  for (let round = 0; round < ROUNDS; round++) {
    await Promise.all(Array.from({ length: FLAGS }, async (_, i) => {
      const flag = `two.writers.${i}`;
      const env = `${FEATURES}/${flag}/environments/${environment}`;
      const res = await send(instance(), 'POST', `${env}/strategies`, {
        name: 'flexibleRollout', constraints: [], parameters: { rollout: String(round), stickiness: 'default', groupId: `${label}-${round}` },
      });
      if (res?.status === 200) added.push({ flag, environment, id: (JSON.parse(res.body) as { id: string }).id });
      // Refused after retries (409), or no answer: not acknowledged, and its outcome may be either.
      else if (!res || res.status === 409 || res.status === 503) unknown++;
      else throw new Error(`${res.status} ${res.body}`);
      if (round % 3 === 2) await send(instance(), 'POST', `${env}/${round % 2 ? 'on' : 'off'}`);
    }));
  }
  return { added, unknown };
}

/** The strategy ids of every flag's environment, as `app` answers. */
async function served(app: FastifyInstance): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let i = 0; i < FLAGS; i++) {
    const flag = (await app.inject({ url: `${FEATURES}/two.writers.${i}`, headers: ADMIN })).json();
    for (const env of flag.environments as Array<{ name: string; strategies: Array<{ id: string }> }>) {
      for (const s of env.strategies) ids.add(`two.writers.${i}/${env.name}/${s.id}`);
    }
  }
  return ids;
}

async function checkNothingLost(t: Test, apps: FastifyInstance[], acknowledged: Acknowledged[], unknown: number): Promise<void> {
  const keys = acknowledged.map((a) => `${a.flag}/${a.environment}/${a.id}`);
  for (const app of apps) await app.database.outbox.settle();
  for (const app of apps) await app.database.outbox.poll();
  for (const [i, app] of apps.entries()) {
    const ids = await served(app);
    t.same(keys.filter((k) => !ids.has(k)), [], `instance ${i}: every acknowledged strategy is served`);
  }
  // The database's own view: the commit log folded, as a restart loads it.
  const flags = await committed(apps[0]!, 'flags');
  const stored = new Set<string>();
  for (const doc of flags.values()) {
    const flag = unpackFlag(doc as StoredFlag);
    for (const [env, { strategies }] of Object.entries(flag.environments)) for (const s of strategies) stored.add(`${flag.name}/${env}/${s.id}`);
  }
  t.same(keys.filter((k) => !stored.has(k)), [], 'every acknowledged strategy is committed');
  const extra = stored.size - new Set(keys).size;
  t.ok(extra >= 0 && extra <= unknown, `and nothing else but writes of unknown outcome (${extra} of ${unknown})`);

  // Events: one `feature-strategy-add` per acknowledged strategy, none for anything else.
  const events = await apps[0]!.database.db.collection('events').find({ type: 'feature-strategy-add' }).toArray();
  const logged = events.map((e) => `${String(e.featureName)}/${String(e.environment)}/${String((e.data as { id: string }).id)}`);
  t.equal(logged.length, new Set(logged).size, 'each event once');
  t.same(logged.filter((k) => !stored.has(k)), [], 'no event without its change');
  t.same([...stored].filter((k) => !logged.includes(k)), [], 'no change without its event');
}

for (const count of [2, 4]) {
  t.test(`${count} instances write the same flags at once, while instances start and stop: nothing acknowledged is lost`, async (t) => {
    const config = await testConfig(t, { REVISION_POLL_MS: '50' });
    t.teardown(() => dropDatabase(config));
    const instances: Instance[] = [await start(config)];
    t.teardown(async () => {
      for (const { app } of instances) await app.close();
    });
    for (let i = 0; i < FLAGS; i++) {
      const res = await send(instances[0]!, 'POST', FEATURES, { name: `two.writers.${i}` });
      t.equal(res?.status, 201);
    }
    // The others start and write at once: right after they start, not only in steady state.
    for (let i = 1; i < count; i++) instances.push(await start(config));
    const environments = ['development', 'production'];
    const runs = instances.map((_, i) => write(() => instances[i]!, environments[i % 2]!, `w${i}`));
    // Meanwhile the last instance stops and another takes its place, twice.
    for (let restart = 0; restart < 2; restart++) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const last = instances.length - 1;
      const stopping = instances[last]!;
      instances[last] = await start(config);
      await stopping.app.close();
    }
    const at = performance.now();
    const results = await Promise.all(runs);
    t.comment(`writes ${(performance.now() - at).toFixed(0)} ms`);
    const acknowledged = results.flatMap((r) => r.added);
    const unknown = results.reduce((n, r) => n + r.unknown, 0);
    t.comment(`${acknowledged.length} strategies acknowledged, ${unknown} refused or unanswered`);
    t.ok(acknowledged.length >= (FLAGS * ROUNDS * count) / 2, 'most writes go through');
    await checkNothingLost(t, instances.map((i) => i.app), acknowledged, unknown);

    t.comment(`checked ${(performance.now() - at).toFixed(0)} ms`);
    // After a restart of every instance, the same.
    for (const { app } of instances.splice(0)) await app.close();
    instances.push(await start(config), await start(config));
    await checkNothingLost(t, instances.map((i) => i.app), acknowledged, unknown);
    t.comment(`restarted and checked ${(performance.now() - at).toFixed(0)} ms`);
  });
}
