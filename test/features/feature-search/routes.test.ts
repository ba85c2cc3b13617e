/**
 * The feature search, lifecycle counts and flag creators against answers recorded from Unleash 8.2
 * (test/fixtures/feature-search/reference.json: the same flags, created there through the API,
 * and every query below asked of it).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { FastifyInstance } from 'fastify';
import { ADMIN, JSON_ADMIN, buildTestApp, send } from '../../helpers/app.js';
import { ORIGIN, changeUser, login, userWithRole } from '../../helpers/sessions.js';
import type { FlagData } from '../../../src/features/flags/read-model.js';

interface RecordedCase {
  query: string;
  status: number;
  body: unknown;
}

/** Each flag as the reference holds it (its creation time, stage, archive time). */
type RecordedFlags = Record<string, { createdAt: string; lifecycle: { stage: string; enteredStageAt: string } | null; archivedAt: string | null }>;

interface Reference {
  prefix: string;
  run: string;
  flags: RecordedFlags;
  lastSeenAt: string;
  cases: RecordedCase[];
  extra: Record<string, { status: number; body: unknown }>;
  later: { lastSeenAt: string; flags: RecordedFlags; cases: RecordedCase[] };
}

const fixture = join(process.cwd(), 'test/fixtures/feature-search/reference.json');
const ref = JSON.parse(readFileSync(fixture, 'utf8')) as Reference;
const P = ref.prefix;
const R = ref.run;
const FLAGS = '/api/admin/projects/default/features';

async function ok(res: { statusCode: number; body: string }, what: string, status = 200) {
  if (res.statusCode !== status) throw new Error(`${what}: ${res.statusCode} ${res.body}`);
}

/**
 * The lifecycle writes a metrics report starts in the background (FlagRewrites.metricsSeen), done:
 * the same call again queues behind each of them, flag by flag, so the stages aligned next stay.
 */
async function settleLifecycle(app: FastifyInstance, ...reports: Array<[string, string[]]>): Promise<void> {
  for (const [environment, names] of reports) await app.services.flags.rewrites.metricsSeen(environment, names);
}

