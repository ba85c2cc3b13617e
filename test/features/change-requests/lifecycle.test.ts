import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import {
  addChanges, addStrategy, createFlag, createSegment, eventsAfter, FEATURES, lastEventId, ok, send, setState, storedState, turnOn,
} from './helpers.js';

const CR = '/api/admin/projects/default/change-requests';

t.test('a Draft collects changes: created with title, appended to, shape and key order, events', async (t) => {
  const app = await buildTestApp(t);
  await createFlag(app, 'alpha');
  await createFlag(app, 'beta');
  const before = await lastEventId(app);

  const first = await addChanges(app, { feature: 'alpha', action: 'updateEnabled', payload: { enabled: true } });
  t.equal(first.statusCode, 200, first.body);
  const cr = first.json();
  t.same(Object.keys(cr), [
    'id', 'title', 'environment', 'project', 'minApprovals', 'state', 'createdBy', 'createdAt', 'features', 'segments',
    'approvals', 'rejections', 'comments',
  ]);
  t.equal(cr.id, 1);
  t.equal(cr.title, 'Change request #1');
  t.equal(cr.environment, 'development');
  t.equal(cr.project, 'default');
  t.equal(cr.state, 'Draft');
  t.same(Object.keys(cr.createdBy), ['id', 'username', 'imageUrl']);
  t.equal(cr.createdBy.id, -42);
  t.same(cr.features, [{ name: 'alpha', changes: [{ id: 1, action: 'updateEnabled', payload: { enabled: true }, createdAt: cr.createdAt, createdBy: cr.createdBy }] }]);
  t.same(Object.keys(cr.features[0].changes[0]), ['id', 'action', 'payload', 'createdAt', 'createdBy']);

  // Appends to the same Draft (an array of changes at once); a flag's changes stay grouped.
  const second = await addChanges(app, [
    { feature: 'beta', action: 'addStrategy', payload: { name: 'default', title: 'b' } },
    { feature: 'alpha', action: 'updateEnabled', payload: { enabled: 'false' } },
  ]);
  t.equal(second.statusCode, 200, second.body);
  const appended = second.json();
  t.equal(appended.id, 1, 'same Draft');
  t.same(appended.features.map((f: { name: string; changes: Array<{ id: number }> }) => [f.name, f.changes.map((c) => c.id)]), [['alpha', [1, 3]], ['beta', [2]]]);
  t.same(appended.features[0].changes[1].payload, { enabled: false }, 'coerced like the live schema');

  // Another environment has its own Draft.
  const prod = await addChanges(app, { feature: 'alpha', action: 'archiveFeature', payload: {} }, 'default', 'production');
  t.equal(prod.json().id, 2);
  t.equal(prod.json().title, 'Change request #2');

  const events = await eventsAfter(app, before);
  t.same(events.map((e) => [e.type, e.featureName, e.project, e.environment]), [
    ['change-request-created', null, 'default', 'development'],
    ['change-added', 'alpha', 'default', 'development'],
    ['change-added', 'beta', 'default', 'development'],
    ['change-added', 'alpha', 'default', 'development'],
    ['change-request-created', null, 'default', 'production'],
    ['change-added', 'alpha', 'default', 'production'],
  ]);
  t.same(events[1]!.data, { changeRequestId: 1, changeId: 1, action: 'updateEnabled', feature: 'alpha', payload: { enabled: true } });

  const got = await ok(app, 'GET', `${CR}/1`);
  t.same(got, appended);
  const list = await ok(app, 'GET', CR);
  t.same(list.map((c: { id: number }) => c.id), [1, 2]);

  // The flags themselves are untouched.
  const alpha = await ok(app, 'GET', `${FEATURES}/alpha`);
  t.equal(alpha.environments[0].enabled, false);
  t.equal(alpha.environments[0].strategies.length, 0);

  // The search shows the change-request events with their label and summary.
  const search = await ok(app, 'GET', '/api/admin/search/events?type=IS:change-request-created&limit=1');
  t.equal(search.events[0].label, 'Change request created');
  t.match(search.events[0].summary, /created change request \*\*\[#2\]\(.*\/projects\/default\/change-requests\/2\)\*\* in the \*\*production\*\* environment in project/);
});

t.test('unknown project, environment and flag answer 404 like the live endpoints; nothing stored', async (t) => {
  const app = await buildTestApp(t);
  await createFlag(app, 'alpha');
  const before = await storedState(app);
  const missingProject = await addChanges(app, { feature: 'alpha', action: 'archiveFeature', payload: {} }, 'nope');
  t.equal(missingProject.statusCode, 404);
  t.equal(missingProject.json().message, 'Project nope does not exist');
  const missingEnv = await addChanges(app, { feature: 'alpha', action: 'updateEnabled', payload: { enabled: true } }, 'default', 'staging');
  t.equal(missingEnv.statusCode, 404);
  t.equal(missingEnv.json().message, 'Could not find environment with name: staging');
  const missingFlag = await addChanges(app, { feature: 'ghost', action: 'updateEnabled', payload: { enabled: true } });
  t.equal(missingFlag.statusCode, 404);
  t.equal(missingFlag.json().message, 'There\'s no feature named "ghost" in project "default".');
  const archiveMissing = await addChanges(app, { feature: 'ghost', action: 'archiveFeature' });
  t.equal(archiveMissing.json().message, 'Could not find feature flag "ghost"');
  t.equal((await send(app, 'GET', `${CR}/99`)).statusCode, 404);
  t.equal((await send(app, 'GET', `${CR}/99`)).json().message, 'Could not find change request with id 99');
  for (const id of ['abc', '1.0', '-1']) {
    t.equal((await send(app, 'GET', `${CR}/${id}`)).statusCode, 404, id);
    t.equal((await setState(app, id as never, 'Cancelled')).statusCode, 404, `state of ${id}`);
  }
  t.equal(await storedState(app), before, 'nothing written');
});

t.test('each action refuses an invalid change with its live endpoint\'s error; one bad change refuses the list', async (t) => {
  const app = await buildTestApp(t);
  await createFlag(app, 'alpha');
  await createFlag(app, 'parent');
  await createFlag(app, 'other');
  const sid = await addStrategy(app, 'alpha', { name: 'default' });
  const segment = await createSegment(app, { name: 'seg', constraints: [] });
  await createSegment(app, { name: 'taken', constraints: [] });
  const before = await storedState(app);
  const beforeEvents = await lastEventId(app);

  const cases: Array<[string, unknown, number, string | RegExp]> = [
    ['missing payload', { feature: 'alpha', action: 'updateEnabled' }, 400, 'The `/body/payload` property is required. It was not present on the data you sent.'],
    ['unknown action', { feature: 'alpha', action: 'explode', payload: {} }, 400, /must be equal to one of the allowed values/],
    ['updateEnabled type', { feature: 'alpha', action: 'updateEnabled', payload: { enabled: 'maybe' } }, 400, 'The `/body/payload/enabled` property must be boolean. You sent "maybe".'],
    ['addStrategy unknown type', { feature: 'alpha', action: 'addStrategy', payload: { name: 'nope' } }, 400, /Could not find strategy type with name nope/],
    ['addStrategy missing name', { feature: 'alpha', action: 'addStrategy', payload: {} }, 400, 'The `/body/payload/name` property is required. It was not present on the data you sent.'],
    ['addStrategy unknown segment', { feature: 'alpha', action: 'addStrategy', payload: { name: 'default', segments: [77] } }, 404, 'No segment exists with ID "77"'],
    ['addStrategy bad constraint', { feature: 'alpha', action: 'addStrategy', payload: { name: 'default', constraints: [{ contextName: 'x', operator: 'NUM_EQ', value: 'abc' }] } }, 400, /./],
    ['addStrategy variants', { feature: 'alpha', action: 'addStrategy', payload: { name: 'default', variants: [{ name: 'a', weight: 100, weightType: 'fix', stickiness: 'default' }] } }, 400, /There must be at least one "variable" variant/],
    ['updateStrategy unknown id', { feature: 'alpha', action: 'updateStrategy', payload: { id: 'nope', name: 'default' } }, 404, 'Could not find strategy with id=nope'],
    ['updateStrategy of another flag', { feature: 'other', action: 'updateStrategy', payload: { id: sid, name: 'default' } }, 403, 'You can not change the featureName for an activation strategy.'],
    ['deleteStrategy unknown id', { feature: 'alpha', action: 'deleteStrategy', payload: { id: 'nope' } }, 404, 'Could not find strategy with id nope'],
    ['patchVariant duplicate', { feature: 'alpha', action: 'patchVariant', payload: { variants: [{ name: 'a', weight: 1, weightType: 'variable' }, { name: 'a', weight: 1, weightType: 'variable' }] } }, 400, /contains a duplicate value/],
    ['patchVariant missing weight', { feature: 'alpha', action: 'patchVariant', payload: { variants: [{ name: 'a' }] } }, 400, 'The `/body/payload/variants/0/weight` property is required. It was not present on the data you sent.'],
    ['reorderStrategy unknown id', { feature: 'alpha', action: 'reorderStrategy', payload: [{ id: 'nope', sortOrder: 1 }] }, 404, 'Could not find strategy with id nope'],
    ['reorderStrategy not a list', { feature: 'alpha', action: 'reorderStrategy', payload: { id: sid } }, 400, /must be array/],
    ['addDependency on itself', { feature: 'alpha', action: 'addDependency', payload: { feature: 'alpha' } }, 403, 'A feature flag cannot depend on itself.'],
    ['addDependency missing parent', { feature: 'alpha', action: 'addDependency', payload: { feature: 'ghost' } }, 403, 'No active feature ghost exists'],
    ['deleteDependency without feature', { feature: 'alpha', action: 'deleteDependency', payload: {} }, 400, /payload\/feature/],
    ['segment change naming a feature', { feature: 'alpha', action: 'deleteSegment', payload: { id: segment } }, 400, /names a segment/],
    ['flag change without feature', { action: 'updateEnabled', payload: { enabled: true } }, 400, /needs the name of its feature/],
    ['updateSegment unknown', { action: 'updateSegment', payload: { id: 99, name: 'x', constraints: [] } }, 404, 'No segment exists with ID "99"'],
    ['updateSegment empty name', { action: 'updateSegment', payload: { id: segment, name: '', constraints: [] } }, 400, /"name" is not allowed to be empty/],
    ['updateSegment name taken', { action: 'updateSegment', payload: { id: segment, name: 'taken', constraints: [] } }, 409, 'Segment name already exists'],
    ['deleteSegment unknown', { action: 'deleteSegment', payload: { id: 99 } }, 404, 'No segment exists with ID "99"'],
    ['a list with one bad change', [{ feature: 'alpha', action: 'updateEnabled', payload: { enabled: true } }, { feature: 'alpha', action: 'deleteStrategy', payload: { id: 'nope' } }], 404, 'Could not find strategy with id nope'],
    ['a bad element of a list', [{ feature: 'alpha', action: 'updateEnabled', payload: { enabled: true } }, { feature: 'alpha', action: 'updateEnabled', payload: {} }], 400, 'The `/body/1/payload/enabled` property is required. It was not present on the data you sent.'],
    ['an empty list', [], 400, /No changes provided/],
  ];
  for (const [label, body, status, message] of cases) {
    const res = await addChanges(app, body);
    t.equal(res.statusCode, status, `${label}: status (${res.body})`);
    const text = res.json().message ?? '';
    const detail = res.json().details?.[0]?.message ?? '';
    if (typeof message === 'string') t.ok(text === message || detail === message, `${label}: ${text} / ${detail}`);
    else t.ok(message.test(text) || message.test(detail), `${label}: ${text} / ${detail}`);
  }

  // Archived flags refuse changes like the live endpoints (400 ArchivedFeatureError).
  await ok(app, 'DELETE', `${FEATURES}/other`, undefined, 202);
  const archived = await addChanges(app, { feature: 'other', action: 'updateEnabled', payload: { enabled: true } });
  t.equal(archived.statusCode, 400);
  t.equal(archived.json().name, 'ArchivedFeatureError');

  // A segment in use cannot be deleted (the live endpoint answers 409 too) …
  await addStrategy(app, 'alpha', { name: 'default', segments: [segment] });
  const inUse = await addChanges(app, { action: 'deleteSegment', payload: { id: segment } });
  t.equal(inUse.statusCode, 409);
  t.equal(await lastEventId(app) - beforeEvents, 2, 'only the live archive and strategy-add events were written');
  t.not(await storedState(app), before);
});

t.test('changes are validated against the Draft\'s earlier changes: a segment freed earlier in the request can be deleted', async (t) => {
  const app = await buildTestApp(t);
  await createFlag(app, 'alpha');
  const segment = await createSegment(app, { name: 'seg', constraints: [] });
  const sid = await addStrategy(app, 'alpha', { name: 'default', segments: [segment] });
  t.equal((await addChanges(app, { action: 'deleteSegment', payload: { id: segment } })).statusCode, 409, 'in use now');
  t.equal((await addChanges(app, { feature: 'alpha', action: 'deleteStrategy', payload: { id: sid } })).statusCode, 200);
  const res = await addChanges(app, { action: 'deleteSegment', payload: { id: segment } });
  t.equal(res.statusCode, 200, res.body);
  t.same(res.json().segments, [{ id: 2, action: 'deleteSegment', name: 'seg', payload: { id: segment } }]);
  // Deleting the same strategy twice in one request is refused: the first change removed it.
  const twice = await addChanges(app, { feature: 'alpha', action: 'deleteStrategy', payload: { id: sid } });
  t.equal(twice.statusCode, 404);
});

t.test('state transitions: each emits its event; disallowed ones answer 409 with a clear message', async (t) => {
  const app = await buildTestApp(t);
  await createFlag(app, 'alpha');
  const start = await lastEventId(app);
  const add = async () => (await addChanges(app, { feature: 'alpha', action: 'updateEnabled', payload: { enabled: true } })).json().id as number;

  const a = await add();
  let res = await setState(app, a, 'Approved');
  t.equal(res.statusCode, 409);
  t.equal(res.json().message, `Change request #${a} is Draft and cannot become Approved (allowed: In review, Cancelled)`);
  res = await setState(app, a, 'Applied');
  t.equal(res.statusCode, 409);
  res = await setState(app, a, 'Bogus');
  t.equal(res.statusCode, 400);
  res = await setState(app, a, 'Scheduled');
  t.equal(res.statusCode, 400);
  t.match(res.json().message, /Scheduling change requests is not supported/);

  res = await setState(app, a, 'In review');
  t.equal(res.statusCode, 200, res.body);
  t.equal(res.json().state, 'In review');
  // Out of Draft: the next change opens a new Draft.
  const b = await add();
  t.not(b, a);
  res = await setState(app, a, 'Approved');
  t.equal(res.json().state, 'Approved');
  t.equal(res.json().approvals.length, 1);
  t.same(Object.keys(res.json().approvals[0]), ['createdBy', 'createdAt']);
  res = await setState(app, a, 'Applied');
  t.equal(res.statusCode, 200, res.body);
  t.equal(res.json().state, 'Applied');
  res = await setState(app, a, 'Cancelled');
  t.equal(res.statusCode, 409);
  t.equal(res.json().message, `Change request #${a} is Applied and cannot become Cancelled (it is final)`);

  await setState(app, b, 'In review');
  res = await setState(app, b, 'Rejected');
  t.equal(res.json().state, 'Rejected');
  t.equal(res.json().rejections.length, 1);
  const c = await add();
  res = await setState(app, c, 'Cancelled');
  t.equal(res.json().state, 'Cancelled');

  // An empty Draft cannot be sent to review.
  const d = await add();
  const changeId = (await ok(app, 'GET', `${CR}/${d}`)).features[0].changes[0].id;
  await ok(app, 'DELETE', `${CR}/${d}/changes/${changeId}`);
  res = await setState(app, d, 'In review');
  t.equal(res.statusCode, 400);

  const events = (await eventsAfter(app, start)).filter((e) => e.type.startsWith('change-request-') && e.type !== 'change-request-created');
  t.same(events.map((e) => [e.type, (e.data as { changeRequestId: number }).changeRequestId, e.environment]), [
    ['change-request-sent-to-review', a, 'development'],
    ['change-request-approved', a, 'development'],
    ['change-request-applied', a, 'development'],
    ['change-request-sent-to-review', b, 'development'],
    ['change-request-rejected', b, 'development'],
    ['change-request-cancelled', c, 'development'],
  ]);
  const applied = await eventsAfter(app, start);
  const flagEvents = applied.filter((e) => e.type.startsWith('feature-'));
  t.same(flagEvents.map((e) => e.type), ['feature-strategy-add', 'feature-environment-enabled'], 'the apply wrote the live events');
  t.equal(flagEvents[0]!.groupId, flagEvents[1]!.groupId, 'one transactional group, as live');
});

t.test('discarding a change: event, 404 for unknown ids, refused once approved', async (t) => {
  const app = await buildTestApp(t);
  await createFlag(app, 'alpha');
  await turnOn(app, 'alpha');
  const cr = (await addChanges(app, [
    { feature: 'alpha', action: 'updateEnabled', payload: { enabled: false } },
    { feature: 'alpha', action: 'addStrategy', payload: { name: 'default', title: 'x' } },
  ])).json();
  const start = await lastEventId(app);
  const res = await send(app, 'DELETE', `${CR}/${cr.id}/changes/1`);
  t.equal(res.statusCode, 200, res.body);
  t.same(res.json().features[0].changes.map((c: { id: number }) => c.id), [2]);
  const events = await eventsAfter(app, start);
  t.same(events.map((e) => [e.type, e.featureName, e.data]), [
    ['change-discarded', 'alpha', { changeRequestId: cr.id, changeId: 1, action: 'updateEnabled', feature: 'alpha' }],
  ]);
  t.equal((await send(app, 'DELETE', `${CR}/${cr.id}/changes/1`)).statusCode, 404);
  t.equal((await send(app, 'DELETE', '/api/admin/projects/default/change-requests/77/changes/1')).statusCode, 404);
  await setState(app, cr.id, 'In review');
  await setState(app, cr.id, 'Approved');
  t.equal((await send(app, 'DELETE', `${CR}/${cr.id}/changes/2`)).statusCode, 409);
});

t.test('concurrent requests: sequential distinct ids, one Draft per caller/project/environment', async (t) => {
  const app = await buildTestApp(t);
  const projects = ['default', 'p2', 'p3'];
  for (const p of projects.slice(1)) await ok(app, 'POST', '/api/admin/projects', { id: p, name: p }, 201);
  for (const p of projects) await createFlag(app, `flag-${p}`, p);
  const targets = projects.flatMap((p) => ['development', 'production'].map((env) => [p, env] as const));
  // Every target twice at once: two changes race for the same Draft.
  const results = await Promise.all(targets.flatMap(([p, env]) => [1, 2].map(() =>
    addChanges(app, { feature: `flag-${p}`, action: 'updateEnabled', payload: { enabled: true } }, p, env))));
  t.ok(results.every((r) => r.statusCode === 200), results.map((r) => r.statusCode).join(','));
  const ids = new Set(results.map((r) => r.json().id as number));
  t.same([...ids].sort((a, b) => a - b), [1, 2, 3, 4, 5, 6], 'one request per target, ids from 1 without gaps');
  for (const [p, env] of targets) {
    const list = (await ok(app, 'GET', `/api/admin/projects/${p}/change-requests`)) as Array<{ environment: string; features: Array<{ changes: unknown[] }> }>;
    const mine = list.filter((cr) => cr.environment === env);
    t.equal(mine.length, 1, `${p}/${env}: one Draft`);
    t.equal(mine[0]!.features[0]!.changes.length, 2, `${p}/${env}: both changes`);
  }
});

t.test('the change-request routes are documented', async (t) => {
  const app = await buildTestApp(t);
  const res = await app.inject({ method: 'GET', url: '/docs/openapi.json' });
  t.equal(res.statusCode, 200);
  const paths = res.json().paths as Record<string, Record<string, { summary?: string; tags?: string[] }>>;
  for (const [path, method] of [
    ['/api/admin/projects/{projectId}/environments/{environment}/change-requests', 'post'],
    ['/api/admin/projects/{projectId}/change-requests', 'get'],
    ['/api/admin/projects/{projectId}/change-requests/{id}', 'get'],
    ['/api/admin/projects/{projectId}/change-requests/{id}/state', 'put'],
    ['/api/admin/projects/{projectId}/change-requests/{id}/changes/{changeId}', 'delete'],
    ['/api/admin/playground/change-request/{id}', 'post'],
  ] as const) {
    t.ok(paths[path]?.[method]?.summary, `${method} ${path}`);
  }
});

t.test('segment changes with "feature": null (what Unleash\'s UI sends) are accepted like an absent feature', async (t) => {
  const app = await buildTestApp(t);
  const segA = await createSegment(app, { name: 'null-a', constraints: [] });
  const segB = await createSegment(app, { name: 'null-b', constraints: [] });
  const update = await addChanges(app, { feature: null, action: 'updateSegment', payload: { id: segA, name: 'null-a2', constraints: [] } });
  t.equal(update.statusCode, 200, update.body);
  const remove = await addChanges(app, [{ feature: null, action: 'deleteSegment', payload: { id: segB } }]);
  t.equal(remove.statusCode, 200, remove.body);
  t.same(remove.json().segments.map((s: { action: string; name: string }) => [s.action, s.name]), [['updateSegment', 'null-a'], ['deleteSegment', 'null-b']]);
  t.same(remove.json().features, [], 'no flag group for a null feature');
  const flagChange = await addChanges(app, { feature: null, action: 'updateEnabled', payload: { enabled: true } });
  t.equal(flagChange.statusCode, 400, 'a flag change still needs its feature');
  t.match(flagChange.json().details?.[0]?.message ?? flagChange.json().message, /needs the name of its feature/);
});
