import t, { type Test } from 'tap';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { ADMIN, JSON_ADMIN, buildTestApp, eventsAfter, lastEventId } from '../../helpers/app.js';
import { fixture } from '../../helpers/samples.js';
import { ORIGIN, STRONG, login, userWithRole } from '../../helpers/sessions.js';

/** Answers and events recorded from the Unleash 8.2 reference (test/fixtures/context-fields/). */
const REF = fixture('context-fields/reference.json');

interface RefCase {
  request: { method: string; path: string; body: unknown };
  response: { status: number; location?: string; body: any };
}

const refCase = (name: string): RefCase => {
  const found = REF.cases[name] as RefCase | undefined;
  if (!found) throw new Error(`no reference case ${name}`);
  return found;
};

/** Timestamps differ between runs: every `createdAt` value becomes a marker, keys keep their order. */
function untimed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(untimed);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === 'createdAt' ? '<time>' : untimed(v)]));
}

/** `ref` with `ours`'s createdAt (for t.same on one body). */
const untimedLike = (ours: { createdAt: string }, ref: object) => ({ ...ref, createdAt: ours.createdAt });

/** The same JSON text once timestamps are masked: values and key order. */
const sameText = (a: unknown, b: unknown) => JSON.stringify(untimed(a)) === JSON.stringify(untimed(b));

async function send(app: FastifyInstance, method: string, url: string, payload?: unknown) {
  return await app.inject({
    method: method as never, url, headers: payload === undefined ? ADMIN : JSON_ADMIN,
    ...(payload === undefined ? {} : { payload: payload as never }),
  });
}

/** Replays a recorded request and checks status, Location and body (error names per docs/rules.md D1). */
async function replayCase(t: Test, app: FastifyInstance, name: string): Promise<LightMyRequestResponse> {
  const { request, response } = refCase(name);
  const res = await send(app, request.method, request.path, request.body ?? undefined);
  t.equal(res.statusCode, response.status, `${name}: status ${res.body}`);
  if (response.location) t.equal(res.headers.location, response.location, `${name}: Location`);
  if (response.body === null || response.body === undefined) {
    t.equal(res.body, '', `${name}: no body`);
  } else if (response.status >= 400) {
    const body = res.json();
    t.equal(body.name, response.body.name === 'BadDataError' ? 'ValidationError' : response.body.name, `${name}: error name`);
    t.equal(body.message, response.body.message, `${name}: message`);
    t.same(body.details, response.body.details, `${name}: details`);
  } else {
    t.ok(sameText(res.json(), response.body), `${name}: body and key order\n${res.body}\n${JSON.stringify(response.body)}`);
  }
  return res;
}

/** Our events after `since` against the reference's, by id: type, data and preData with their key order. */
async function checkEvents(t: Test, app: FastifyInstance, since: number, refIds: number[]) {
  const ours = await eventsAfter(app, since);
  t.equal(ours.length, refIds.length, `${refIds.length} events: ${ours.map((e) => e.type).join(', ')}`);
  refIds.forEach((id, i) => {
    const ref = REF.events[String(id)];
    const our = ours[i];
    if (!our) return;
    t.equal(our.type, ref.type, `event ${id}: type`);
    t.ok(sameText(our.data, ref.data), `event ${id}: data\n${JSON.stringify(our.data)}\n${JSON.stringify(ref.data)}`);
    t.ok(sameText(our.preData, ref.preData), `event ${id}: preData\n${JSON.stringify(our.preData)}\n${JSON.stringify(ref.preData)}`);
    t.equal(our.project, null, `event ${id}: no project`);
    t.equal(our.groupType, 'transaction', `event ${id}: transactional, as the reference's`);
  });
}

