import t from 'tap';
import { ADMIN, buildTestApp, send } from '../../helpers/app.js';
import { healthRating } from '../../../src/features/project-status/health.js';
import type { FlagData } from '../../../src/features/flags/read-model.js';

const FLAGS = '/api/admin/projects/default/features';

t.test('overview and status follow the project\'s flags and events', async (t) => {
  const app = await buildTestApp(t);
  const empty = (await app.inject({ url: '/api/admin/projects/default/overview', headers: ADMIN })).json();
  t.same(empty.onboardingStatus, { status: 'onboarding-started' });
  t.same(empty.featureTypeCounts, []);
  t.equal(empty.health, 100);

  for (const [name, type] of [['first', 'release'], ['second', 'experiment'], ['third', 'release'], ['gone', 'release']]) {
    t.equal((await send(app, 'POST', FLAGS, { name, type })).statusCode, 201);
  }
  await send(app, 'PATCH', `${FLAGS}/second`, [{ op: 'replace', path: '/stale', value: true }]);
  await send(app, 'DELETE', `${FLAGS}/gone`);
  await send(app, 'POST', '/api/admin/api-tokens', { tokenName: 'mine', type: 'client', environment: 'development', projects: ['default'] });
  await send(app, 'POST', '/api/admin/api-tokens', { tokenName: 'all', type: 'client', environment: 'development', projects: ['*'] });
  await app.database.outbox.flushed();

  const overview = await app.inject({ url: '/api/admin/projects/default/overview', headers: ADMIN });
  t.equal(overview.statusCode, 200);
  const body = overview.json();
  t.same(Object.keys(body), [
    'stats', 'name', 'description', 'mode', 'featureLimit', 'featureNaming', 'linkTemplates', 'defaultStickiness', 'health',
    'technicalDebt', 'favorite', 'updatedAt', 'createdAt', 'onboardingStatus', 'environments', 'featureTypeCounts', 'members', 'version',
  ], 'Unleash\'s key order');
  t.match(body.stats, { createdCurrentWindow: 4, createdPastWindow: 0, archivedCurrentWindow: 1 });
  t.ok(body.stats.projectActivityCurrentWindow >= 6, 'the project\'s events of the window');
  t.same(body.featureTypeCounts, [{ type: 'experiment', count: 1 }, { type: 'release', count: 2 }], 'live flags by type, by name');
  t.same(body.onboardingStatus, { status: 'first-flag-created', feature: 'first' });
  t.equal(body.health, 67, 'one of three live flags stale');
  t.equal(body.technicalDebt, 33);
  t.same(body.environments, [{ environment: 'development' }, { environment: 'production' }]);

  const status = (await app.inject({ url: '/api/admin/projects/default/status', headers: ADMIN })).json();
  t.same(status.resources, { members: 0, apiTokens: 1, segments: 0 }, 'tokens naming the project only');
  t.same(status.activityCountByDate.map((d: { date: string }) => d.date), [new Date().toISOString().slice(0, 10)]);
  t.ok(status.activityCountByDate[0].count >= 6);
  t.same(status.health, { current: 67 });
  t.same(status.lifecycleSummary.initial, { averageDays: null, currentFlags: 3 });
  t.same(status.lifecycleSummary.archived, { currentFlags: 1, last30Days: 1 });
  t.same(status.staleFlags, { total: 1 });

  const unknown = await app.inject({ url: '/api/admin/projects/nope/overview', headers: ADMIN });
  t.equal(unknown.statusCode, 404);
  t.equal(unknown.json().message, 'No project found');
  const nothing = (await app.inject({ url: '/api/admin/projects/nope/status', headers: ADMIN })).json();
  t.same(nothing.activityCountByDate, [], 'an unknown project\'s status is empty, as Unleash answers');
});

t.test('health: stale and potentially stale flags (past their type\'s lifetime) lower it, rounded', async (t) => {
  const now = Date.parse('2026-06-01T00:00:00Z');
  const flag = (type: string, ageDays: number, stale = false) => ({ type, stale, createdAt: new Date(now - ageDays * 86_400_000) }) as FlagData;
  const lifetimes = new Map<string, number | null>([['release', 40], ['kill-switch', null], ['operational', 7]]);
  t.equal(healthRating([], lifetimes, now), 100);
  t.equal(healthRating([flag('release', 39), flag('release', 40)], lifetimes, now), 50, 'at 40 days a release flag is potentially stale');
  t.equal(healthRating([flag('kill-switch', 4000), flag('operational', 1)], lifetimes, now), 100, 'permanent types never are');
  t.equal(healthRating([flag('release', 1, true), flag('release', 1), flag('release', 1)], lifetimes, now), 67);
  t.equal(healthRating([flag('release', 100, true), flag('operational', 8)], lifetimes, now), 0, 'stale counts once, not also as potentially stale');
});
