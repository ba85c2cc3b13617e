/** Unleash's older event routes (measured on 8.2): the latest events, a flag's, and who created events. */
import t from 'tap';
import { ADMIN, buildTestApp, send } from '../../helpers/app.js';
import { login, STRONG, userWithRole } from '../../helpers/sessions.js';

t.test('GET /api/admin/events, /events/:flag and /event-creators', async (t) => {
  const app = await buildTestApp(t);
  await send(app, 'POST', '/api/admin/projects/default/features', { name: 'watched' });
  await send(app, 'POST', '/api/admin/projects/default/features/watched/environments/development/on');
  await userWithRole(app, 'ada', 1);
  const cookie = await login(app, 'ada', STRONG);
  await app.inject({
    method: 'POST', url: '/api/admin/projects/default/features', payload: { name: 'hers' },
    headers: { cookie, origin: 'http://localhost:4242', 'content-type': 'application/json' },
  });
  await app.database.outbox.flushed();

  const all = (await app.inject({ url: '/api/admin/events', headers: ADMIN })).json();
  t.same(Object.keys(all), ['version', 'events', 'totalEvents']);
  t.equal(all.events.length, all.totalEvents, 'every event while there are fewer than 100');
  t.equal(all.events[0].featureName, 'hers', 'newest first');
  t.notOk('label' in all.events[0] || 'summary' in all.events[0], 'the stored event, without the search\'s presentation');
  const project = (await app.inject({ url: '/api/admin/events?project=default', headers: ADMIN })).json();
  t.ok(project.events.every((e: { project: string }) => e.project === 'default'));

  const flag = (await app.inject({ url: '/api/admin/events/watched', headers: ADMIN })).json();
  t.same(Object.keys(flag), ['version', 'toggleName', 'events', 'totalEvents']);
  t.same(flag.events.map((e: { type: string }) => e.type), ['feature-environment-enabled', 'feature-strategy-add', 'feature-created'], 'turning on adds the default strategy');
  t.same((await app.inject({ url: '/api/admin/events/nope', headers: ADMIN })).json(), { version: 1, toggleName: 'nope', events: [], totalEvents: 0 });

  const creators = (await app.inject({ url: '/api/admin/event-creators', headers: ADMIN })).json<Array<{ id: number; name: string }>>();
  t.same(creators.map((c) => c.id), [...creators.map((c) => c.id)].sort((a, b) => a - b), 'by id');
  t.ok(creators.some((c) => c.id === -42 && c.name === 'Unleash Admin Token'));
  t.ok(creators.some((c) => c.name === 'ada'), 'a person by their name');

  const viewerCookie = await (async () => { await userWithRole(app, 'viv', 3); return await login(app, 'viv', STRONG); })();
  t.equal((await app.inject({ url: '/api/admin/events', headers: { cookie: viewerCookie } })).statusCode, 403, 'the latest events are for admins');
  t.equal((await app.inject({ url: '/api/admin/events/watched', headers: { cookie: viewerCookie } })).statusCode, 200);
});
