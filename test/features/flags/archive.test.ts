import t from 'tap';
import { ADMIN, buildTestApp, eventsAfter, lastEventId, send } from '../../helpers/app.js';

const BASE = '/api/admin/projects/default/features';

async function archivedAt(app: Awaited<ReturnType<typeof buildTestApp>>): Promise<string> {
  const res = await app.inject({ url: '/api/admin/search/features?archived=IS:true', headers: ADMIN });
  return res.json().features[0].archivedAt as string;
}

t.test('an archived flag: archived again as Unleash 8.2 does, and its view a 404 of its own (both measured)', async (t) => {
  const app = await buildTestApp(t);
  await send(app, 'POST', BASE, { name: 'old' });
  t.equal((await send(app, 'DELETE', `${BASE}/old`)).statusCode, 202);
  const first = await archivedAt(app);
  const before = await lastEventId(app);
  await new Promise((resolve) => setTimeout(resolve, 5));
  const again = await send(app, 'DELETE', `${BASE}/old`);
  t.same([again.statusCode, again.body], [202, '']);
  t.same((await eventsAfter(app, before)).map((e) => [e.type, e.featureName]), [['feature-archived', 'old']]);
  const second = await archivedAt(app);
  t.ok(Date.parse(second) > Date.parse(first), 'archivedAt stamped again');

  const view = await send(app, 'GET', `${BASE}/old`);
  t.same([view.statusCode, view.json().name, view.json().message], [404, 'NotFoundError', 'Could not find feature flag with name old']);
  const unknown = await send(app, 'GET', `${BASE}/never`);
  t.equal(unknown.json().message, 'There\'s no feature named "never" in project "default".');
});