/** Replays on Vane what was done on the reference (see the fixture's `flags`). */
async function seed(app: FastifyInstance): Promise<number> {
  for (const value of ['alpha', 'beta', 'gamma:x']) await ok(await send(app, 'POST', '/api/admin/tags', { type: 'simple', value: `hs${R}${value}` }), 'tag', 201);
  const flag = async (name: string, body: Record<string, unknown> = {}) => {
    await ok(await send(app, 'POST', FLAGS, { name: P + name, ...body }), name, 201);
    // Distinct creation instants, as on the reference (ties would order by name).
    await new Promise((r) => setTimeout(r, 3));
  };
  for (const n of ['lc1', 'lc2', 'lc3', 'lc4']) await flag(n);
  await ok(await send(app, 'POST', `${FLAGS}/${P}lc1/environments/development/on`), 'on');
  for (const n of ['lc3', 'lc4']) await ok(await send(app, 'POST', `${FLAGS}/${P}${n}/environments/production/on`), 'on');

  // The reference's signed-in user is its user 2, "Hs User <run>" with only an e-mail.
  await userWithRole(app, 'filler', 1);
  const userId = await userWithRole(app, `hs${R}`, 1);
  await changeUser(app, userId, (u) => ({ ...u, name: `Hs User ${R}`, email: `hs-${R}@example.com`, username: null, usernameKey: `id:${userId}` }));
  const cookie = await login(app, `hs-${R}@example.com`, 'Correct-Horse-9');
  await ok(await app.inject({
    method: 'POST', url: FLAGS, headers: { cookie, origin: ORIGIN, 'content-type': 'application/json' },
    payload: { name: `${P}byuser`, type: 'experiment', description: 'Made by A User' },
  }), 'byuser', 201);
  await new Promise((r) => setTimeout(r, 3));

  for (const n of ['seg1', 'seg2']) await ok(await send(app, 'POST', '/api/admin/segments', { name: P + n, constraints: [] }), n, 201);
  await flag('c', { type: 'operational' });
  await ok(await send(app, 'POST', `${FLAGS}/${P}c/environments/production/strategies`, { name: 'default', disabled: true, segments: [2] }), 'c strategy');
  await flag('e', { type: 'permission', description: 'Child of A_x' });
  await flag('f_under', { type: 'release', description: '100% sure' });
  const A = { type: 'simple', value: `hs${R}alpha` };
  const B = { type: 'simple', value: `hs${R}beta` };
  await flag('a', { type: 'release', description: 'Alpha Flag', tags: [A, B] });
  await ok(await send(app, 'POST', `${FLAGS}/${P}a/environments/development/strategies`, { name: 'default', segments: [1] }), 'a dev');
  await ok(await send(app, 'POST', `${FLAGS}/${P}a/environments/production/strategies`, { name: 'default', segments: [2, 1] }), 'a prod');
  const variant = (name: string) => ({ name, weight: 500, weightType: 'variable', stickiness: 'default' });
  await ok(await send(app, 'PUT', `${FLAGS}/${P}a/environments/development/variants`, [variant('v1'), variant('v2')]), 'variants');
  await ok(await send(app, 'POST', `${FLAGS}/${P}a/environments/development/on`), 'a on');
  await flag('b', { type: 'experiment', description: 'beta thing', tags: [B, { type: 'simple', value: `hs${R}gamma:x` }] });
  await ok(await send(app, 'POST', `${FLAGS}/${P}b/environments/production/on`), 'b on');
  await flag('d', { type: 'kill-switch', tags: [A] });
  await ok(await send(app, 'DELETE', `${FLAGS}/${P}d`), 'archive', 202);
  await ok(await send(app, 'POST', `${FLAGS}/${P}e/dependencies`, { feature: `${P}a` }), 'dependency');

  await align(app, ref.flags);
  // The SDK metrics the reference received: lc1 in development, lc2 and lc3 in production, seen
  // at one instant (its flush).
  const seenAt = new Date(ref.lastSeenAt);
  app.services.metrics.record('development', 'hs-app', seenAt, { [`${P}lc1`]: { yes: 3, no: 1 } }, seenAt);
  app.services.metrics.record('production', 'hs-app', seenAt, { [`${P}lc2`]: { yes: 0, no: 5 }, [`${P}lc3`]: { yes: 7, no: 0 } }, seenAt);
  await settleLifecycle(app, ['development', [`${P}lc1`]], ['production', [`${P}lc2`, `${P}lc3`]]);
  return userId;
}

/**
 * What Vane has no API for, or derives otherwise, written as the reference holds it: the creation
 * instants (the recorded dates), `b` stale, and each stage as the reference's metrics left it.
 */
async function align(app: FastifyInstance, flags: RecordedFlags): Promise<void> {
  for (const [name, want] of Object.entries(flags)) {
    const current = await app.stores.flags.get(name);
    if (!current) throw new Error(`no flag ${name}`);
    const next: FlagData = {
      ...current,
      createdAt: new Date(want.createdAt),
      stale: name === `${P}b`,
      lifecycle: want.lifecycle ? { stage: want.lifecycle.stage as FlagData['lifecycle']['stage'], enteredStageAt: new Date(want.lifecycle.enteredStageAt) } : current.lifecycle,
      ...(want.archivedAt ? { archivedAt: new Date(want.archivedAt) } : {}),
    };
    await app.stores.flags.replace(current, next, []);
  }
}

/**
 * yes/no count the last hour of the clock the test runs at: compared apart. Tags in value order:
 * Unleash lists them in its join's row order, which varies (the same flag's tags came back
 * alpha, beta in one answer and beta, alpha in another).
 */
function comparable(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body), (key, value: unknown) => {
    if (key === 'yes' || key === 'no') return 0;
    if (key === 'tags' && Array.isArray(value)) return [...(value as Array<{ value: string }>)].sort((a, b) => a.value.localeCompare(b.value));
    return value;
  });
}

