import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, ADMIN, JSON_ADMIN } from '../../helpers/app.js';
import { fixture } from '../../helpers/samples.js';
import { toSegmentConfig } from '../../../src/features/segments/read-model.js';
import type { FlagData } from '../../../src/features/flags/read-model.js';
import { packFlag } from '../../../src/features/flags/store.js';

const sample = (file: string) => fixture(`segments/${file}`);
const SAMPLE_19 = sample('19-segment-create.json');
const SAMPLE_20 = sample('20-segment-create-missing-constraints.json');

const SCHEMA_MESSAGE =
  'Request validation failed: your request body or params contain invalid data. Refer to the `details` list for more information.';

function post(app: FastifyInstance, payload: unknown) {
  return app.inject({ method: 'POST', url: '/api/admin/segments', headers: JSON_ADMIN, payload: payload as object });
}

async function events(app: FastifyInstance, type?: string) {
  await app.database.outbox.flushed(); // events are appended after the response
  const all = await app.database.db.collection('events').find(type ? { type } : {}).sort({ id: 1 }).toArray();
  return all;
}

/** A flag document as the flags feature stores it, with one strategy using `segments`. */
async function insertFlag(app: FastifyInstance, name: string, segments: number[], options: { project?: string; archived?: boolean; env?: string } = {}) {
  const env = options.env ?? 'development';
  // Committed as another instance would, without the flag service's checks (src/db/outbox/).
  const { outbox } = app.database;
  await outbox.insert(outbox.collection('flags'), packFlag({
    _id: name, name, project: options.project ?? 'default', archived: options.archived ?? false,
    environments: {
      [env]: { enabled: true, variants: [], strategies: [{ id: `${name}-s1`, name: 'default', parameters: {}, constraints: [], segments }] },
    },
  } as unknown as FlagData), []);
}

