import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { BASE, createFlag, eventsSince, lastEventId, send } from './helpers.js';

const DEV = `${BASE}/peer.demo/environments/development`;

t.test('enable / disable (S5)', async (t) => {
  const app = await buildTestApp(t);
  await createFlag(app, { name: 'peer.demo' });

  await t.test('on without strategies adds the default flexibleRollout first', async (t) => {
    const before = await lastEventId(app);
    const res = await send(app, 'POST', `${DEV}/on`);
    t.equal(res.statusCode, 200);
    t.equal(res.body, '');
    const events = await eventsSince(app, before);
    t.same(events.map((e) => e.type), ['feature-strategy-add', 'feature-environment-enabled']);
    t.same(events[0]!.data.parameters, { groupId: 'peer.demo', rollout: '100', stickiness: 'default' });
    t.same(events[0]!.data.constraints, []);
    t.equal(events[0]!.groupId, events[1]!.groupId);
    t.equal(events[1]!.data, null);
    const flag = (await send(app, 'GET', `${BASE}/peer.demo`)).json();
    t.equal(flag.environments[0].enabled, true);
    t.equal(flag.environments[0].strategies.length, 1);
    t.equal(flag.lifecycle.stage, 'initial', 'turning on changes no stage (SDK metrics do: lifecycle.test.ts)');
  });

  await t.test('events only on change', async (t) => {
    const before = await lastEventId(app);
    t.equal((await send(app, 'POST', `${DEV}/on`)).statusCode, 200);
    t.same(await eventsSince(app, before), []);
    t.equal((await send(app, 'POST', `${DEV}/off`)).statusCode, 200);
    t.equal((await send(app, 'POST', `${DEV}/off`)).statusCode, 200);
    t.same((await eventsSince(app, before)).map((e) => e.type), ['feature-environment-disabled']);
    const again = await lastEventId(app);
    t.equal((await send(app, 'POST', `${DEV}/on`)).statusCode, 200);
    t.same((await eventsSince(app, again)).map((e) => e.type), ['feature-environment-enabled'], 'an active strategy exists: none added');
  });

  await t.test('only disabled strategies: a default strategy is added on enable', async (t) => {
    await createFlag(app, { name: 'disabled.only' });
    const url = `${BASE}/disabled.only/environments/production`;
    t.equal((await send(app, 'POST', `${url}/strategies`, { name: 'default', disabled: true })).statusCode, 200);
    const before = await lastEventId(app);
    t.equal((await send(app, 'POST', `${url}/on`)).statusCode, 200);
    t.same((await eventsSince(app, before)).map((e) => e.type), ['feature-strategy-add', 'feature-environment-enabled']);
    const list = (await send(app, 'GET', `${url}/strategies`)).json();
    t.same(list.map((s: { name: string; sortOrder: number }) => [s.name, s.sortOrder]), [['default', 0], ['flexibleRollout', 1]]);
    t.equal((await send(app, 'GET', `${BASE}/disabled.only`)).json().lifecycle.stage, 'initial');
  });

  await t.test('errors: unknown env 404, unknown flag 404, archived 400, body-less POST accepted', async (t) => {
    const env = await send(app, 'POST', `${BASE}/peer.demo/environments/nope/on`);
    t.equal(env.statusCode, 404);
    t.same(env.json().details, [{ message: 'Could not find environment nope for feature: peer.demo' }]);
    t.equal((await send(app, 'POST', `${BASE}/nope/environments/development/on`)).statusCode, 404);
    await createFlag(app, { name: 'arch' });
    await send(app, 'DELETE', `${BASE}/arch`);
    const archived = await send(app, 'POST', `${BASE}/arch/environments/development/on`);
    t.equal(archived.statusCode, 400);
    t.equal(archived.json().name, 'ArchivedFeatureError');
  });
});

t.test('on with shouldActivateDisabledStrategies enables the disabled strategies instead of adding one (measured)', async (t) => {
  const app = await buildTestApp(t);
  await createFlag(app, { name: 'peer.demo' });
  t.equal((await send(app, 'POST', `${DEV}/strategies`, { name: 'default', parameters: {}, disabled: true })).statusCode, 200);
  const before = await lastEventId(app);
  t.equal((await send(app, 'POST', `${DEV}/on?shouldActivateDisabledStrategies=true`)).statusCode, 200);
  const strategies = (await send(app, 'GET', `${DEV}/strategies`)).json<Array<{ name: string; disabled: boolean }>>();
  t.same(strategies.map((s) => [s.name, s.disabled]), [['default', false]], 'the one strategy, enabled; none added');
  t.same((await eventsSince(app, before)).map((e) => e.type), ['feature-strategy-update', 'feature-environment-enabled']);
});

