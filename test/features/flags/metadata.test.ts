/** A flag's own fields: PUT, PATCH and the project's bulk stale route, with the events Unleash 8.2 records (measured). */
import t from 'tap';
import { buildTestApp, eventsAfter, lastEventId, send } from '../../helpers/app.js';

const FLAG = '/api/admin/projects/default/features/meta';

t.test('PUT replaces, PATCH patches, bulk stale marks; each with its events', async (t) => {
  const app = await buildTestApp(t);
  await send(app, 'POST', '/api/admin/projects/default/features', { name: 'meta', description: 'd0' });
  let after = await lastEventId(app);

  const patched = await send(app, 'PATCH', FLAG, [
    { op: 'replace', path: '/description', value: 'd1' }, { op: 'replace', path: '/type', value: 'experiment' },
    { op: 'replace', path: '/stale', value: true }, { op: 'replace', path: '/impressionData', value: true },
    { op: 'replace', path: '/name', value: 'ignored' },
  ]);
  t.equal(patched.statusCode, 200);
  t.same(Object.keys(patched.json()), ['name', 'description', 'type', 'project', 'stale', 'createdAt', 'impressionData', 'archived']);
  t.match(patched.json(), { name: 'meta', description: 'd1', type: 'experiment', stale: true, impressionData: true });
  const events = await eventsAfter(app, after);
  t.same(events.map((e) => e.type), ['feature-metadata-updated', 'feature-stale-on']);
  t.same(Object.keys(events[0]!.preData as object), ['name', 'type', 'stale', 'project', 'archived', 'createdAt', 'description', 'impressionData'], 'preData in the row\'s order');
  t.match(events[0]!.preData, { description: 'd0', type: 'release', stale: false });
  t.same(events[1]!.data, null);

  after = await lastEventId(app);
  const put = await send(app, 'PUT', FLAG, {});
  t.equal(put.statusCode, 200);
  t.match(put.json(), { description: null, type: 'release', stale: false, impressionData: false }, 'absent fields take their defaults');
  t.same((await eventsAfter(app, after)).map((e) => e.type), ['feature-metadata-updated'], 'no stale event from PUT');

  after = await lastEventId(app);
  t.equal((await send(app, 'POST', '/api/admin/projects/default/stale', { features: ['meta', 'nope'], stale: true })).statusCode, 202);
  t.equal((await send(app, 'POST', '/api/admin/projects/default/stale', { features: ['meta'], stale: true })).statusCode, 202);
  t.same((await eventsAfter(app, after)).map((e) => [e.type, e.featureName]), [['feature-stale-on', 'meta']], 'only a change is recorded; unknown names skipped');

  after = await lastEventId(app);
  t.equal((await send(app, 'PUT', FLAG, { stale: true })).statusCode, 200);
  t.same(await eventsAfter(app, after), [], 'a PUT that changes nothing records nothing');
  const emptied = await send(app, 'PUT', FLAG, { description: '', stale: true });
  t.equal(emptied.json().description, null, 'an empty description is stored as null');

  const refused: Array<[string, unknown, number, RegExp]> = [
    ['PUT', { type: 'nope' }, 400, /allowed values/],
    ['PATCH', [{ op: 'replace', path: '/type', value: 'nope' }], 400, /type must be one of/],
    ['PATCH', { op: 'x' }, 400, /must be array/],
    ['PATCH', [{ op: 'replace', path: '/missing/deep', value: 1 }], 400, /Could not apply provided patch/],
  ];
  after = await lastEventId(app);
  for (const [method, payload, status, message] of refused) {
    const res = await send(app, method, FLAG, payload);
    t.equal(res.statusCode, status, JSON.stringify(payload));
    t.match(res.body, message);
  }
  // Lenient, as Unleash (measured): an absent key removed or replaced changes nothing.
  const before = (await send(app, 'GET', FLAG)).json();
  for (const patch of [[{ op: 'remove', path: '/nothing' }], [{ op: 'replace', path: '/nothing', value: 1 }]]) {
    const res = await send(app, 'PATCH', FLAG, patch);
    t.equal(res.statusCode, 200, JSON.stringify(patch));
  }
  t.same(await eventsAfter(app, after), [], 'nothing recorded for them');
  t.match((await send(app, 'GET', FLAG)).json(), { description: before.description, type: before.type, stale: before.stale });
  const unknown = await send(app, 'PATCH', '/api/admin/projects/default/features/nope', []);
  t.equal(unknown.statusCode, 404);
  t.equal(unknown.json().message, 'No feature flag found');
  const unknownPut = await send(app, 'PUT', '/api/admin/projects/default/features/nope', { description: 'x' });
  t.equal(unknownPut.statusCode, 404);
  t.equal(unknownPut.json().message, 'There\'s no feature named "nope" in project "default".', 'PUT names the project (measured)');
  t.same(await eventsAfter(app, after), [], 'nothing recorded for refused changes');
});