/** Error ids differ per request. */
function withoutIds(body: unknown): unknown {
  if (body && typeof body === 'object' && 'id' in body && 'details' in body) {
    const { id: _id, ...rest } = body as Record<string, unknown>;
    return rest;
  }
  return body;
}

async function compare(t: Test, app: FastifyInstance, cases: RecordedCase[]): Promise<void> {
  for (const c of cases) {
    const res = await app.inject({ method: 'GET', url: `/api/admin/search/features?${c.query}`, headers: ADMIN });
    const got: unknown = res.json();
    t.equal(res.statusCode, c.status, `${c.query}: status`);
    if (c.status === 200) {
      t.strictSame(comparable(got), comparable(c.body), `${c.query}: body`);
      t.equal(res.body.indexOf('"features"'), 1, 'features first, total last');
    } else {
      const { name, message, details } = withoutIds(got) as { name: string; message: string; details: unknown };
      const want = withoutIds(c.body) as { name: string; message: string; details: unknown };
      t.same({ name, message, details }, { ...want, name: want.name === 'BadDataError' ? 'ValidationError' : want.name }, `${c.query}: error`);
    }
  }
}

t.test('feature search against the recorded Unleash 8.2 answers', async (t) => {
  const app = await buildTestApp(t);
  await seed(app);
  await compare(t, app, ref.cases);

  await t.test('later: a flag named in upper case, metrics in production (name order by code point, last-seen order)', async (t) => {
    await ok(await send(app, 'POST', FLAGS, { name: `${P}Zed` }), 'Zed', 201);
    const seenAt = new Date(ref.later.lastSeenAt);
    app.services.metrics.record('production', 'hs-app', seenAt, { [`${P}lc1`]: { yes: 1, no: 1 }, [`${P}lc4`]: { yes: 2, no: 0 } }, seenAt);
    await settleLifecycle(app, ['production', [`${P}lc1`, `${P}lc4`]]);
    await align(app, ref.later.flags);
    await compare(t, app, ref.later.cases);
  });

  await t.test('where Unleash answers 500 from its SQL', async (t) => {
    const names = async (query: string) => {
      const res = await app.inject({ method: 'GET', url: `/api/admin/search/features?query=${P}&${query}`, headers: ADMIN });
      return [res.statusCode, res.json().features?.map((f: { name: string }) => f.name.slice(P.length)), res.json().total];
    };
    t.same(await names('limit=2.5'), [200, ['lc1', 'lc2'], 11], 'a fractional limit is rounded down');
    t.same(await names('offset=1.5&limit=2'), [200, ['lc2', 'lc3'], 11], 'a fractional offset too');
    t.same(await names('createdBy=IS:abc'), [200, [], 0], 'a creator id that is not a number matches nobody');
    for (const day of ['2026-02-30', '2026-13-01']) {
      const res = await app.inject({ method: 'GET', url: `/api/admin/search/features?createdAt=IS_BEFORE:${day}`, headers: ADMIN });
      t.equal(res.statusCode, 400);
      t.same(res.json().details, [{
        message: `The \`/query/createdAt\` property must be a valid calendar date. You sent "IS_BEFORE:${day}".`, path: '/query/createdAt',
      }]);
    }
    t.same(await names('lastSeenAt=IS_BEFORE:2026-02-29'), [400, undefined, undefined], 'lastSeenAt as well');
  });

  await t.test('a query of separators only filters nothing', async (t) => {
    const res = await app.inject({ method: 'GET', url: '/api/admin/search/features?query=%20,%20,&limit=1', headers: ADMIN });
    t.same([res.json().total, res.json().features.map((f: { name: string }) => f.name)], [11, [`${P}lc1`]]);
  });

  await t.test('key order of a flag and its environments', async (t) => {
    const res = await app.inject({ method: 'GET', url: `/api/admin/search/features?query=${P}a`, headers: ADMIN });
    const a = res.json().features.find((f: { name: string }) => f.name === `${P}a`);
    t.same(Object.keys(a), [
      'type', 'description', 'project', 'favorite', 'name', 'createdAt', 'stale', 'archivedAt', 'impressionData', 'dependencyType',
      'environments', 'segments', 'createdBy', 'lifecycle', 'tags',
    ]);
    t.same(Object.keys(a.environments[0]), [
      'name', 'enabled', 'type', 'sortOrder', 'variantCount', 'lastSeenAt', 'hasStrategies', 'hasEnabledStrategies', 'yes', 'no', 'changeRequestIds',
    ]);
  });

  await t.test('yes/no: the last hour of SDK metrics per environment', async (t) => {
    app.services.metrics.record('production', 'hs-app', new Date(), { [`${P}c`]: { yes: 4, no: 2 } });
    await settleLifecycle(app, ['production', [`${P}c`]]);
    const res = await app.inject({ method: 'GET', url: `/api/admin/search/features?query=${P}c`, headers: ADMIN });
    const c = res.json().features[0];
    t.same(c.environments.map((e: { name: string; yes: number; no: number }) => [e.name, e.yes, e.no]), [['development', 0, 0], ['production', 4, 2]]);
  });

  await t.test('lifecycle counts', async (t) => {
    const res = await app.inject({ method: 'GET', url: '/api/admin/lifecycle/count', headers: ADMIN });
    t.equal(res.statusCode, 200);
    t.same(Object.keys(res.json()), ['initial', 'preLive', 'live', 'completed', 'archived']);
    // byuser, e, f_under, a, b, Zed initial; lc1, lc2, and c (its SDK metrics above, off in
    // production) pre-live; lc3, lc4 live; d archived.
    t.same(res.json(), { initial: 6, preLive: 3, live: 2, completed: 0, archived: 1 });
  });

  await t.test('flag creators, across projects and per project', async (t) => {
    for (const [path, want] of Object.entries(ref.extra)) {
      if (!path.includes('flag-creators')) continue;
      const res = await app.inject({ method: 'GET', url: path, headers: ADMIN });
      t.equal(res.statusCode, want.status, path);
      t.same(res.json(), want.body, path);
    }
  });

  await t.test('SDK tokens and anonymous callers', async (t) => {
    const token = await send(app, 'POST', '/api/admin/api-tokens', { tokenName: 'sdk', type: 'client', environment: 'development', projects: ['*'] });
    const secret = token.json().secret as string;
    for (const url of ['/api/admin/search/features', '/api/admin/lifecycle/count', '/api/admin/flag-creators', '/api/admin/projects/default/flag-creators']) {
      t.equal((await app.inject({ method: 'GET', url, headers: { authorization: secret } })).statusCode, 403, url);
      t.equal((await app.inject({ method: 'GET', url })).statusCode, 401, url);
    }
  });

  await t.test('a write is seen by the next search (the index follows the revision)', async (t) => {
    await ok(await send(app, 'POST', FLAGS, { name: `${P}late`, type: 'operational' }), 'late', 201);
    const res = await app.inject({ method: 'GET', url: `/api/admin/search/features?query=${P}late`, headers: JSON_ADMIN });
    t.same(res.json().features.map((f: { name: string }) => f.name), [`${P}late`]);
    const count = (await app.inject({ method: 'GET', url: '/api/admin/lifecycle/count', headers: ADMIN })).json();
    t.equal(count.initial, 7, 'late joins the six');
  });
});

t.test('a completed flag\'s row names its status (measured: differential tester seed 11)', async (t) => {
  const app = await buildTestApp(t);
  await send(app, 'POST', '/api/admin/projects/default/features', { name: 'done-kept' });
  t.equal((await send(app, 'POST', '/api/admin/projects/default/features/done-kept/lifecycle/complete', { status: 'kept', statusValue: 'v1' })).statusCode, 200);
  const [row] = (await app.inject({ url: '/api/admin/search/features?query=done-kept', headers: ADMIN })).json().features;
  t.same(Object.keys(row.lifecycle), ['stage', 'status', 'enteredStageAt']);
  t.match(row.lifecycle, { stage: 'completed', status: 'kept' });
});
