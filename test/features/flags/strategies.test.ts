import t from 'tap';
import { buildTestApp, committed } from '../../helpers/app.js';
import { unpackFlag, type StoredFlag } from '../../../src/features/flags/store.js';
import { BASE, createFlag, eventsSince, lastEventId, send } from './helpers.js';

const DEV = `${BASE}/peer.demo/environments/development`;
const PROD = `${BASE}/peer.demo/environments/production`;

const ROLLOUT = {
  name: 'flexibleRollout',
  title: 'peer rollout',
  constraints: [{ contextName: 'userId', operator: 'IN', values: ['1', '123'], inverted: false, caseInsensitive: false }],
  parameters: { rollout: '100', stickiness: 'default', groupId: 'peer.demo' },
  variants: [
    { name: 'blue', weight: 500, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: 'b' } },
    { name: 'red', weight: 500, weightType: 'variable', stickiness: 'default' },
  ],
};

t.test('strategies on a flag environment (S4)', async (t) => {
  const app = await buildTestApp(t);
  t.equal((await createFlag(app, { name: 'peer.demo' })).statusCode, 201);
  t.equal((await createFlag(app, { name: 'other.flag' })).statusCode, 201);
  const segment = await send(app, 'POST', '/api/admin/segments', {
    name: 'peer-segment', constraints: [{ contextName: 'region', operator: 'IN', values: ['eu'] }],
  });
  t.equal(segment.statusCode, 201);
  const segmentId = segment.json().id as number;
  let rolloutId = '';

  await t.test('add flexibleRollout: response shape, stored JSONB orders, event', async (t) => {
    const before = await lastEventId(app);
    const res = await send(app, 'POST', `${DEV}/strategies`, ROLLOUT);
    t.equal(res.statusCode, 200);
    const body = res.json();
    rolloutId = body.id;
    t.match(body.id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
    t.same(Object.keys(body), ['id', 'name', 'constraints', 'parameters', 'variants', 'segments', 'title', 'disabled', 'sortOrder']);
    t.same(body.constraints, [{ values: ['1', '123'], inverted: false, operator: 'IN', contextName: 'userId', caseInsensitive: false }]);
    t.same(Object.keys(body.constraints[0]), ['values', 'inverted', 'operator', 'contextName', 'caseInsensitive']);
    t.same(Object.keys(body.parameters), ['groupId', 'rollout', 'stickiness']);
    t.same(Object.keys(body.variants[0]), ['name', 'weight', 'payload', 'stickiness', 'weightType']);
    t.same(body.segments, []);
    t.equal(body.title, 'peer rollout');
    t.equal(body.disabled, false);
    t.equal(body.sortOrder, 0);
    const events = await eventsSince(app, before);
    t.same(events.map((e) => e.type), ['feature-strategy-add']);
    const e = events[0]!;
    t.same(Object.keys(e.data), ['id', 'name', 'title', 'disabled', 'constraints', 'parameters', 'variants', 'sortOrder', 'segments']);
    t.equal(e.featureName, 'peer.demo');
    t.equal(e.environment, 'development');
    t.equal(e.project, 'default');
    t.equal(e.preData, null);
    t.equal(e.groupType, 'transaction');
  });

  await t.test('add default with a segment in production; sortOrder increments', async (t) => {
    const res = await send(app, 'POST', `${PROD}/strategies`, { name: 'default', constraints: [], parameters: {}, segments: [segmentId] });
    t.equal(res.statusCode, 200);
    t.same(res.json(), { id: res.json().id, name: 'default', constraints: [], parameters: {}, variants: [], segments: [segmentId], title: null, disabled: false, sortOrder: 0 });
    const second = await send(app, 'POST', `${PROD}/strategies`, { name: 'default' });
    t.equal(second.json().sortOrder, 1);
    t.equal((await send(app, 'DELETE', `${PROD}/strategies/${second.json().id}`)).statusCode, 200);
  });

  await t.test('flexibleRollout defaults and parameter coercion', async (t) => {
    const res = await send(app, 'POST', `${BASE}/other.flag/environments/development/strategies`, {
      name: 'flexibleRollout', parameters: { stickiness: '' },
    });
    t.equal(res.statusCode, 200);
    t.same(res.json().parameters, { groupId: 'other.flag', rollout: '100', stickiness: 'default' });
    const coerced = await send(app, 'POST', `${BASE}/other.flag/environments/development/strategies`, {
      name: 'remoteAddress', parameters: { IPs: 5 },
    });
    t.same(coerced.json().parameters, { IPs: '5' });
  });

  await t.test('validation errors', async (t) => {
    const unknown = await send(app, 'POST', `${DEV}/strategies`, { name: 'no-such-strategy', parameters: {} });
    t.equal(unknown.statusCode, 400);
    t.equal(unknown.json().name, 'ValidationError');
    t.equal(unknown.json().message,
      'Request validation failed: your request body or params contain invalid data: Could not find strategy type with name no-such-strategy');
    t.same(unknown.json().details, [{ message: 'Could not find strategy type with name no-such-strategy' }]);

    const operator = await send(app, 'POST', `${DEV}/strategies`, { name: 'default', constraints: [{ contextName: 'userId', operator: 'NOPE', values: ['1'] }] });
    t.equal(operator.statusCode, 400);
    t.equal(operator.json().details[0].path, 'operator');

    const single = await send(app, 'POST', `${DEV}/strategies`, { name: 'default', constraints: [{ contextName: 'n', operator: 'NUM_EQ' }] });
    t.equal(single.statusCode, 400);
    t.match(single.json().message, /Single-value constraint operators require a non-empty value\./);

    const regex = await send(app, 'POST', `${DEV}/strategies`, { name: 'default', constraints: [{ contextName: 'n', operator: 'REGEX', value: '(' }] });
    t.equal(regex.statusCode, 400);

    const noValues = await send(app, 'POST', `${DEV}/strategies`, { name: 'default', constraints: [{ contextName: 'n', operator: 'IN' }] });
    t.equal(noValues.statusCode, 400);

    const allFix = await send(app, 'POST', `${DEV}/strategies`, {
      name: 'flexibleRollout', variants: [{ name: 'x', weight: 500, weightType: 'fix', stickiness: 'default' }],
    });
    t.equal(allFix.statusCode, 400);
    t.same(allFix.json().details, [{ message: 'There must be at least one "variable" variant' }]);

    const overweight = await send(app, 'POST', `${DEV}/strategies`, {
      name: 'flexibleRollout', variants: [
        { name: 'x', weight: 1000, weightType: 'fix', stickiness: 'default' },
        { name: 'y', weight: 10, weightType: 'fix', stickiness: 'default' },
        { name: 'z', weight: 10, weightType: 'variable', stickiness: 'default' },
      ],
    });
    t.equal(overweight.statusCode, 400);
    t.same(overweight.json().details, [{ message: 'The traffic distribution total must equal 100%' }]);

    const noSegment = await send(app, 'POST', `${DEV}/strategies`, { name: 'default', segments: [999] });
    t.equal(noSegment.statusCode, 404);
    t.equal(noSegment.json().message, 'No segment exists with ID "999"');

    const unknownEnv = await send(app, 'POST', `${BASE}/peer.demo/environments/nope/strategies`, { name: 'default' });
    t.equal(unknownEnv.statusCode, 404);
    t.equal(unknownEnv.json().message, 'Could not find environment nope for feature: peer.demo');

    const unknownFlag = await send(app, 'POST', `${BASE}/nope/environments/development/strategies`, { name: 'default' });
    t.equal(unknownFlag.statusCode, 404);
  });

  await t.test('project-scoped segment of another project → 400', async (t) => {
    t.equal((await send(app, 'POST', '/api/admin/projects', { id: 'other', name: 'Other' })).statusCode, 201);
    const scoped = await send(app, 'POST', '/api/admin/segments', { name: 'other-seg', project: 'other', constraints: [] });
    t.equal(scoped.statusCode, 201);
    const res = await send(app, 'POST', `${DEV}/strategies`, { name: 'default', segments: [scoped.json().id] });
    t.equal(res.statusCode, 400);
    t.same(res.json().details, [{ message: `The segments other-seg with id ${scoped.json().id} does not belong to project "default"` }]);
  });

  await t.test('variants normalised: weights spread, sorted by name', async (t) => {
    const res = await send(app, 'POST', `${BASE}/other.flag/environments/production/strategies`, {
      name: 'default', variants: [
        { name: 'c', weight: 1, weightType: 'variable', stickiness: 'default' },
        { name: 'a', weight: 1, weightType: 'variable', stickiness: 'default' },
        { name: 'b', weight: 1, weightType: 'variable', stickiness: 'default' },
        { name: 'f', weight: 100, weightType: 'fix', stickiness: 'default' },
      ],
    });
    t.equal(res.statusCode, 200);
    t.same(res.json().variants.map((v: { name: string; weight: number }) => [v.name, v.weight]), [['a', 300], ['b', 300], ['c', 300], ['f', 100]]);
  });

  await t.test('list and get', async (t) => {
    const list = await send(app, 'GET', `${DEV}/strategies`);
    t.equal(list.statusCode, 200);
    t.equal(list.json().length, 1);
    t.same(Object.keys(list.json()[0]), ['id', 'name', 'constraints', 'parameters', 'variants', 'title', 'disabled', 'sortOrder', 'milestoneId', 'segments']);
    const one = await send(app, 'GET', `${DEV}/strategies/${rolloutId}`);
    t.equal(one.statusCode, 200);
    t.equal(one.json().id, rolloutId);
    const missing = await send(app, 'GET', `${DEV}/strategies/nope`);
    t.equal(missing.statusCode, 404);
    t.equal(missing.json().message, 'Could not find strategy with id nope');
    const feature = (await send(app, 'GET', `${BASE}/peer.demo`)).json();
    t.same(Object.keys(feature.environments[0].strategies[0]),
      ['name', 'constraints', 'variants', 'parameters', 'segments', 'sortOrder', 'id', 'title', 'disabled']);
  });

  await t.test('update: replaces, keeps segments when absent, event with preData, 404/403', async (t) => {
    const prodId = (await send(app, 'GET', `${PROD}/strategies`)).json()[0].id;
    const before = await lastEventId(app);
    const res = await send(app, 'PUT', `${PROD}/strategies/${prodId}`, { name: 'default', title: 'renamed' });
    t.equal(res.statusCode, 200);
    t.same(Object.keys(res.json()), ['id', 'name', 'title', 'disabled', 'constraints', 'parameters', 'variants', 'sortOrder', 'segments']);
    t.same(res.json().segments, [segmentId], 'segments kept');
    t.equal(res.json().title, 'renamed');
    const events = await eventsSince(app, before);
    t.same(events.map((e) => e.type), ['feature-strategy-update']);
    t.equal(events[0]!.preData.title, null);
    t.equal(events[0]!.data.title, 'renamed');
    t.same(Object.keys(events[0]!.data), ['id', 'name', 'title', 'disabled', 'constraints', 'parameters', 'variants', 'sortOrder', 'segments'], 'data as written');
    t.same(Object.keys(events[0]!.preData), ['id', 'name', 'title', 'disabled', 'segments', 'variants', 'sortOrder', 'parameters', 'constraints'], 'preData in jsonb key order (measured)');

    const same = await lastEventId(app);
    t.equal((await send(app, 'PUT', `${PROD}/strategies/${prodId}`, { name: 'default', title: 'renamed' })).statusCode, 200);
    t.same(await eventsSince(app, same), [], 'identical update stores no event');

    const cleared = await send(app, 'PUT', `${PROD}/strategies/${prodId}`, { name: 'default', title: 'renamed', segments: [] });
    t.same(cleared.json().segments, []);

    const missing = await send(app, 'PUT', `${PROD}/strategies/nope`, { name: 'default' });
    t.equal(missing.statusCode, 404);
    t.equal(missing.json().message, 'Could not find strategy with id=nope');

    const foreign = await send(app, 'PUT', `${BASE}/other.flag/environments/production/strategies/${prodId}`, { name: 'default' });
    t.equal(foreign.statusCode, 403);
    t.equal(foreign.json().name, 'InvalidOperationError');
  });

  await t.test('disabling every strategy switches the environment off; deleting the last one too', async (t) => {
    t.equal((await send(app, 'POST', `${DEV}/on`)).statusCode, 200);
    let before = await lastEventId(app);
    const res = await send(app, 'PUT', `${DEV}/strategies/${rolloutId}`, { ...ROLLOUT, disabled: true });
    t.equal(res.statusCode, 200);
    t.same((await eventsSince(app, before)).map((e) => e.type), ['feature-strategy-update', 'feature-environment-disabled']);
    t.equal((await send(app, 'GET', `${BASE}/peer.demo`)).json().environments[0].enabled, false);

    t.equal((await send(app, 'POST', `${PROD}/on`)).statusCode, 200);
    const prodId = (await send(app, 'GET', `${PROD}/strategies`)).json()[0].id;
    before = await lastEventId(app);
    t.equal((await send(app, 'DELETE', `${PROD}/strategies/${prodId}`)).statusCode, 200);
    const events = await eventsSince(app, before);
    t.same(events.map((e) => e.type), ['feature-environment-disabled', 'feature-strategy-remove']);
    t.same(events[1]!.preData.segments, []);
    t.equal(events[1]!.data, null);
    t.equal(events[0]!.groupId, events[1]!.groupId);

    before = await lastEventId(app);
    t.equal((await send(app, 'DELETE', `${PROD}/strategies/nope`)).statusCode, 200);
    t.same(await eventsSince(app, before), []);
  });

  await t.test('limits', async (t) => {
    t.equal((await createFlag(app, { name: 'limits' })).statusCode, 201);
    const url = `${BASE}/limits/environments/development/strategies`;
    const tooManyConstraints = await send(app, 'POST', url, {
      name: 'default', constraints: Array.from({ length: 31 }, () => ({ contextName: 'a', operator: 'IN', values: ['x'] })),
    });
    t.equal(tooManyConstraints.statusCode, 400);
    t.equal(tooManyConstraints.json().name, 'ExceedsLimitError');
    t.equal(tooManyConstraints.json().message, "Failed to create constraints. You can't create more than the established limit of 30.");
    const tooManyValues = await send(app, 'POST', url, {
      name: 'default', constraints: [{ contextName: 'userId', operator: 'IN', values: Array.from({ length: 251 }, (_, i) => `v${i}`) }],
    });
    t.equal(tooManyValues.statusCode, 400);
    t.equal(tooManyValues.json().message, "Failed to create constraint values for userId. You can't create more than the established limit of 250.");
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) ids.push((await send(app, 'POST', '/api/admin/segments', { name: `s${i}`, constraints: [] })).json().id);
    const tooManySegments = await send(app, 'POST', url, { name: 'default', segments: ids });
    t.equal(tooManySegments.statusCode, 400);
    t.same(tooManySegments.json().details, [{ message: 'Strategies may not have more than 5 segments' }]);
    for (let i = 0; i < 30; i++) t.equal((await send(app, 'POST', url, { name: 'default' })).statusCode, 200);
    const thirtyFirst = await send(app, 'POST', url, { name: 'default' });
    t.equal(thirtyFirst.statusCode, 400);
    t.equal(thirtyFirst.json().message, "Failed to create strategy. You can't create more than the established limit of 30.");
  });

  await t.test('custom strategy types can be used once registered', async (t) => {
    const created = await send(app, 'POST', '/api/admin/strategies', { name: 'myCustom', description: 'mine', parameters: [{ name: 'p', type: 'string' }] });
    t.equal(created.statusCode, 201);
    const res = await send(app, 'POST', `${BASE}/other.flag/environments/development/strategies`, { name: 'myCustom', parameters: { p: 'x' } });
    t.equal(res.statusCode, 200);
  });

  await t.test('an archived flag takes strategies, as Unleash 8.2 does (only turning it on or off is refused)', async (t) => {
    t.equal((await createFlag(app, { name: 'gone' })).statusCode, 201);
    t.equal((await send(app, 'DELETE', `${BASE}/gone`)).statusCode, 202);
    const res = await send(app, 'POST', `${BASE}/gone/environments/development/strategies`, { name: 'default' });
    t.equal(res.statusCode, 200);
    const on = await send(app, 'POST', `${BASE}/gone/environments/development/on`);
    t.equal(on.statusCode, 400);
    t.equal(on.json().name, 'ArchivedFeatureError');
    t.equal(on.json().message, 'Cannot perform this operation on archived features');
  });

  await t.test('stored document: one doc per flag, engine config shapes', async (t) => {
    const stored = (await committed(app, 'flags')).get('peer.demo') as StoredFlag | undefined;
    t.ok(stored);
    t.type(stored!.body, 'string', 'stored packed (src/features/flags/store.ts)');
    t.ok(stored!.strategyIds.includes(rolloutId), 'strategy ids beside the body');
    const doc = unpackFlag(stored!);
    t.same(Object.keys(doc.environments).sort(), ['development', 'production']);
    t.equal(doc.environments.development!.strategies[0]!.id, rolloutId);
    t.type(doc.createdAt, Date, 'dates come back as dates');
  });
});

t.test('concurrent strategy adds on one flag: all kept, distinct sortOrders', async (t) => {
  const app = await buildTestApp(t);
  await createFlag(app, { name: 'busy' });
  const url = `${BASE}/busy/environments/development/strategies`;
  const results = await Promise.all(Array.from({ length: 10 }, (_, i) => send(app, 'POST', url, { name: 'default', title: `t${i}`, disabled: null })));
  t.same(results.map((r) => r.statusCode), Array(10).fill(200));
  t.same(results.map((r) => r.json().disabled), Array(10).fill(false));
  const list = (await send(app, 'GET', url)).json();
  t.equal(list.length, 10);
  t.same(list.map((s: { sortOrder: number }) => s.sortOrder), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  const events = (await eventsSince(app)).filter((e) => e.type === 'feature-strategy-add');
  t.equal(events.length, 10);
  const nullTitle = await send(app, 'POST', url, { name: 'default', title: null });
  t.equal(nullTitle.json().title, null);
});
