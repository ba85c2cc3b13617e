/**
 * FlagStore.snapshotSource after each kind of write: the list taken over from the previous one
 * where flags changed in place must be the list made whole (every live flag, in creation order,
 * each the store's copy of its current revision).
 */
import t from 'tap';
import { seeded } from '../client-api/random-config.js';
import { buildTestApp } from '../../helpers/app.js';
import { BASE, createFlag, send } from './helpers.js';

t.test('the playground and SDK source after random writes is the list made whole', async (t) => {
  const app = await buildTestApp(t);
  const store = app.services.flags.store;
  const rng = seeded(2718);
  const names = Array.from({ length: 24 }, (_, i) => `snap-${i}`);
  for (const name of names) t.equal((await createFlag(app, { name })).statusCode, 201);
  const archived = new Set<string>();
  for (let step = 0; step < 120; step++) {
    const name = names[Math.floor(rng() * names.length)]!;
    const kind = rng();
    let res;
    if (archived.has(name)) {
      res = await send(app, 'POST', `/api/admin/archive/revive/${name}`);
      archived.delete(name);
    } else if (kind < 0.08) {
      res = await send(app, 'DELETE', `${BASE}/${name}`);
      archived.add(name);
    } else if (kind < 0.5) {
      res = await send(app, 'POST', `${BASE}/${name}/environments/development/${rng() < 0.5 ? 'on' : 'off'}`);
    } else {
      res = await send(app, 'POST', `${BASE}/${name}/environments/development/strategies`, { name: 'flexibleRollout', parameters: { rollout: String(step % 100), stickiness: 'default', groupId: name } });
    }
    t.ok(res.statusCode < 300, `step ${step}: ${res.statusCode} ${res.statusCode < 300 ? '' : res.body}`);
    const live = await store.snapshotSource();
    const whole = (await store.all()).filter((flag) => !flag.archived);
    t.same(live.map((flag) => flag.name), whole.map((flag) => flag.name), `step ${step}: the live flags in order`);
    t.same(live.map((flag) => JSON.stringify(flag.environments)), whole.map((flag) => JSON.stringify(flag.environments)), `step ${step}: their current revisions`);
  }
});