t.test('segments', async (t) => {
  const app = await buildTestApp(t);

  await t.test('create: 201, Location, sequential ids from 1, body as sample 19', async (t) => {
    const res = await post(app, SAMPLE_19.request.body);
    t.equal(res.statusCode, 201);
    t.equal(res.headers.location, SAMPLE_19.response.location);
    const body = res.json();
    const expected = SAMPLE_19.response.body;
    t.same(Object.keys(body), Object.keys(expected), 'same keys in the same order (project omitted when null)');
    t.same({ ...body, createdAt: '', createdBy: '' }, { ...expected, createdAt: '', createdBy: '' });
    t.equal(body.createdBy, 'admin');
    t.same(Object.keys(body.constraints[0]), Object.keys(expected.constraints[0]), 'constraint keys in stored (JSONB) order');
    t.ok(Math.abs(Date.parse(body.createdAt) - Date.now()) < 60_000);

    const second = await post(app, { name: 'second', constraints: [] });
    t.equal(second.statusCode, 201);
    t.equal(second.json().id, 2);
    t.equal(second.headers.location, 'segments/2');
    t.equal(second.json().description, null, 'description null when not given');
  });

  await t.test('missing constraints → 400 as sample 20', async (t) => {
    const res = await post(app, SAMPLE_20.request.body);
    t.equal(res.statusCode, 400);
    const body = res.json();
    t.equal(body.name, 'ValidationError');
    t.equal(body.message, SAMPLE_20.response.body.message);
    t.same(body.details, SAMPLE_20.response.body.details);
    t.match(body.id, /^[0-9a-f-]{36}$/);
  });

  await t.test('name rules: missing, empty, duplicate (409)', async (t) => {
    const missing = await post(app, { constraints: [] });
    t.equal(missing.statusCode, 400);
    t.same(missing.json().details, [{ path: '/body/name', message: 'The `/body/name` property is required. It was not present on the data you sent.' }]);
    const empty = await post(app, { name: '', constraints: [] });
    t.equal(empty.statusCode, 400);
    t.equal(empty.json().message, SCHEMA_MESSAGE);
    t.same(empty.json().details, [{ message: '"name" is not allowed to be empty.' }]);
    const dup = await post(app, { name: 'peer-segment', constraints: [] });
    t.equal(dup.statusCode, 409);
    t.equal(dup.json().name, 'NameExistsError');
    t.equal(dup.json().message, 'Segment name already exists');
    const numeric = await post(app, { name: 123, constraints: [] });
    t.equal(numeric.statusCode, 201, 'a number name is coerced to a string');
    t.equal(numeric.json().name, '123');
  });

  await t.test('constraints are validated and normalised as for strategies', async (t) => {
    const res = await post(app, {
      name: 'normalised',
      constraints: [
        { contextName: 'appName', operator: 'IN', values: ['a'] },
        { contextName: 'n', operator: 'NUM_GT', value: '5' },
        { caseInsensitive: true, contextName: 'email', inverted: true, operator: 'STR_ENDS_WITH', values: ['@x.io'] },
      ],
    });
    t.equal(res.statusCode, 201);
    t.same(res.json().constraints, [
      { values: ['a'], operator: 'IN', contextName: 'appName' },
      { value: '5', values: [], operator: 'NUM_GT', contextName: 'n' },
      { values: ['@x.io'], inverted: true, operator: 'STR_ENDS_WITH', contextName: 'email', caseInsensitive: true },
    ]);
    t.same(Object.keys(res.json().constraints[2]), ['values', 'inverted', 'operator', 'contextName', 'caseInsensitive']);

    const badOperator = await post(app, { name: 'x1', constraints: [{ contextName: 'a', operator: 'NOPE', values: ['a'] }] });
    t.equal(badOperator.statusCode, 400);
    t.equal(badOperator.json().details[0].path, 'operator');
    t.match(badOperator.json().details[0].message, /^The `operator` property must be equal to one of the allowed values: "NOT_IN", "IN",/);

    const extraKey = await post(app, { name: 'x1', constraints: [{ contextName: 'a', operator: 'IN', values: ['a'], other: 1 }] });
    t.equal(extraKey.statusCode, 400);
    t.equal(extraKey.json().details[0].path, '/body/constraints/0/other');

    const singleValue = await post(app, { name: 'x1', constraints: [{ contextName: 'a', operator: 'NUM_EQ' }] });
    t.equal(singleValue.statusCode, 400);
    t.same(singleValue.json().details, [{ message: 'Single-value constraint operators require a non-empty value.' }]);

    const notANumber = await post(app, { name: 'x1', constraints: [{ contextName: 'a', operator: 'NUM_EQ', value: 'ten' }] });
    t.same(notANumber.json().details, [{ message: '"value" must be a number. You provided "ten".' }]);

    const emptyValue = await post(app, { name: 'x1', constraints: [{ contextName: 'a', operator: 'IN', values: ['ok', ''] }] });
    t.same(emptyValue.json().details, [{ message: '"constraints[0].values[1]" is not allowed to be empty.' }]);

    const semver = await post(app, { name: 'x1', constraints: [{ contextName: 'v', operator: 'SEMVER_GT', value: 'v1.0.0' }] });
    t.equal(semver.statusCode, 400);
    t.equal(semver.json().details[0].message, 'the provided value is not a valid semver format. The value provided was: v1.0.0');

    const values = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);
    const tooMany = await post(app, {
      name: 'x1',
      constraints: [
        { contextName: 'a', operator: 'IN', values: values(600) },
        { contextName: 'b', operator: 'IN', values: values(401) },
      ],
    });
    t.equal(tooMany.statusCode, 400);
    t.same(tooMany.json().details, [{ message: 'Segments may not have more than 1000 values' }]);
    const limit = await post(app, {
      name: 'exactly-1000',
      constraints: [
        { contextName: 'a', operator: 'IN', values: values(600) },
        { contextName: 'b', operator: 'IN', values: values(400) },
      ],
    });
    t.equal(limit.statusCode, 201, '1000 values are allowed');
    const list = await app.inject({ method: 'GET', url: '/api/admin/segments', headers: ADMIN });
    t.notOk(list.json().segments.some((s: { name: string }) => s.name === 'x1'), 'no failed segment was stored');
  });

  await t.test('project-scoped segments', async (t) => {
    const res = await post(app, { name: 'scoped', description: 'd', project: 'default', constraints: [] });
    t.equal(res.statusCode, 201);
    t.same(Object.keys(res.json()), ['id', 'name', 'description', 'project', 'constraints', 'createdBy', 'createdAt']);
    t.equal(res.json().project, 'default');
    const unknown = await post(app, { name: 'scoped-2', project: 'nope', constraints: [] });
    t.equal(unknown.statusCode, 404);
    const empty = await post(app, { name: 'scoped-3', project: '', constraints: [] });
    t.equal(empty.statusCode, 400);
  });

  await t.test('get one, list, unknown ids', async (t) => {
    const one = await app.inject({ method: 'GET', url: '/api/admin/segments/1', headers: ADMIN });
    t.equal(one.statusCode, 200);
    t.equal(one.json().name, 'peer-segment');
    t.same(Object.keys(one.json()), ['id', 'name', 'description', 'constraints', 'createdBy', 'createdAt']);
    const missing = await app.inject({ method: 'GET', url: '/api/admin/segments/999', headers: ADMIN });
    t.equal(missing.statusCode, 404);
    t.equal(missing.json().name, 'NotFoundError');
    t.equal(missing.json().message, 'No segment exists with ID "999"');
    const bad = await app.inject({ method: 'GET', url: '/api/admin/segments/abc', headers: ADMIN });
    t.equal(bad.statusCode, 400);
    t.equal(bad.json().details[0].path, '/params/id');

    const list = await app.inject({ method: 'GET', url: '/api/admin/segments', headers: ADMIN });
    t.equal(list.statusCode, 200);
    const names = list.json().segments.map((s: { name: string }) => s.name);
    t.same(names, [...names].sort(), 'ordered by name');
    const first = list.json().segments.find((s: { id: number }) => s.id === 1);
    t.same(Object.keys(first), ['id', 'name', 'description', 'constraints', 'createdBy', 'createdAt', 'usedInProjects', 'usedInFeatures']);
    t.equal(first.usedInFeatures, 0);

    const noAuth = await app.inject({ method: 'GET', url: '/api/admin/segments' });
    t.equal(noAuth.statusCode, 401);
  });

  await t.test('update: 204, events with data and preData, no event when nothing changes', async (t) => {
    const before = (await events(app)).length;
    const res = await app.inject({
      method: 'PUT', url: '/api/admin/segments/2', headers: JSON_ADMIN,
      payload: { name: 'second-renamed', description: 'now described', constraints: [{ contextName: 'userId', operator: 'IN', values: ['7'] }] },
    });
    t.equal(res.statusCode, 204);
    t.equal(res.body, '');
    const got = (await app.inject({ method: 'GET', url: '/api/admin/segments/2', headers: ADMIN })).json();
    t.equal(got.name, 'second-renamed');
    t.same(got.constraints, [{ values: ['7'], operator: 'IN', contextName: 'userId' }]);
    const updated = (await events(app, 'segment-updated')).at(-1)!;
    t.equal(updated.data.name, 'second-renamed');
    t.equal(updated.preData.name, 'second');
    t.same(updated.preData.constraints, []);
    t.equal(updated.data.createdAt, updated.preData.createdAt, 'creation time kept');
    t.equal(updated.project, null);
    t.notOk('groupId' in updated, 'segments are not transactional');
    t.equal((await events(app)).length, before + 1);

    const again = await app.inject({
      method: 'PUT', url: '/api/admin/segments/2', headers: JSON_ADMIN,
      payload: { name: 'second-renamed', constraints: [{ contextName: 'userId', operator: 'IN', values: ['7'] }] },
    });
    t.equal(again.statusCode, 204);
    t.equal((await events(app)).length, before + 1, 'identical update stores no event (description kept when absent)');

    const dup = await app.inject({ method: 'PUT', url: '/api/admin/segments/2', headers: JSON_ADMIN, payload: { name: 'peer-segment', constraints: [] } });
    t.equal(dup.statusCode, 409);
    t.equal(dup.json().message, 'Segment name already exists');
    const missing = await app.inject({ method: 'PUT', url: '/api/admin/segments/999', headers: JSON_ADMIN, payload: { name: 'zzz', constraints: [] } });
    t.equal(missing.statusCode, 404);
    const invalid = await app.inject({ method: 'PUT', url: '/api/admin/segments/2', headers: JSON_ADMIN, payload: { name: 'zzz' } });
    t.equal(invalid.statusCode, 400);
    const wrongType = await app.inject({ method: 'PUT', url: '/api/admin/segments/2', headers: { ...ADMIN, 'content-type': 'text/plain' }, payload: 'x' });
    t.equal(wrongType.statusCode, 415);
  });

  await t.test('delete: 409 with an empty body while a strategy uses it, then 204', async (t) => {
    await insertFlag(app, 'uses-segment-2', [2], { env: 'production' });
    const list = (await app.inject({ method: 'GET', url: '/api/admin/segments', headers: ADMIN })).json();
    const two = list.segments.find((s: { id: number }) => s.id === 2);
    t.equal(two.usedInFeatures, 1);
    t.equal(two.usedInProjects, 1);

    const blocked = await app.inject({ method: 'DELETE', url: '/api/admin/segments/2', headers: ADMIN });
    t.equal(blocked.statusCode, 409);
    t.equal(blocked.body, '');
    t.ok(await app.stores.segments.get(2), 'still there');

    const scoped = (await app.inject({ method: 'GET', url: '/api/admin/segments', headers: ADMIN })).json().segments.find((s: { name: string }) => s.name === 'scoped');
    await insertFlag(app, 'archived-user', [scoped.id], { archived: true, project: 'default' });
    const blockedByArchived = await app.inject({ method: 'DELETE', url: `/api/admin/segments/${scoped.id}`, headers: ADMIN });
    t.equal(blockedByArchived.statusCode, 409, 'an archived flag can be revived, so it still counts');
    const listed = (await app.inject({ method: 'GET', url: '/api/admin/segments', headers: ADMIN })).json().segments.find((s: { id: number }) => s.id === scoped.id);
    t.equal(listed.usedInFeatures, 0, 'usage counts only live flags');

    const { outbox } = app.database;
    await outbox.remove(outbox.collection('flags'), outbox.state.mirrorOf('flags').get('uses-segment-2')!, []);
    const del = await app.inject({ method: 'DELETE', url: '/api/admin/segments/2', headers: ADMIN });
    t.equal(del.statusCode, 204);
    t.equal(del.body, '');
    t.equal((await app.inject({ method: 'GET', url: '/api/admin/segments/2', headers: ADMIN })).statusCode, 404);
    const deleted = (await events(app, 'segment-deleted')).at(-1)!;
    t.equal(deleted.data, null);
    t.equal(deleted.preData.id, 2);
    t.equal(deleted.preData.name, 'second-renamed');

    const unknown = await app.inject({ method: 'DELETE', url: '/api/admin/segments/2', headers: ADMIN });
    t.equal(unknown.statusCode, 404);
    t.equal(unknown.json().message, 'No segment exists with ID "2"');
  });

  await t.test('a changed project must match the strategies that use the segment', async (t) => {
    const { outbox } = app.database;
    await outbox.insert(outbox.collection('projects'), { _id: 'other', name: 'Other' }, []);
    const seg = (await post(app, { name: 'moving', constraints: [] })).json();
    await insertFlag(app, 'in-default', [seg.id]);
    const res = await app.inject({
      method: 'PUT', url: `/api/admin/segments/${seg.id}`, headers: JSON_ADMIN, payload: { name: 'moving', project: 'other', constraints: [] },
    });
    t.equal(res.statusCode, 400);
    t.equal(res.json().details[0].message, 'Invalid project. Segment is being used by strategies in other projects: default');
    const ok = await app.inject({
      method: 'PUT', url: `/api/admin/segments/${seg.id}`, headers: JSON_ADMIN, payload: { name: 'moving', project: 'default', constraints: [] },
    });
    t.equal(ok.statusCode, 204);
  });

  await t.test('ids are never reused and stay sequential under concurrent creation', async (t) => {
    const before = (await app.stores.segments.list()).map((s) => s.id);
    const max = Math.max(...before);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => post(app, { name: `parallel-${i}`, constraints: [] })));
    t.same(results.map((r) => r.statusCode), Array(8).fill(201));
    const ids = results.map((r) => r.json().id).sort((a, b) => a - b);
    t.same(ids, Array.from({ length: 8 }, (_, i) => max + 1 + i));
    t.notOk(ids.includes(2), 'the deleted id 2 is not handed out again');
    const dupes = await Promise.all(Array.from({ length: 4 }, () => post(app, { name: 'same-name', constraints: [] })));
    t.same(dupes.map((r) => r.statusCode).sort(), [201, 409, 409, 409]);
  });

  await t.test('events: segment-created shape as in Unleash (sample 65, event 11)', async (t) => {
    const created = (await events(app, 'segment-created'))[0]!;
    t.equal(created.createdBy, 'admin');
    t.equal(created.createdByUserId, -42);
    t.equal(created.featureName, null);
    t.equal(created.project, null);
    t.equal(created.environment, null);
    t.same(created.tags, []);
    t.equal(created.preData, null);
    t.same(Object.keys(created.data), ['id', 'name', 'description', 'constraints', 'createdBy', 'createdAt']);
    t.equal(created.data.id, 1);
    const scoped = (await events(app, 'segment-created')).find((e) => e.data.name === 'scoped')!;
    t.equal(scoped.project, 'default');
  });

  await t.test('store API for the flags and playground features', async (t) => {
    const segment = await app.stores.segments.get(1);
    t.ok(segment);
    t.same(Object.keys(segment!), ['id', 'name', 'description', 'project', 'constraints', 'createdBy', 'createdAt']);
    t.ok(segment!.createdAt instanceof Date);
    t.equal(await app.stores.segments.get(424242), null);
    t.same(toSegmentConfig(segment!), { id: 1, name: 'peer-segment', constraints: segment!.constraints });
    t.ok((await app.stores.segments.list()).length > 5);
  });
});