t.test('context fields', async (t) => {
  const app = await buildTestApp(t);

  await t.test('a fresh instance lists the five built-in fields as the reference does', async (t) => {
    const res = await send(app, 'GET', '/api/admin/context');
    t.equal(res.statusCode, 200);
    t.ok(sameText(res.json(), REF.freshList.response.body), res.body);
    const one = await send(app, 'GET', '/api/admin/context/sessionId');
    t.same(Object.keys(one.json()), ['name', 'description', 'stickiness', 'sortOrder', 'legalValues', 'createdAt'], 'no usage counts on one field');
    t.equal(one.json().stickiness, true);
  });

  await t.test('create: 201, Location, body and created events as recorded', async (t) => {
    const since = await lastEventId(app);
    for (const name of ['create-full', 'create-min']) await replayCase(t, app, name);
    await replayCase(t, app, 'get-full');
    await replayCase(t, app, 'get-min');
    await checkEvents(t, app, since, [27, 28]);
  });

  await t.test('create: coercion, extra keys and the values joi keeps, with their events', async (t) => {
    const since = await lastEventId(app);
    for (const name of ['create-extra-key', 'create-number-name', 'create-desc-null', 'create-stick-str', 'create-sort-neg']) {
      await replayCase(t, app, name);
    }
    await checkEvents(t, app, since, [29, 30, 31, 32, 33]);
    const tilde = await replayCase(t, app, 'create-tilde');
    t.equal(tilde.json().name, "hx-~*'()!.", 'encodeURIComponent leaves these alone');
  });

  await t.test('create: 409 before 400, then the body rules in joi\'s order', async (t) => {
    const since = await lastEventId(app);
    for (const name of [
      'create-dup', 'create-dup-builtin', 'create-dup-and-bad', 'create-missing-name', 'create-empty-name', 'create-bad-name',
      'create-long-name', 'create-multi', 'create-unicode', 'create-dup-legal', 'create-empty-legal', 'create-legal-extra',
      'create-legal-missing-value', 'create-sort-float', 'create-long-desc', 'create-legal-null', 'create-lv-order', 'create-lv-order2',
      'create-lv-long', 'create-desc-and-lv-bad',
    ]) await replayCase(t, app, name);
    t.same(await eventsAfter(app, since), [], 'nothing recorded');
  });

  await t.test('create: an unknown project is a 404 naming it (the reference fails its foreign key with a 500)', async (t) => {
    const res = await send(app, 'POST', '/api/admin/context', { name: 'hx-proj', project: 'hx-no-such-project' });
    t.equal(res.statusCode, 404);
    t.equal(res.json().message, 'Could not find project with id "hx-no-such-project"');
    t.equal((await send(app, 'GET', '/api/admin/context/hx-proj')).statusCode, 404, 'not created');
  });

  await t.test('update: description kept when absent, stickiness and legal values reset, sortOrder to 0; events as recorded', async (t) => {
    const since = await lastEventId(app);
    for (const name of [
      'create-order', 'put-partial', 'get-after-put-partial', 'put-full', 'get-after-put-full', 'put-empty', 'get-after-put-empty',
      'put-name-in-body',
    ]) await replayCase(t, app, name);
    await checkEvents(t, app, since, [35, 36, 37, 38, 39]);

    const quiet = await lastEventId(app);
    await replayCase(t, app, 'put-same');
    t.same(await eventsAfter(app, quiet), [], 'a PUT of the stored values records nothing');
    await replayCase(t, app, 'get-order');

    for (const name of ['put-unknown', 'put-dup-legal', 'put-long-desc', 'put-sort-float']) await replayCase(t, app, name);
    const noBody = await send(app, 'PUT', '/api/admin/context/hx-order');
    t.ok(noBody.statusCode >= 400 && noBody.statusCode < 500, 'a PUT without a body is refused (the reference: 415)');
  });

  await t.test('update of a built-in field: its sortOrder is reset too, as on the reference', async (t) => {
    const since = await lastEventId(app);
    await replayCase(t, app, 'put-builtin');
    await checkEvents(t, app, since, [40]);
    const res = await send(app, 'GET', '/api/admin/context/appName');
    t.equal(res.json().sortOrder, 0);
  });

  await t.test('legal values: add, replace, remove; no event when nothing changes', async (t) => {
    const since = await lastEventId(app);
    for (const name of ['create-lv', 'lv-add', 'lv-update', 'lv-update-nodesc', 'lv-same', 'get-lv']) await replayCase(t, app, name);
    for (const name of ['lv-empty', 'lv-long', 'lv-missing', 'lv-extra', 'lv-unknown-field']) await replayCase(t, app, name);
    for (const name of ['lv-desc-null', 'lv-del', 'lv-del-missing', 'lv-del-unknown-field', 'get-lv2']) await replayCase(t, app, name);
    await checkEvents(t, app, since, [48, 49, 50, 51, 52, 53]);
  });

  await t.test('validate: 200, 409 for any existing name, 400 for bad names', async (t) => {
    for (const name of [
      'validate-ok', 'validate-exists', 'validate-builtin', 'validate-bad', 'validate-empty', 'validate-missing', 'validate-extra',
      'validate-long', 'validate-number', 'validate-dot', 'validate-multi',
    ]) await replayCase(t, app, name);
  });

  await t.test('delete: 404 for an unknown field, 200 and the deleted event; built-in fields too', async (t) => {
    await replayCase(t, app, 'del-unknown');
    const since = await lastEventId(app);
    await replayCase(t, app, 'del-min');
    await checkEvents(t, app, since, [54]);
    await replayCase(t, app, 'get-deleted');
    await replayCase(t, app, 'del-builtin');
    await replayCase(t, app, 'get-builtin-deleted');
    await replayCase(t, app, 'recreate-builtin');
  });

  await t.test('strategies using a field, usage counts and the 409 on deleting a field in use', async (t) => {
    const flags = '/api/admin/projects/default/features';
    for (const name of ['hx-cf-flag1', 'hx-cf-flag2', 'hx-cf-archived']) t.equal((await send(app, 'POST', flags, { name })).statusCode, 201);
    const add = async (flag: string, env: string, name: string, constraints: unknown[]) => {
      const res = await send(app, 'POST', `${flags}/${flag}/environments/${env}/strategies`, { name, constraints });
      t.equal(res.statusCode, 200, res.body);
      return res.json().id as string;
    };
    const s1 = await add('hx-cf-flag1', 'development', 'flexibleRollout', [{ contextName: 'hx-lv', operator: 'IN', values: ['a', 'b'] }]);
    const s2 = await add('hx-cf-flag2', 'production', 'default', [
      { contextName: 'hx-undefined-field', operator: 'IN', values: ['q'] }, { contextName: 'hx-lv', operator: 'NOT_IN', values: ['b'] },
    ]);
    const s3 = await add('hx-cf-flag2', 'development', 'default', [{ contextName: 'hx-lv', operator: 'IN', values: ['a'] }]);
    await add('hx-cf-archived', 'development', 'default', [{ contextName: 'hx-lv', operator: 'IN', values: ['a'] }]);
    t.equal((await send(app, 'DELETE', `${flags}/hx-cf-archived`)).statusCode, 202, 'archived: not counted');

    const ref = refCase('strategies-lv').response.body.strategies as Array<Record<string, string>>;
    const res = await send(app, 'GET', '/api/admin/context/hx-lv/strategies');
    t.equal(res.statusCode, 200);
    const ours = res.json().strategies as Array<Record<string, string>>;
    t.same(ours.map((s) => s.id), [s1, s2, s3], 'in the order they were added');
    t.same(ours.map((s) => ({ ...s, id: '' })), ref.map((s) => ({ ...s, id: '' })), 'fields as recorded');
    t.same(Object.keys(ours[0]!), Object.keys(ref[0]!), 'key order as recorded');
    const undef = await send(app, 'GET', '/api/admin/context/hx-undefined-field/strategies');
    t.same(undef.json().strategies.map((s: { id: string }) => s.id), [s2], 'an unknown field is answered too');
    await replayCase(t, app, 'strategies-unknown');

    const list = (await send(app, 'GET', '/api/admin/context')).json<Array<Record<string, unknown>>>();
    const lv = list.find((f) => f.name === 'hx-lv')!;
    t.same([lv.usedInProjects, lv.usedInFeatures], [1, 2], 'as the reference counted');
    t.same(Object.keys(lv), ['name', 'description', 'stickiness', 'sortOrder', 'legalValues', 'createdAt', 'usedInProjects', 'usedInFeatures']);

    const since = await lastEventId(app);
    await replayCase(t, app, 'del-in-use');
    await replayCase(t, app, 'lv-del-in-use');
    await checkEvents(t, app, since, [67]);
  });

  await t.test('list order is by code unit (the reference\'s C collation)', async (t) => {
    for (const name of ['create-B', 'create-a', 'create-under']) await replayCase(t, app, name);
    const names = ((await send(app, 'GET', '/api/admin/context')).json<Array<{ name: string }>>()).map((f) => f.name);
    const ref = (refCase('root-list2').response.body as Array<{ name: string }>).map((f) => f.name);
    t.same(names.filter((n) => ref.includes(n)), ref.filter((n) => names.includes(n)));
    t.ok(names.indexOf('hx-B') < names.indexOf('hx-a') && names.indexOf('hx_z') > names.indexOf('hx-tier'));
  });

  await t.test('project-scoped fields', async (t) => {
    const since = await lastEventId(app);
    for (const name of ['p-create', 'p-create-body-project', 'p-create-conflicting-project']) await replayCase(t, app, name);
    await checkEvents(t, app, since, [68, 69, 70]);
    for (const name of ['p-list', 'root-get-pf', 'p-get-pf', 'otherp-get-pf']) await replayCase(t, app, name);
    // Recorded while the reference's appName had sortOrder 0 (after a PUT); here it was recreated with 2.
    const rootField = await send(app, 'GET', '/api/admin/projects/default/context/appName');
    t.same({ ...rootField.json(), sortOrder: 0 }, untimedLike(rootField.json(), refCase('p-get-root-field').response.body), 'a root field on a project path');

    const names = async (url: string) => ((await send(app, 'GET', url)).json<Array<{ name: string; project?: string }>>())
      .map((f) => (f.project ? `${f.name}@${f.project}` : f.name));
    const root = await names('/api/admin/context');
    t.notOk(root.some((n) => n.includes('@')), 'the root list leaves project fields out');
    const withProjects = await names('/api/admin/context?include=project');
    t.ok(['hx-pf@default', 'hx-pf2@default', 'hx-pf3@default'].every((n) => withProjects.includes(n)), 'include=project adds them');
    t.same(await names('/api/admin/projects/default/context?include=ROOT'), withProjects, 'include=root (any case): the project\'s and the root ones');
    t.same(await names('/api/admin/context?include=xyz'), root, 'another include changes nothing');
    t.same(await names('/api/admin/projects/hx-noproj/context'), [], 'an unknown project has none');

    const updates = await lastEventId(app);
    for (const name of ['p-put-root-field', 'p-put-pf', 'p-get-pf2', 'root-put-pf', 'root-get-pf2', 'p-lv-root-field', 'p-lv-pf']) {
      await replayCase(t, app, name);
    }
    await checkEvents(t, app, updates, [71, 72, 73]);
    for (const name of ['p-validate-exists', 'p-validate-root-exists', 'p-del-root-field', 'p-del-unknown']) await replayCase(t, app, name);
    const deletes = await lastEventId(app);
    await replayCase(t, app, 'p-del-pf2');
    await checkEvents(t, app, deletes, [74]);

    const unknown = await send(app, 'POST', '/api/admin/projects/hx-noproj/context', { name: 'hx-pf4' });
    t.equal(unknown.statusCode, 404, 'an unknown project: 404 (the reference: 500 from its foreign key)');
  });

  await t.test('the event search labels and summarises the events as Unleash does', async (t) => {
    const res = await send(app, 'GET', '/api/admin/search/events?type=IS_ANY_OF:context-field-created,context-field-updated,context-field-deleted&limit=200');
    const byType = new Map<string, { label: string; summary: string }>();
    for (const e of res.json().events) if (!byType.has(e.type)) byType.set(e.type, e);
    t.equal(byType.get('context-field-created')?.label, 'Context field created');
    t.equal(byType.get('context-field-deleted')?.summary, '**admin** deleted context field **hx-pf2**');
    t.match(byType.get('context-field-updated')?.summary, /^\*\*admin\*\* updated context field \*\*[^*]+\*\*$/);
  });
});

