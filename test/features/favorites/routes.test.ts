import t from 'tap';
import { asRecorded, callerHeaders, type CallFixture, type Placeholders } from '../../../tools/difftest/record-calls.js';
import { PASSWORD } from '../../../tools/difftest/record-permissions.js';
import { ADMIN, ADMIN_TOKEN, JSON_ADMIN, buildTestApp, committed, eventsAfter, lastEventId, send } from '../../helpers/app.js';
import { fixture } from '../../helpers/samples.js';
import { asPerson, login, ORIGIN, STRONG, userWithRole } from '../../helpers/sessions.js';

const REFERENCE = fixture('favorites/reference.json') as CallFixture;

type App = Awaited<ReturnType<typeof buildTestApp>>;

const flagPath = (name: string, project = 'default') => `/api/admin/projects/${project}/features/${name}/favorites`;
const projectPath = (project: string) => `/api/admin/projects/${project}/favorites`;

async function star(app: App, cookie: string, method: 'POST' | 'DELETE', url: string) {
  return await app.inject({ method, url, headers: asPerson(cookie) });
}

async function searched(app: App, headers: Record<string, string>, query = '') {
  const res = await app.inject({ url: `/api/admin/search/features?${query}`, headers });
  return (res.json().features as Array<{ name: string; favorite: boolean }>).map((f) => [f.name, f.favorite]);
}

t.test('favourites: marks, their events as Unleash records them, and every view that shows them', async (t) => {
  const app = await buildTestApp(t);
  const viewerId = await userWithRole(app, 'viewer', 3);
  const viewer = await login(app, 'viewer', STRONG);
  await userWithRole(app, 'other', 3);
  const other = await login(app, 'other', STRONG);
  for (const name of ['fav1', 'fav2']) t.equal((await send(app, 'POST', '/api/admin/projects/default/features', { name })).statusCode, 201);
  t.equal((await send(app, 'POST', '/api/admin/features/fav2/tags', { type: 'simple', value: 'beta' })).statusCode, 201);
  const before = await lastEventId(app);

  // Measured on the reference: no content type is a 415 on POST and DELETE alike.
  const bare = await app.inject({ method: 'POST', url: flagPath('fav1'), headers: { cookie: viewer, origin: ORIGIN } });
  t.same([bare.statusCode, bare.json().name], [415, 'ContentTypeError']);
  const bareDelete = await app.inject({ method: 'DELETE', url: projectPath('default'), headers: { cookie: viewer, origin: ORIGIN } });
  t.equal(bareDelete.statusCode, 415);

  // A Viewer marks its own; the project of a flag's path is not checked (measured: 200 for project "nope").
  for (const url of [flagPath('fav1'), flagPath('fav1'), flagPath('fav2', 'nope'), projectPath('default')]) {
    const res = await star(app, viewer, 'POST', url);
    t.same([res.statusCode, res.body], [200, ''], `POST ${url}`);
  }
  t.equal((await star(app, viewer, 'DELETE', flagPath('fav2'))).statusCode, 200);
  t.equal((await star(app, viewer, 'DELETE', flagPath('never-there'))).statusCode, 200, 'clearing an unknown name is not checked');

  // Unleash answers 500 for these (a foreign key, a null user id): D10 makes them 4xx.
  const unknownFlag = await star(app, viewer, 'POST', flagPath('nope'));
  t.same([unknownFlag.statusCode, unknownFlag.json().name], [404, 'NotFoundError']);
  const unknownProject = await star(app, viewer, 'POST', projectPath('nope'));
  t.same([unknownProject.statusCode, unknownProject.json().name], [404, 'NotFoundError']);
  const token = await app.inject({ method: 'POST', url: projectPath('default'), headers: JSON_ADMIN });
  t.same([token.statusCode, token.json().name], [403, 'ForbiddenError']);

  const events = (await eventsAfter(app, before)).map((e) => [e.type, e.data, e.featureName, e.project, e.createdBy, e.createdByUserId, e.tags]);
  // A flag's events carry its tags, the mark's and the unmark's alike (measured on the reference).
  const tagged = [{ value: 'beta', type: 'simple' }];
  t.same(events, [
    ['feature-favorited', { feature: 'fav1' }, 'fav1', null, 'viewer', viewerId, []],
    ['feature-favorited', { feature: 'fav1' }, 'fav1', null, 'viewer', viewerId, []],
    ['feature-favorited', { feature: 'fav2' }, 'fav2', null, 'viewer', viewerId, tagged],
    ['project-favorited', { project: 'default' }, null, 'default', 'viewer', viewerId, []],
    ['feature-unfavorited', { feature: 'fav2' }, 'fav2', null, 'viewer', viewerId, tagged],
    ['feature-unfavorited', { feature: 'never-there' }, 'never-there', null, 'viewer', viewerId, []],
  ], 'one event per call, a mark set twice included; nothing for a refused one');

  // The views, for the viewer, for someone else, and for a token.
  t.same(await searched(app, asPerson(viewer)), [['fav1', true], ['fav2', false]]);
  t.same(await searched(app, asPerson(viewer), 'favoritesFirst=true&sortBy=name&sortOrder=desc'), [['fav1', true], ['fav2', false]]);
  t.same(await searched(app, asPerson(viewer), 'favorite=IS:true'), [['fav1', true]]);
  t.same(await searched(app, asPerson(other)), [['fav1', false], ['fav2', false]], 'marks are per person');
  t.same(await searched(app, ADMIN), [['fav1', false], ['fav2', false]]);
  const view = await app.inject({ url: '/api/admin/projects/default/features/fav1', headers: asPerson(viewer) });
  t.same(Object.keys(view.json()).slice(0, 3), ['environments', 'name', 'favorite'], 'after the name (measured)');
  t.equal(view.json().favorite, true);
  t.notOk('favorite' in (await app.inject({ url: '/api/admin/projects/default/features/fav1', headers: ADMIN })).json(), 'absent for a token');
  const projects = async (headers: Record<string, string>) => (await app.inject({ url: '/api/admin/projects', headers })).json().projects[0].favorite;
  t.same([await projects(asPerson(viewer)), await projects(asPerson(other)), await projects(ADMIN)], [true, false, false]);
  const overview = async (cookie: string) => (await app.inject({ url: '/api/admin/projects/default/overview', headers: asPerson(cookie) })).json().favorite;
  t.same([await overview(viewer), await overview(other)], [true, false]);
  const dashboard = await app.inject({ url: '/api/admin/personal-dashboard', headers: asPerson(viewer) });
  t.same(dashboard.json().flags, [{ name: 'fav1', type: 'release', project: 'default' }], 'marked flags join the created ones');

  // A flag deleted and created again under the name is no one's favourite, as Unleash's rows go with the flag.
  t.equal((await send(app, 'DELETE', '/api/admin/projects/default/features/fav1')).statusCode, 202);
  t.same(await searched(app, asPerson(viewer), 'archived=IS:true'), [['fav1', true]], 'archived: still marked');
  t.equal((await send(app, 'DELETE', '/api/admin/archive/fav1')).statusCode, 200);
  t.equal((await send(app, 'POST', '/api/admin/projects/default/features', { name: 'fav1' })).statusCode, 201);
  t.same(await searched(app, asPerson(viewer)), [['fav2', false], ['fav1', false]]);

  // Durable: what the database holds is the marks (not the events).
  const stored = [...(await committed(app, 'favorites')).values()].map((d) => d._id).sort();
  t.same(stored, [`flag:${viewerId}:fav1`, `project:${viewerId}:default`]);
});

