/**
 * Operations on several of a project's flags at once (archive and its validation, revive, delete,
 * one archived flag's deletion, on/off, tags), replayed from the scenario recorded on the Unleash
 * 8.2 reference: each call's status, body and events. What Vane answers differently on purpose is
 * asserted apart, below the replay.
 */
import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, eventsAfter, lastEventId, send } from '../../helpers/app.js';
import { asPerson, roleCookies } from '../../helpers/sessions.js';
import { fixture } from '../../helpers/samples.js';

interface Step {
  note: string;
  method: string;
  path: string;
  body: unknown;
  check: boolean;
  /** The reference recorded the events of several flags in its table's row order or concurrently. */
  unordered: boolean;
  status: number;
  response: Record<string, unknown> | null;
  events: Array<Record<string, unknown>>;
}

const SCENARIO = fixture('flags-bulk/scenario.json') as { steps: Step[] };
const PERMISSIONS = fixture('flags-bulk/permissions.json') as { routes: Record<string, Record<string, { status: number; message: string | null }>> };
const R = 'bk';
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const EVENT_KEYS = ['type', 'featureName', 'project', 'environment', 'data', 'preData', 'tags'] as const;

const named = <T>(value: T): T => (value === undefined ? value : JSON.parse(JSON.stringify(value).replaceAll('{R}', R)) as T);

/** As the recorder normalised the reference's: strategy ids and times replaced. */
function normalise(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((item) => normalise(item, key));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalise(v, k)]));
  if (typeof value === 'string' && (key === 'createdAt' || key === 'archivedAt')) return '<time>';
  if (typeof value === 'string' && key === 'id' && ULID.test(value)) return '<id>';
  return value;
}

/** Stable by flag: the order of one flag's own events is kept. */
const byFlag = (events: Array<Record<string, unknown>>) =>
  events.map((e, i) => ({ e, i })).sort((a, b) => String(a.e.featureName).localeCompare(String(b.e.featureName)) || a.i - b.i).map(({ e }) => e);

async function eventsOf(app: FastifyInstance, after: number) {
  const events = JSON.parse(JSON.stringify(await eventsAfter(app, after))) as Array<Record<string, unknown>>;
  return events.map((event) => normalise(Object.fromEntries(EVENT_KEYS.map((k) => [k, event[k] ?? null]))) as Record<string, unknown>);
}

t.test('the recorded scenario: statuses, bodies and events as Unleash 8.2 answers them', async (t) => {
  const app = await buildTestApp(t);
  for (const step of SCENARIO.steps) {
    const after = await lastEventId(app);
    const res = await send(app, step.method, named(step.path), named(step.body ?? undefined));
    const label = `${step.method} ${step.path} ${JSON.stringify(step.body)} ${step.note}`;
    t.equal(res.statusCode, step.status, label);
    if (!step.check) continue;
    const expected = named(step.response);
    if (expected === null) t.equal(res.body, '', `${label}: no body`);
    else if (step.status < 300) t.equal(res.body, JSON.stringify(expected), `${label}: the body, key order included`);
    else {
      const body = res.json();
      // D1: Vane names a 400 of bad data ValidationError (Unleash: BadDataError).
      t.equal(body.name, expected.name === 'BadDataError' ? 'ValidationError' : expected.name, `${label}: error name`);
      t.equal(body.message, expected.message, `${label}: message`);
      t.same(body.details, expected.details, `${label}: details`);
    }
    // Unleash orders a flag's tags in an event by flag name only: within one flag, as its query plan
    // reads them (insertion order on the small table of this recording, by type and value later).
    const tagSets = (list: Array<Record<string, unknown>>) => list.map((e) => ({ ...e, tags: [...(e.tags as unknown[] ?? [])].map((x) => JSON.stringify(x)).sort() }));
    const events = tagSets(await eventsOf(app, after));
    const recorded = tagSets(named(step.events));
    t.same(step.unordered ? byFlag(events) : events, step.unordered ? byFlag(recorded) : recorded, `${label}: events`);
  }
});