t.test('environment variants (S6)', async (t) => {
  const app = await buildTestApp(t);
  await createFlag(app, { name: 'peer.demo' });

  await t.test('PUT normalises, answers in input key order, stores JSONB order', async (t) => {
    const before = await lastEventId(app);
    const res = await send(app, 'PUT', `${DEV}/variants`, [
      { name: 'v2', weight: 1, weightType: 'variable', stickiness: 'default' },
      { name: 'v1', weight: 1, weightType: 'variable', stickiness: 'default', payload: { type: 'json', value: '{"a":1}' } },
      { name: 'dropped', weight: 1 },
    ]);
    t.equal(res.statusCode, 200);
    t.same(res.json(), {
      version: 1,
      variants: [
        { name: 'v1', weight: 500, weightType: 'variable', stickiness: 'default', payload: { type: 'json', value: '{"a":1}' } },
        { name: 'v2', weight: 500, weightType: 'variable', stickiness: 'default' },
      ],
    });
    t.same(Object.keys(res.json().variants[0]), ['name', 'weight', 'weightType', 'stickiness', 'payload']);
    const got = (await send(app, 'GET', `${DEV}/variants`)).json();
    t.same(Object.keys(got.variants[0]), ['name', 'weight', 'payload', 'stickiness', 'weightType']);
    const events = await eventsSince(app, before);
    t.same(events.map((e) => e.type), ['feature-environment-variants-updated']);
    t.same(events[0]!.preData, { variants: [] });
    t.equal(events[0]!.data.variants.length, 2);
    t.notOk(events[0]!.groupType, 'not transactional');
  });

  await t.test('PATCH applies RFC 6902 then normalises (sample 30)', async (t) => {
    const res = await send(app, 'PATCH', `${DEV}/variants`, [
      { op: 'add', path: '/2', value: { name: 'v3', weight: 100, weightType: 'fix', stickiness: 'default' } },
    ]);
    t.equal(res.statusCode, 200);
    t.same(res.json().variants.map((v: { name: string; weight: number }) => [v.name, v.weight]), [['v1', 450], ['v2', 450], ['v3', 100]]);
    t.same(Object.keys(res.json().variants[0]), ['name', 'weight', 'payload', 'stickiness', 'weightType']);
    const bad = await send(app, 'PATCH', `${DEV}/variants`, [{ op: 'remove', path: '/9' }]);
    t.equal(bad.statusCode, 400);
    t.match(bad.json().details[0].message, /^Could not apply provided patch: /);
    const replaced = await send(app, 'PATCH', `${DEV}/variants`, [
      { op: 'test', path: '/2/name', value: 'v3' },
      { op: 'replace', path: '/2/weight', value: 200 },
      { op: 'remove', path: '/1' },
    ]);
    t.same(replaced.json().variants.map((v: { name: string; weight: number }) => [v.name, v.weight]), [['v1', 800], ['v3', 200]]);
  });

  await t.test('PUT errors: all fix, duplicate names, bad JSON payload, weight > 1000', async (t) => {
    const allFix = await send(app, 'PUT', `${DEV}/variants`, [{ name: 'x', weight: 500, weightType: 'fix', stickiness: 'default' }]);
    t.equal(allFix.statusCode, 400);
    t.equal(allFix.json().message,
      'Request validation failed: your request body or params contain invalid data: There must be at least one "variable" variant');
    const dup = await send(app, 'PUT', `${DEV}/variants`, [
      { name: 'x', weight: 1, weightType: 'variable' }, { name: 'x', weight: 1, weightType: 'variable' },
    ]);
    t.equal(dup.statusCode, 400);
    const json = await send(app, 'PUT', `${DEV}/variants`, [{ name: 'x', weight: 1, weightType: 'variable', payload: { type: 'json', value: '{' } }]);
    t.equal(json.statusCode, 400);
    const heavy = await send(app, 'PUT', `${DEV}/variants`, [{ name: 'x', weight: 1001, weightType: 'variable' }]);
    t.equal(heavy.statusCode, 400);
  });

  await t.test('variants-batch sets several environments, one event each', async (t) => {
    const before = await lastEventId(app);
    const res = await send(app, 'PUT', `${BASE}/peer.demo/variants-batch`, {
      variants: [{ name: 'a', weight: 1, weightType: 'variable', stickiness: 'default' }],
      environments: ['development', 'production'],
    });
    t.equal(res.statusCode, 200);
    const events = await eventsSince(app, before);
    t.same(events.map((e) => [e.type, e.environment]), [
      ['feature-environment-variants-updated', 'development'], ['feature-environment-variants-updated', 'production'],
    ]);
    const prod = (await send(app, 'GET', `${BASE}/peer.demo/environments/production/variants`)).json();
    t.same(prod.variants, [{ name: 'a', weight: 1000, stickiness: 'default', weightType: 'variable' }]);
    const none = await send(app, 'PUT', `${BASE}/peer.demo/variants-batch`, { variants: [], environments: [] });
    t.equal(none.statusCode, 400);
    t.same(none.json().details, [{ message: 'No environments provided' }]);
  });
});

