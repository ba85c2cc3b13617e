import t from 'tap';
import { ADMIN, buildTestApp, send } from '../../helpers/app.js';
import { login, userWithRole, STRONG } from '../../helpers/sessions.js';
import { gravatarUrl } from '../../../src/features/shared.js';

t.test('the personal dashboard and one project on it', async (t) => {
  const app = await buildTestApp(t);
  const id = await userWithRole(app, 'ada', 1);
  const cookie = await login(app, 'ada', STRONG);
  await app.inject({ method: 'POST', url: '/api/admin/projects/default/features', headers: { cookie, origin: 'http://localhost:4242', 'content-type': 'application/json' }, payload: { name: 'mine' } });
  await send(app, 'POST', '/api/admin/projects/default/features', { name: 'theirs' });
  await app.database.outbox.flushed();

  const dashboard = await app.inject({ url: '/api/admin/personal-dashboard', headers: { cookie } });
  t.equal(dashboard.statusCode, 200);
  t.same(dashboard.json(), {
    projects: [{ id: 'default', name: 'Default', health: 100, technicalDebt: 0, memberCount: 0, featureCount: 2 }],
    flags: [{ name: 'mine', type: 'release', project: 'default' }],
    projectOwners: [],
    admins: [{ id, username: 'ada', imageUrl: gravatarUrl('ada@example.com') }],
  });
  const byToken = await app.inject({ url: '/api/admin/personal-dashboard', headers: ADMIN });
  t.equal(byToken.statusCode, 400, 'a token is nobody\'s');
  t.match(byToken.json().message, /User id is missing/);

  const project = (await app.inject({ url: '/api/admin/personal-dashboard/default', headers: { cookie } })).json();
  t.same(project.latestEvents.map((e: { createdBy: string }) => e.createdBy), ['admin', 'ada'], 'newest first');
  t.equal(project.latestEvents[1].createdByImageUrl, gravatarUrl('ada'));
  t.same(project.onboardingStatus, { status: 'first-flag-created', feature: 'mine' });
  t.same(project.owners, [{ ownerType: 'system' }]);
  t.same(project.insights, {
    avgHealthCurrentWindow: null, avgHealthPastWindow: null, totalFlags: 2, potentiallyStaleFlags: 0, staleFlags: 0, activeFlags: 2,
    technicalDebt: 0, health: 100,
  });
  const unknown = await app.inject({ url: '/api/admin/personal-dashboard/nope', headers: { cookie } });
  t.equal(unknown.statusCode, 404);
  t.equal(unknown.json().message, 'No project with id "nope" exists.');
});
