import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, committed } from '../../helpers/app.js';
import {
  addChanges, addStrategy, advanced, createFlag, createSegment, eventCount, eventsAfter, FEATURES, lastEventId, ok, preview, send,
  setState, storedState, strategyIds, turnOn, withStableIds,
} from './helpers.js';

/** Comma combinations: 3 × 3 contexts per flag. */
const CONTEXT = { appName: 'app', userId: 'u1,u2,u3', properties: { region: 'eu,us,ap' } };

interface Fixture {
  segA: number;
  segB: number;
  s1: string;
  s2: string;
}

/** A project with a flag for every kind of change, and two segments. */
async function seed(app: FastifyInstance): Promise<Fixture> {
  const segA = await createSegment(app, { name: 'seg-a', constraints: [{ contextName: 'region', operator: 'IN', values: ['eu'] }] });
  const segB = await createSegment(app, { name: 'seg-b', constraints: [] });
  for (const name of ['f-on', 'f-off', 'f-strat', 'f-var', 'f-arch', 'parent', 'child', 'child2', 'f-seg']) await createFlag(app, name);
  await turnOn(app, 'f-off');
  const s1 = await addStrategy(app, 'f-strat', { name: 'default', title: 's-one' });
  const s2 = await addStrategy(app, 'f-strat', {
    name: 'flexibleRollout', title: 's-two', parameters: { rollout: '100' },
    constraints: [{ contextName: 'userId', operator: 'IN', values: ['u2'] }],
  });
  await turnOn(app, 'f-strat');
  await turnOn(app, 'f-var');
  await turnOn(app, 'f-arch');
  await addStrategy(app, 'parent', { name: 'default', title: 'p', constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1'] }] });
  await turnOn(app, 'parent');
  await turnOn(app, 'child');
  await turnOn(app, 'child2');
  await ok(app, 'POST', `${FEATURES}/child2/dependencies`, { feature: 'parent' });
  await addStrategy(app, 'f-seg', { name: 'default', title: 'seg-user', segments: [segA] });
  await turnOn(app, 'f-seg');
  // Another project's flag never shows up in the preview of a `default` change request.
  await ok(app, 'POST', '/api/admin/projects', { id: 'other', name: 'Other' }, 201);
  await createFlag(app, 'elsewhere', 'other');
  await ok(app, 'POST', '/api/admin/projects/other/features/elsewhere/environments/development/on');
  return { segA, segB, s1, s2 };
}

/** Every action at least once (segment changes included), in one request. */
function everyAction(f: Fixture): unknown[] {
  return [
    { feature: 'f-on', action: 'updateEnabled', payload: { enabled: true } },
    { feature: 'f-off', action: 'updateEnabled', payload: { enabled: false } },
    {
      feature: 'f-strat', action: 'addStrategy',
      payload: {
        name: 'flexibleRollout', title: 's-new', parameters: { rollout: '100', stickiness: 'userId' },
        constraints: [{ contextName: 'region', operator: 'IN', values: ['us'] }], segments: [f.segA],
        variants: [{ name: 'v1', weight: 500, weightType: 'variable', stickiness: 'default' }, { name: 'v2', weight: 500, weightType: 'variable', stickiness: 'default' }],
      },
    },
    {
      feature: 'f-strat', action: 'updateStrategy',
      payload: { id: f.s1, name: 'default', title: 's-one-updated', constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1', 'u3'] }] },
    },
    { feature: 'f-strat', action: 'deleteStrategy', payload: { id: f.s2 } },
    { feature: 'f-strat', action: 'reorderStrategy', payload: [{ id: f.s1, sortOrder: 9 }] },
    {
      feature: 'f-var', action: 'patchVariant',
      payload: {
        variants: [
          { name: 'blue', weight: 0, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: 'b' } },
          { name: 'green', weight: 300, weightType: 'fix', stickiness: 'default' },
        ],
      },
    },
    { feature: 'f-arch', action: 'archiveFeature', payload: {} },
    { feature: 'child', action: 'addDependency', payload: { feature: 'parent', enabled: true } },
    { feature: 'child2', action: 'deleteDependency', payload: { feature: 'parent' } },
    {
      action: 'updateSegment',
      payload: { id: f.segA, name: 'seg-a2', constraints: [{ contextName: 'region', operator: 'IN', values: ['eu', 'us'] }] },
    },
    { action: 'deleteSegment', payload: { id: f.segB } },
  ];
}

async function toApproved(app: FastifyInstance, id: number): Promise<void> {
  for (const state of ['In review', 'Approved']) {
    const res = await setState(app, id, state);
    if (res.statusCode !== 200) throw new Error(`${state}: ${res.statusCode} ${res.body}`);
  }
}

t.test('preview of a request mixing every action equals the advanced playground after the real apply', async (t) => {
  const app = await buildTestApp(t);
  const fixture = await seed(app);
  const known = await strategyIds(app);

  // Changes added one request at a time and as a list: same Draft.
  const actions = everyAction(fixture);
  t.equal((await addChanges(app, actions.slice(0, 3))).statusCode, 200);
  for (const change of actions.slice(3)) {
    const res = await addChanges(app, change);
    t.equal(res.statusCode, 200, `${(change as { action: string }).action}: ${res.body.slice(0, 300)}`);
  }
  const cr = await ok(app, 'GET', '/api/admin/projects/default/change-requests/1');
  t.same(cr.features.map((f: { name: string }) => f.name), ['f-on', 'f-off', 'f-strat', 'f-var', 'f-arch', 'child', 'child2']);
  t.same(cr.segments.map((s: { action: string; name: string }) => [s.action, s.name]), [['updateSegment', 'seg-a'], ['deleteSegment', 'seg-b']]);

  const current = await advanced(app, 'development', 'default', CONTEXT);
  t.equal(current.statusCode, 200);
  await app.database.outbox.settle(); // flushed events leave the documents a moment after a write
  const storedBefore = await storedState(app);
  const eventsBefore = await eventCount(app);

  const draftPreview = await preview(app, 1, CONTEXT);
  t.equal(draftPreview.statusCode, 200, draftPreview.body.slice(0, 500));
  t.equal(draftPreview.headers['content-type'], 'application/json; charset=utf-8');
  const body = draftPreview.json();
  t.same(body.input, { environments: ['development'], projects: ['default'], context: CONTEXT });
  t.notOk(body.features.some((f: { name: string }) => f.name === 'f-arch'), 'the archived flag is gone from the preview');
  t.ok(current.json().features.some((f: { name: string }) => f.name === 'f-arch'), 'it is still there live');
  t.equal(body.features[0].environments.development.length, 9, 'comma combinations');
  t.not(withStableIds(draftPreview.body, known), withStableIds(current.body, known), 'the preview differs from the current state');

  // The preview wrote nothing: same flag, segment and change-request documents, no event.
  await app.database.outbox.settle();
  t.equal(await storedState(app), storedBefore);
  t.equal(await eventCount(app), eventsBefore);

  await toApproved(app, 1);
  const approvedPreview = await preview(app, 1, CONTEXT);
  t.ok(withStableIds(approvedPreview.body, known) === withStableIds(draftPreview.body, known), 'the preview does not depend on the review state');

  const start = await lastEventId(app);
  const applied = await setState(app, 1, 'Applied');
  t.equal(applied.statusCode, 200, applied.body.slice(0, 500));
  t.equal(applied.json().state, 'Applied');

  const after = await advanced(app, 'development', 'default', CONTEXT);
  t.equal(after.statusCode, 200);
  const previewText = withStableIds(draftPreview.body, known).replace(/"input":\{.*?"context"/, '"input":{"context"');
  const afterText = withStableIds(after.body, known).replace(/"input":\{.*?"context"/, '"input":{"context"');
  t.same(JSON.parse(previewText), JSON.parse(afterText), 'same evaluation, key for key');
  t.ok(previewText === afterText, 'byte for byte (strategy ids aside)');

  // The apply wrote the live events, the flags' then the segments', and ended with change-request-applied.
  const events = await eventsAfter(app, start);
  t.same(events.map((e) => [e.type, e.featureName]), [
    ['feature-strategy-add', 'f-on'],
    ['feature-environment-enabled', 'f-on'],
    ['feature-environment-disabled', 'f-off'],
    ['feature-strategy-add', 'f-strat'],
    ['feature-strategy-update', 'f-strat'],
    ['feature-strategy-remove', 'f-strat'],
    ['feature-strategy-update', 'f-strat'],
    ['feature-environment-variants-updated', 'f-var'],
    ['feature-archived', 'f-arch'],
    ['feature-dependency-added', 'child'],
    ['feature-dependency-removed', 'child2'],
    ['segment-updated', null],
    ['segment-deleted', null],
    ['change-request-applied', null],
  ]);
  const ids = events.map((e) => e.groupId);
  t.equal(ids[0], ids[1], 'updateEnabled: one transactional group, as live');
  t.not(ids[3], ids[4], 'one group per change, as each live call');
  t.same(events.at(-1)!.data, { changeRequestId: 1, state: 'Applied' });

  // An Applied request previews the current state (no change applied again).
  const finalPreview = await preview(app, 1, CONTEXT);
  t.ok(finalPreview.body.replace(/"input":\{.*?"context"/, '') === after.body.replace(/"input":\{.*?"context"/, ''), 'final state: the current state');
});

t.test('preview with the comma context in another environment, and a Draft whose change went stale', async (t) => {
  const app = await buildTestApp(t);
  await createFlag(app, 'f');
  const sid = await addStrategy(app, 'f', { name: 'default', title: 'only', constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1'] }] }, 'production');
  await turnOn(app, 'f', 'production');
  const known = await strategyIds(app);
  const cr = (await addChanges(app, [
    { feature: 'f', action: 'updateStrategy', payload: { id: sid, name: 'default', title: 'only', constraints: [{ contextName: 'userId', operator: 'IN', values: ['u2'] }] } },
    { feature: 'f', action: 'addStrategy', payload: { name: 'default', title: 'extra', constraints: [{ contextName: 'region', operator: 'IN', values: ['ap'] }] } },
  ], 'default', 'production')).json();
  const first = await preview(app, cr.id, CONTEXT);
  t.same(first.json().input.environments, ['production']);
  const enabledFor = (text: string) => (JSON.parse(text).features[0].environments.production as Array<{ isEnabled: boolean; context: { userId: string; region: string } }>)
    .filter((r) => r.isEnabled).map((r) => `${r.context.userId}/${r.context.region}`);
  t.same(enabledFor(first.body).sort(), ['u1/ap', 'u2/ap', 'u2/eu', 'u2/us', 'u3/ap']);

  // The strategy is deleted live: the update no longer applies; the preview skips it (the addition stays).
  await ok(app, 'DELETE', `${FEATURES}/f/environments/production/strategies/${sid}`);
  const stale = await preview(app, cr.id, CONTEXT);
  t.equal(stale.statusCode, 200);
  t.same(enabledFor(stale.body).sort(), [], 'the environment went off with its last strategy, and the add alone does not turn it on');
  t.ok(withStableIds(stale.body, known).includes('new:f:extra'));
});

t.test('a stale change makes the apply fail whole: 409 naming the change, nothing written', async (t) => {
  const app = await buildTestApp(t);
  await createFlag(app, 'a');
  await createFlag(app, 'b');
  const sid = await addStrategy(app, 'b', { name: 'default', title: 'doomed' });
  const cr = (await addChanges(app, [
    { feature: 'a', action: 'updateEnabled', payload: { enabled: true } },
    { feature: 'b', action: 'updateStrategy', payload: { id: sid, name: 'default', title: 'renamed' } },
  ])).json();
  await toApproved(app, cr.id);
  await ok(app, 'DELETE', `${FEATURES}/b/environments/development/strategies/${sid}`);
  await app.database.outbox.settle();
  const before = await storedState(app);
  const eventsBefore = await eventCount(app);

  const res = await setState(app, cr.id, 'Applied');
  t.equal(res.statusCode, 409);
  t.equal(res.json().name, 'ConflictError');
  t.equal(
    res.json().message,
    `Change request #${cr.id} cannot be applied: change 2 (updateStrategy on flag "b") no longer applies: Could not find strategy with id=${sid}`,
  );
  await app.database.outbox.settle();
  t.equal(await storedState(app), before, 'flag a untouched although its change was fine; the request is still Approved');
  t.equal(await eventCount(app), eventsBefore, 'no event');
  t.equal((await ok(app, 'GET', `/api/admin/projects/default/change-requests/${cr.id}`)).state, 'Approved');

  // An archived flag makes its changes stale as well; cancelling is still possible.
  const other = (await addChanges(app, { feature: 'a', action: 'updateEnabled', payload: { enabled: true } })).json();
  await toApproved(app, other.id);
  await ok(app, 'DELETE', `${FEATURES}/a`, undefined, 202);
  const archived = await setState(app, other.id, 'Applied');
  t.equal(archived.statusCode, 409);
  t.match(archived.json().message, /change 1 \(updateEnabled on flag "a"\) no longer applies: Cannot perform this operation on archived features/);
  t.equal((await setState(app, other.id, 'Cancelled')).json().state, 'Cancelled');
});

t.test('final-state requests preview the current state; unknown ids are 404', async (t) => {
  const app = await buildTestApp(t);
  await createFlag(app, 'f');
  const cancelled = (await addChanges(app, { feature: 'f', action: 'updateEnabled', payload: { enabled: true } })).json();
  t.equal((await setState(app, cancelled.id, 'Cancelled')).statusCode, 200);
  const rejected = (await addChanges(app, { feature: 'f', action: 'updateEnabled', payload: { enabled: true } })).json();
  await setState(app, rejected.id, 'In review');
  t.equal((await setState(app, rejected.id, 'Rejected')).statusCode, 200);
  const draft = (await addChanges(app, { feature: 'f', action: 'updateEnabled', payload: { enabled: true } })).json();

  const current = await advanced(app, 'development', 'default', CONTEXT);
  const strip = (text: string) => text.replace(/"input":\{.*?"context"/, '"input":{"context"');
  for (const id of [cancelled.id, rejected.id]) {
    const res = await preview(app, id, CONTEXT);
    t.equal(res.statusCode, 200);
    t.ok(strip(res.body) === strip(current.body), `#${id} previews the current state`);
    t.equal(res.json().features[0].isEnabled ?? res.json().features[0].environments.development[0].isEnabled, false);
  }
  const open = await preview(app, draft.id, CONTEXT);
  t.equal(open.json().features[0].environments.development[0].isEnabled, true, 'the open Draft turns it on');

  for (const id of ['999', 'abc', '1.5', '-1', '0x1']) {
    const res = await preview(app, id, CONTEXT);
    t.equal(res.statusCode, 404, id);
    t.equal(res.json().name, 'NotFoundError');
    t.equal(res.json().message, `Could not find change request with id ${id}`);
  }
  const noContext = await send(app, 'POST', `/api/admin/playground/change-request/${draft.id}`, {});
  t.equal(noContext.statusCode, 400);
  t.equal(noContext.json().details[0].message, 'The `/body/context` property is required. It was not present on the data you sent.');
  const warnings = await preview(app, draft.id, { appName: 'a', tenant: { id: 1 } });
  t.same(warnings.json().warnings, { invalidContextProperties: ['tenant'] });
  t.same(warnings.json().input.context, { appName: 'a', tenant: { id: 1 } });
});

t.test('an apply interrupted after its first flag write is finished at start, each write exactly once', async (t) => {
  const app = await buildTestApp(t);
  const fixture = await seed(app);
  const known = await strategyIds(app);
  t.equal((await addChanges(app, everyAction(fixture))).statusCode, 200);
  const previewed = await preview(app, 1, CONTEXT);
  await toApproved(app, 1);

  const store = app.services.flags.store;
  const replace = store.replace.bind(store);
  let calls = 0;
  store.replace = async (...args: Parameters<typeof replace>) => {
    if (++calls === 3) throw new Error('the process died here');
    return await replace(...args);
  };
  const start = await lastEventId(app);
  const crashed = await setState(app, 1, 'Applied');
  t.equal(crashed.statusCode, 500);
  store.replace = replace;
  const raw = (await committed(app, 'change_requests')).get(1);
  t.ok(raw?.applying, 'the plan is saved on the request');
  t.equal(raw?.state, 'Approved');
  t.equal((await setState(app, 1, 'Cancelled')).statusCode, 409, 'no state change while an apply is pending');

  t.equal(await app.services.changeRequests.resumeInterruptedApplies(), 1);
  t.equal(await app.services.changeRequests.resumeInterruptedApplies(), 0, 'nothing left');
  const cr = await ok(app, 'GET', '/api/admin/projects/default/change-requests/1');
  t.equal(cr.state, 'Applied');

  const after = await advanced(app, 'development', 'default', CONTEXT);
  const strip = (text: string) => withStableIds(text, known).replace(/"input":\{.*?"context"/, '"input":{"context"');
  t.ok(strip(previewed.body) === strip(after.body), 'the resumed apply reached the previewed state');
  const events = await eventsAfter(app, start);
  const counts = new Map<string, number>();
  for (const e of events) counts.set(`${e.type}:${e.featureName}`, (counts.get(`${e.type}:${e.featureName}`) ?? 0) + 1);
  t.equal(counts.get('feature-strategy-add:f-on'), 1, 'written once (before the crash)');
  t.equal(counts.get('feature-strategy-add:f-strat'), 1, 'written once (by the resume)');
  t.equal(counts.get('change-request-applied:null'), 1);
  t.equal(events.length, 14);
  const raw2 = (await committed(app, 'change_requests')).get(1);
  t.notOk(raw2?.applying);
  t.notOk(raw2?.applyErrors);
});