t.test('dependencies (S7)', async (t) => {
  const app = await buildTestApp(t);
  for (const name of ['peer.demo', 'peer.child', 'peer.tagged', 'grand.child']) await createFlag(app, { name });
  t.equal((await send(app, 'POST', '/api/admin/projects', { id: 'other', name: 'Other' })).statusCode, 201);
  await createFlag(app, { name: 'foreign' }, 'other');
  const dep = (child: string, body: unknown) => send(app, 'POST', `${BASE}/${child}/dependencies`, body);

  await t.test('add: event data, stored form, replaces the previous parent', async (t) => {
    const before = await lastEventId(app);
    t.equal((await dep('peer.child', { feature: 'peer.demo', enabled: true })).statusCode, 200);
    t.equal((await dep('peer.child', { feature: 'peer.demo', enabled: true, variants: ['v1'] })).statusCode, 200);
    const events = await eventsSince(app, before);
    t.same(events.map((e) => [e.type, e.data]), [
      ['feature-dependency-added', { feature: 'peer.demo', enabled: true }],
      ['feature-dependency-added', { feature: 'peer.demo', enabled: true, variants: ['v1'] }],
    ]);
    t.equal(events[0]!.featureName, 'peer.child');
    t.equal(events[0]!.groupType, 'transaction');
    t.same((await send(app, 'GET', `${BASE}/peer.child`)).json().dependencies, [{ feature: 'peer.demo', enabled: true, variants: ['v1'] }]);
    t.equal((await dep('peer.child', { feature: 'peer.demo', enabled: false, variants: ['v1'] })).statusCode, 200);
    t.same((await send(app, 'GET', `${BASE}/peer.child`)).json().dependencies, [{ feature: 'peer.demo', enabled: false, variants: [] }]);
    t.equal((await dep('peer.child', { feature: 'peer.demo' })).statusCode, 200);
    t.same((await send(app, 'GET', `${BASE}/peer.child`)).json().dependencies, [{ feature: 'peer.demo', enabled: true, variants: [] }]);
    t.equal((await send(app, 'GET', '/api/admin/projects/default/dependencies')).json(), true);
    t.equal((await send(app, 'GET', '/api/admin/projects/other/dependencies')).json(), false);
  });

  await t.test('403 rules in order', async (t) => {
    const cases: Array<[string, unknown, string]> = [
      ['peer.demo', { feature: 'peer.demo' }, 'A feature flag cannot depend on itself.'],
      ['peer.demo', { feature: 'peer.tagged' }, 'Transitive dependency detected. Cannot add a dependency to the feature that other features depend on.'],
      ['grand.child', { feature: 'peer.child' }, 'Transitive dependency detected. Cannot add a dependency to the feature that has parent dependency.'],
      ['peer.tagged', { feature: 'peer.nope' }, 'No active feature peer.nope exists'],
      ['peer.tagged', { feature: 'foreign' }, 'Parent and child features should be in the same project'],
    ];
    for (const [child, body, message] of cases) {
      const res = await dep(child, body);
      t.equal(res.statusCode, 403, message);
      t.equal(res.json().name, 'InvalidOperationError');
      t.equal(res.json().message, message);
    }
    const missing = await dep('peer.child', { enabled: true });
    t.equal(missing.statusCode, 400);
    t.equal(missing.json().details[0].path, '/body/feature');
  });

  await t.test('archived parent → no active feature', async (t) => {
    await createFlag(app, { name: 'old.parent' });
    await send(app, 'DELETE', `${BASE}/old.parent`);
    const res = await dep('peer.tagged', { feature: 'old.parent' });
    t.equal(res.statusCode, 403);
    t.equal(res.json().message, 'No active feature old.parent exists');
  });

  await t.test('remove one / remove all', async (t) => {
    let before = await lastEventId(app);
    t.equal((await send(app, 'DELETE', `${BASE}/peer.child/dependencies/peer.demo`)).statusCode, 200);
    t.same((await eventsSince(app, before)).map((e) => [e.type, e.data]), [['feature-dependency-removed', { feature: 'peer.demo' }]]);
    before = await lastEventId(app);
    t.equal((await send(app, 'DELETE', `${BASE}/peer.child/dependencies`)).statusCode, 200);
    t.same(await eventsSince(app, before), [], 'no dependency, no event');
    await dep('peer.child', { feature: 'peer.demo' });
    before = await lastEventId(app);
    t.equal((await send(app, 'DELETE', `${BASE}/peer.child/dependencies`)).statusCode, 200);
    t.same((await eventsSince(app, before)).map((e) => [e.type, e.data]), [['feature-dependencies-removed', null]]);
  });
});