t.test('a bulk write is all or nothing: the flags before a refused one are unchanged', async (t) => {
  const app = await buildTestApp(t);
  for (const name of ['one', 'two', 'old']) await send(app, 'POST', '/api/admin/projects/default/features', { name });
  await send(app, 'POST', '/api/admin/projects/default/archive', { features: ['old'] });
  const after = await lastEventId(app);
  const on = await send(app, 'POST', '/api/admin/projects/default/bulk_features/environments/development/on', { features: ['one', 'two', 'old'] });
  t.equal(on.statusCode, 400);
  t.equal(on.json().name, 'ArchivedFeatureError');
  const one = (await send(app, 'GET', '/api/admin/projects/default/features/one')).json();
  t.same(one.environments.map((e: { enabled: boolean; strategies: unknown[] }) => [e.enabled, e.strategies.length]), [[false, 0], [false, 0]], 'no strategy added, still off');
  t.same(await eventsAfter(app, after), [], 'nothing recorded');
  // Measured on the reference, one flag or several: the environment is checked before the archive mark.
  const unknown = await send(app, 'POST', '/api/admin/projects/default/bulk_features/environments/nope/on', { features: ['old'] });
  t.equal(unknown.statusCode, 404);
  t.equal(unknown.json().message, 'Could not find environment nope for feature: old');
  t.equal((await send(app, 'POST', '/api/admin/projects/default/features/old/environments/nope/on')).statusCode, 404);
});

t.test('Vane\'s deliberate differences', async (t) => {
  const app = await buildTestApp(t);
  await send(app, 'POST', '/api/admin/projects/default/features', { name: 'kept' });
  let after = await lastEventId(app);
  // D10: Unleash creates the tags, then fails with 500 (a foreign key); Vane refuses first.
  const tags = await send(app, 'PUT', '/api/admin/projects/default/tags', {
    features: ['kept', 'nowhere'], tags: { addedTags: [{ type: 'simple', value: 'fresh' }], removedTags: [] },
  });
  t.equal(tags.statusCode, 404);
  t.equal(tags.json().message, 'Could not find feature flag "nowhere"');
  t.same(await eventsAfter(app, after), [], 'no tag created');

  // Unleash runs each flag's on concurrently: a name given twice added two strategies; once here.
  after = await lastEventId(app);
  t.equal((await send(app, 'POST', '/api/admin/projects/default/bulk_features/environments/development/on', { features: ['kept', 'kept'] })).statusCode, 200);
  t.same((await eventsAfter(app, after)).map((e) => e.type), ['feature-strategy-add', 'feature-environment-enabled']);

  // Tag events of a bulk carry the flag's tags after the whole change (the untag too), without colours.
  after = await lastEventId(app);
  await send(app, 'PUT', '/api/admin/projects/default/tags', {
    features: ['kept'], tags: { addedTags: [{ type: 'simple', value: 'zz' }, { type: 'simple', value: 'aa' }], removedTags: [{ type: 'simple', value: 'zz' }] },
  });
  t.same((await eventsAfter(app, after)).filter((e) => e.featureName).map((e) => [e.type, e.tags]), [
    ['feature-tagged', [{ value: 'aa', type: 'simple' }]],
    ['feature-tagged', [{ value: 'aa', type: 'simple' }]],
    ['feature-untagged', [{ value: 'aa', type: 'simple' }]],
  ]);
});

t.test('permissions: Viewer refused, Editor allowed, client and frontend tokens refused (as measured)', async (t) => {
  const app = await buildTestApp(t);
  const { viewer, editor } = await roleCookies(app);
  const tokens: Record<string, string> = {};
  for (const type of ['client', 'frontend']) {
    const res = await send(app, 'POST', '/api/admin/api-tokens', { tokenName: `bulk-${type}`, type, environment: 'development', projects: ['*'] });
    tokens[type] = res.json().secret as string;
  }
  for (const [route, expected] of Object.entries(PERMISSIONS.routes)) {
    const [method, template] = route.split(' ') as [string, string];
    const url = template.replace('{projectId}', 'default').replace('{missing}', 'no-such-flag');
    const body = method === 'DELETE' ? undefined : url.endsWith('/tags') ? { features: [], tags: { addedTags: [], removedTags: [] } } : { features: [] };
    const as = async (given: Record<string, string>) => (await app.inject({
      method: method as never, url, headers: Object.fromEntries(Object.entries({ ...given, 'content-type': 'application/json' }).filter(([k]) => body !== undefined || k !== 'content-type')),
      ...(body === undefined ? {} : { payload: body }),
    })).statusCode;
    t.equal(await as(asPerson(viewer)), expected.viewer!.status, `${route} viewer`);
    t.equal(await as(asPerson(editor)), expected.editor!.status, `${route} editor`);
    t.equal(await as({ authorization: tokens.client! }), expected.client!.status, `${route} client token`);
    t.equal(await as({ authorization: tokens.frontend! }), expected.frontend!.status, `${route} frontend token`);
    t.equal(await as({}), expected.none!.status, `${route} no header`);
  }
});