t.test('the calls recorded on the reference answer as it did (test/fixtures/favorites, tools/difftest/record-calls.ts)', async (t) => {
  const app = await buildTestApp(t);
  for (const step of REFERENCE.setup ?? []) t.equal((await send(app, step.method, step.path, step.body)).statusCode, 201);
  // The recorder's Viewer: created by an admin with an e-mail and no username, signed in by e-mail.
  const email = 'calls-viewer@example.com';
  t.equal((await send(app, 'POST', '/api/admin/user-admin', { email, name: 'calls viewer', rootRole: 3, password: PASSWORD })).statusCode, 201);
  const cookie = await login(app, email, PASSWORD);
  const known: Placeholders = { admin: ADMIN_TOKEN, client: '<no client token>', frontend: '<no frontend token>', viewer: email };
  for (const call of REFERENCE.calls) {
    const res = await app.inject({
      method: call.method as never, url: call.path,
      headers: { ...callerHeaders(call.as, known, cookie), origin: ORIGIN, ...(call.body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(call.body === undefined ? {} : { payload: JSON.stringify(call.body) }),
    });
    const label = `${call.as} ${call.method} ${call.path}`;
    t.equal(res.statusCode, call.status, `${label}: ${res.body.slice(0, 160)}`);
    if (res.body === '' || call.response === '') {
      t.equal(res.body, call.response, label);
      continue;
    }
    const answer = asRecorded(res.body, known) as Record<string, unknown>;
    const recorded = call.response as Record<string, unknown>;
    if (call.path.endsWith('/overview')) t.equal(answer.favorite, recorded.favorite, label); // the rest: D8
    else if (call.path.endsWith('/personal-dashboard')) t.same(answer.flags, recorded.flags, label); // the admins differ
    else if (call.path.startsWith('/api/admin/search/events')) {
      const shown = (body: Record<string, unknown>) => (body.events as Array<Record<string, unknown>>)
        .map(({ type, createdBy, data, preData, featureName, project, environment, label: l, summary }) => ({
          type, createdBy, data, preData, featureName, project, environment, l, summary,
        }));
      t.same(shown(answer), shown(recorded), label);
    } else if (call.path.includes('/features/fav-')) {
      // The Viewer who marked it is a collaborator; its id and its e-mail's avatar differ per run.
      const named = (body: Record<string, unknown>) => ({
        ...body, collaborators: (body.collaborators as { users: Array<{ name: string }> }).users.map((u) => u.name),
      });
      t.same(named(answer), named(recorded), label);
    } else t.same(answer, recorded, label);
  }
});