t.test('reviving a live flag turns it off and records feature-revived (measured)', async (t) => {
  const app = await buildTestApp(t);
  await createFlag(app, { name: 'live' });
  await send(app, 'POST', `${BASE}/live/environments/development/on`);
  const before = await lastEventId(app);
  t.equal((await send(app, 'POST', '/api/admin/archive/revive/live')).statusCode, 200);
  t.same((await eventsSince(app, before)).map((e) => e.type), ['feature-revived']);
  const flag = (await send(app, 'GET', `${BASE}/live`)).json();
  t.same(flag.environments.map((e: { enabled: boolean }) => e.enabled), [false, false]);
  t.equal(flag.archived, false);
});

t.test('archive and revive (S8)', async (t) => {
  const app = await buildTestApp(t);
  for (const name of ['parent', 'child']) await createFlag(app, { name });
  await send(app, 'POST', `${BASE}/child/dependencies`, { feature: 'parent' });
  await send(app, 'POST', `${BASE}/child/environments/development/on`);

  await t.test('a flag with children cannot be archived', async (t) => {
    const res = await send(app, 'DELETE', `${BASE}/parent`);
    t.equal(res.statusCode, 403);
    t.equal(res.json().message, 'You can not archive/delete this feature since other features depend on it.');
  });

  await t.test('archive: dependencies removed first, then archived; 202', async (t) => {
    const before = await lastEventId(app);
    const res = await send(app, 'DELETE', `${BASE}/child`);
    t.equal(res.statusCode, 202);
    const events = await eventsSince(app, before);
    t.same(events.map((e) => e.type), ['feature-dependencies-removed', 'feature-archived']);
    t.equal(events[0]!.groupId, events[1]!.groupId);
    t.equal((await send(app, 'GET', `${BASE}/child`)).statusCode, 404);
    t.equal((await send(app, 'DELETE', `${BASE}/parent`)).statusCode, 202, 'no active children any more');
    t.equal((await send(app, 'DELETE', `${BASE}/nope`)).statusCode, 404);
    const snapshot = await app.services.flags.store.snapshotSource();
    t.same(snapshot.map((f) => f.name), [], 'archived flags leave the playground source');
  });

  await t.test('revive: environments off, event', async (t) => {
    const before = await lastEventId(app);
    const res = await send(app, 'POST', '/api/admin/archive/revive/child');
    t.equal(res.statusCode, 200);
    t.same((await eventsSince(app, before)).map((e) => e.type), ['feature-revived']);
    const flag = (await send(app, 'GET', `${BASE}/child`)).json();
    t.equal(flag.archived, false);
    t.same(flag.environments.map((e: { enabled: boolean }) => e.enabled), [false, false]);
    t.same(flag.dependencies, []);
    t.equal((await send(app, 'POST', '/api/admin/archive/revive/nope')).statusCode, 404);
  });
});