// -------------------------------------------------------------------------------------------------
// Root roles (docs/rules.md §2.2): reads for everyone signed in; the context-field permissions are
// not among the Editor's, so changes are the Admin's.

const JSON_ONLY = { 'content-type': 'application/json' };
const ADMIN_PASSWORD = 'First-Admin-Pass-1';

t.test('permissions: Viewer reads, Editor and Admin change (the Editor role holds the context-field permissions, measured)', async (t) => {
  const app = await buildTestApp(t, { INIT_ADMIN_USER: 'root@example.com', INIT_ADMIN_PASSWORD: ADMIN_PASSWORD });
  await userWithRole(app, 'viewer', 3);
  await userWithRole(app, 'editor', 2);
  const sessions = {
    viewer: await login(app, 'viewer', STRONG),
    editor: await login(app, 'editor', STRONG),
    admin: await login(app, 'root@example.com', ADMIN_PASSWORD),
  };
  const call = (who: keyof typeof sessions, method: string, url: string, payload?: unknown) => app.inject({
    method: method as never, url,
    headers: payload === undefined ? { cookie: sessions[who], origin: ORIGIN } : { cookie: sessions[who], origin: ORIGIN, ...JSON_ONLY },
    ...(payload === undefined ? {} : { payload: payload as never }),
  });

  for (const who of ['viewer', 'editor'] as const) {
    t.equal((await call(who, 'GET', '/api/admin/context')).statusCode, 200, `${who}: list`);
    t.equal((await call(who, 'GET', '/api/admin/context/userId')).statusCode, 200, `${who}: one field`);
    t.equal((await call(who, 'GET', '/api/admin/context/userId/strategies')).statusCode, 200, `${who}: strategies`);
    t.equal((await call(who, 'GET', '/api/admin/projects/default/context')).statusCode, 200, `${who}: project list`);
    const checks: Array<[string, string, unknown, string]> = [
      ['POST', '/api/admin/context', { name: `by-${who}` }, 'CREATE_CONTEXT_FIELD'],
      ['PUT', '/api/admin/context/userId', { description: 'x' }, 'UPDATE_CONTEXT_FIELD'],
      ['POST', '/api/admin/context/validate', { name: 'free' }, 'UPDATE_CONTEXT_FIELD'],
      ['POST', '/api/admin/context/userId/legal-values', { value: 'x' }, 'UPDATE_CONTEXT_FIELD'],
      ['DELETE', '/api/admin/context/userId/legal-values/x', undefined, 'UPDATE_CONTEXT_FIELD'],
      ['DELETE', '/api/admin/context/userId', undefined, 'DELETE_CONTEXT_FIELD'],
      ['POST', '/api/admin/projects/default/context', { name: `p-by-${who}` }, 'CREATE_CONTEXT_FIELD'],
    ];
    for (const [method, url, payload, permission] of checks) {
      if (who === 'editor') continue;
      const res = await call(who, method, url, payload);
      t.equal(res.statusCode, 403, `${who}: ${method} ${url}`);
      t.same(res.json().permissions, [permission]);
      t.equal(res.json().name, 'NoAccessError');
    }
  }

  t.equal((await call('editor', 'POST', '/api/admin/context', { name: 'by-editor' })).statusCode, 201, 'an Editor creates a field');
  t.equal((await call('editor', 'PUT', '/api/admin/context/by-editor', { description: 'x' })).statusCode, 200);
  t.equal((await call('editor', 'DELETE', '/api/admin/context/by-editor')).statusCode, 200);
  const created = await call('admin', 'POST', '/api/admin/context', { name: 'by-admin' });
  t.equal(created.statusCode, 201, created.body);
  t.equal((await call('admin', 'PUT', '/api/admin/context/by-admin', { description: 'x' })).statusCode, 200);
  t.equal((await call('admin', 'DELETE', '/api/admin/context/by-admin')).statusCode, 200);
  const events = (await eventsAfter(app, 0)).filter((e) => String(e.type).startsWith('context-field-') && e.createdBy === 'root@example.com');
  t.same(events.map((e) => [e.type, e.createdBy]), [
    ['context-field-created', 'root@example.com'], ['context-field-updated', 'root@example.com'], ['context-field-deleted', 'root@example.com'],
  ], 'recorded under the person');
});

t.test('built-in fields are created once: one deleted stays deleted after a restart', async (t) => {
  const app = await buildTestApp(t);
  t.equal((await send(app, 'DELETE', '/api/admin/context/currentTime')).statusCode, 200);
  await app.stores.contextFields.init();
  t.equal((await send(app, 'GET', '/api/admin/context/currentTime')).statusCode, 404);
  t.same(((await send(app, 'GET', '/api/admin/context')).json<Array<{ name: string }>>()).map((f) => f.name),
    ['appName', 'environment', 'sessionId', 'userId']);
});