t.test('PUT refuses another name; an archived flag\'s PATCH answers with its archivedAt (measured)', async (t) => {
  const app = await buildTestApp(t);
  await send(app, 'POST', '/api/admin/projects/default/features', { name: 'meta', type: 'permission' });
  const after = await lastEventId(app);
  const renamed = await send(app, 'PUT', FLAG, { name: 'other-name' });
  t.equal(renamed.statusCode, 400);
  t.equal(renamed.json().message, 'Request validation failed: your request body or params contain invalid data: Cannot change name of feature flag');
  t.equal((await send(app, 'GET', FLAG)).json().type, 'permission', 'nothing replaced');
  t.same(await eventsAfter(app, after), []);
  t.equal((await send(app, 'PUT', FLAG, { name: 'meta', type: 'permission', description: 'same name' })).statusCode, 200, 'its own name is fine');

  t.equal((await send(app, 'DELETE', FLAG)).statusCode, 202);
  const before = await lastEventId(app);
  const patched = await send(app, 'PATCH', FLAG, [{ op: 'replace', path: '/description', value: 'p' }]);
  t.equal(patched.statusCode, 200);
  t.same(Object.keys(patched.json()), ['name', 'description', 'type', 'project', 'stale', 'createdAt', 'impressionData', 'archivedAt', 'archived']);
  const [event] = await eventsAfter(app, before);
  t.same(Object.keys(event!.data as object), ['name', 'description', 'type', 'project', 'stale', 'createdAt', 'impressionData', 'archivedAt', 'archived']);
  t.same(Object.keys(event!.preData as object), ['name', 'type', 'stale', 'project', 'archived', 'createdAt', 'archivedAt', 'description', 'impressionData']);
});

t.test('POST /api/admin/features/validate: a new flag\'s name', async (t) => {
  const app = await buildTestApp(t);
  await send(app, 'POST', '/api/admin/projects/default/features', { name: 'taken' });
  await send(app, 'POST', '/api/admin/projects/default/features', { name: 'archived' });
  await send(app, 'DELETE', '/api/admin/projects/default/features/archived');
  const cases: Array<[unknown, number, string]> = [
    [{ name: 'brand-new', projectId: 'default' }, 200, ''],
    [{ name: 'brand-new', projectId: 'nope' }, 200, ''],
    [{ name: 'taken' }, 409, 'A flag with that name already exists'],
    [{ name: 'archived' }, 409, 'A flag with that name already exists'],
    [{ name: 'bad name' }, 400, '\\"name\\" must be URL friendly. You provided \\"bad name\\".'],
    [{ name: '' }, 400, '\\"name\\" is not allowed to be empty.'],
    [{}, 400, '/body/name'],
  ];
  for (const [payload, status, text] of cases) {
    const res = await send(app, 'POST', '/api/admin/features/validate', payload);
    t.equal(res.statusCode, status, JSON.stringify(payload));
    if (text) t.ok(res.body.includes(text), res.body);
    else t.equal(res.body, '');
  }
});

t.test('PUT on an archived flag makes it live again, recording only the metadata update (measured on Unleash 8.2)', async (t) => {
  const app = await buildTestApp(t);
  await send(app, 'POST', '/api/admin/projects/default/features', { name: 'meta', type: 'permission' });
  t.equal((await send(app, 'DELETE', FLAG)).statusCode, 202);
  const before = await lastEventId(app);
  const put = await send(app, 'PUT', FLAG, {});
  t.equal(put.statusCode, 200);
  t.same(Object.keys(put.json()), ['name', 'description', 'type', 'project', 'stale', 'createdAt', 'impressionData', 'archived']);
  t.match(put.json(), { type: 'release', archived: false });
  const events = await eventsAfter(app, before);
  t.same(events.map((e) => e.type), ['feature-metadata-updated'], 'even with the same fields; no revive');
  t.match(events[0]!.preData, { archived: true, archivedAt: String });
  t.equal((await send(app, 'GET', FLAG)).statusCode, 200, 'live again');
});
