/** Feature types and their lifetimes, as Unleash 8.2 answers and records them (measured). */
import t from 'tap';
import { buildTestApp, eventsAfter, lastEventId, send } from '../../helpers/app.js';

const RELEASE = { id: 'release', name: 'Release', description: 'Roll out new or incomplete features. Expected lifetime ~40 days' };

t.test('a type\'s lifetime: set, 0 for never, with its event; potentially stale follows it', async (t) => {
  const app = await buildTestApp(t);
  await send(app, 'POST', '/api/admin/projects/default/features', { name: 'young' });
  const after = await lastEventId(app);
  const set = await send(app, 'PUT', '/api/admin/feature-types/release/lifetime', { lifetimeDays: 41 });
  t.equal(set.statusCode, 200);
  t.same(set.json(), { ...RELEASE, lifetimeDays: 41 });
  t.same((await send(app, 'PUT', '/api/admin/feature-types/release/lifetime', { lifetimeDays: 0 })).json().lifetimeDays, null, '0: never');
  t.same((await send(app, 'GET', '/api/admin/feature-types')).json().types[0], { ...RELEASE, lifetimeDays: null });
  type Lifetime = { lifetimeDays: number | null };
  t.same((await eventsAfter(app, after)).map((e) => [e.type, (e.data as Lifetime).lifetimeDays, (e.preData as Lifetime).lifetimeDays]), [
    ['feature-type-updated', 41, 40], ['feature-type-updated', null, 41],
  ]);

  const refused: Array<[string, unknown, number, RegExp]> = [
    ['/api/admin/feature-types/release/lifetime', { lifetimeDays: -1 }, 400, /must be >= 0/],
    ['/api/admin/feature-types/release/lifetime', { lifetimeDays: 2147483648 }, 400, /must be <= 2147483647/],
    ['/api/admin/feature-types/release/lifetime', {}, 400, /\/body\/lifetimeDays/],
    ['/api/admin/feature-types/nope/lifetime', { lifetimeDays: 3 }, 404, /The feature type you tried to update \(\\"nope\\"\) does not exist./],
  ];
  for (const [url, payload, status, message] of refused) {
    const res = await send(app, 'PUT', url, payload);
    t.equal(res.statusCode, status, JSON.stringify(payload));
    t.match(res.body, message);
  }

  await send(app, 'PUT', '/api/admin/feature-types/release/lifetime', { lifetimeDays: 40 });
  t.same((await send(app, 'GET', '/api/admin/feature-types')).json().types[0], { ...RELEASE, lifetimeDays: 40 }, 'back to the default');
});
