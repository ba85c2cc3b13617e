/**
 * Several instances on one database: each holds the configuration state in memory
 * (src/db/state.ts) and learns of the others' writes by reading the commit log (src/db/outbox/).
 */
import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { MongoClient } from 'mongodb';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import { buildEvents, ConcurrentModificationError, Outbox, type StoredDocument } from '../../src/db/outbox/index.js';
import { unpackFlag, type StoredFlag } from '../../src/features/flags/store.js';
import { ensureInitialAdmin } from '../../src/features/sessions/service.js';
import { ADMIN, ADMIN_TOKEN, committed, dropDatabase, testConfig } from '../helpers/app.js';
import { eventually } from '../helpers/wait.js';

const JSON_HEADERS = { ...ADMIN, 'content-type': 'application/json' };

async function instance(t: { teardown(fn: () => unknown): void }, config: Config): Promise<FastifyInstance> {
  const app = await buildApp(config, { logger: false });
  t.teardown(() => app.close());
  return app;
}

/**
 * Two instances on one fresh database, polling each other only every minute: the tests let a
 * write through with `propagate`, so what one instance has not noticed yet is under their control.
 */
async function twoInstances(
  t: { teardown(fn: () => unknown): void }, env: Record<string, string> = {},
): Promise<{ config: Config; a: FastifyInstance; b: FastifyInstance }> {
  const config = await testConfig(t, { REVISION_POLL_MS: '60000', ...env });
  t.teardown(() => dropDatabase(config));
  return { config, a: await instance(t, config), b: await instance(t, config) };
}

/** Lets `from`'s writes reach `to` without waiting for the poll interval. */
async function propagate(from: FastifyInstance, to: FastifyInstance): Promise<void> {
  await from.database.outbox.settle();
  await to.database.outbox.poll();
}

t.test('a write on one instance is read from the other after its revision is noticed', async (t) => {
  const { a, b } = await twoInstances(t);

  const created = await a.inject({ method: 'POST', url: '/api/admin/projects/default/features', headers: JSON_HEADERS, payload: { name: 'seen-by-b' } });
  t.equal(created.statusCode, 201);
  t.equal((await b.inject({ url: '/api/admin/projects/default/features/seen-by-b', headers: ADMIN })).statusCode, 404, 'not yet noticed');
  await propagate(a, b);
  t.equal((await b.inject({ url: '/api/admin/projects/default/features/seen-by-b', headers: ADMIN })).statusCode, 200);

  // B writes on top of what it learnt; A sees B's strategy.
  const added = await b.inject({
    method: 'POST', url: '/api/admin/projects/default/features/seen-by-b/environments/development/strategies',
    headers: JSON_HEADERS, payload: { name: 'default', constraints: [], parameters: {} },
  });
  t.equal(added.statusCode, 200);
  await propagate(b, a);
  const strategies = (await a.inject({ url: '/api/admin/projects/default/features/seen-by-b/environments/development/strategies', headers: ADMIN })).json();
  t.equal(strategies.length, 1);
  t.equal(strategies[0].id, added.json().id);

  // A, with a state that has not heard of B's write yet, writes the same flag: the conditional
  // write fails, A re-reads that flag and retries, and neither change is lost.
  const second = await b.inject({
    method: 'POST', url: '/api/admin/projects/default/features/seen-by-b/environments/development/strategies',
    headers: JSON_HEADERS, payload: { name: 'default', constraints: [], parameters: {} },
  });
  t.equal(second.statusCode, 200);
  const third = await a.inject({
    method: 'POST', url: '/api/admin/projects/default/features/seen-by-b/environments/development/strategies',
    headers: JSON_HEADERS, payload: { name: 'default', constraints: [], parameters: {} },
  });
  t.equal(third.statusCode, 200);
  await propagate(a, b);
  const ids = (await b.inject({ url: '/api/admin/projects/default/features/seen-by-b/environments/development/strategies', headers: ADMIN }))
    .json().map((s: { id: string }) => s.id).sort();
  t.same(ids, [added.json().id, second.json().id, third.json().id].sort(), 'all three strategies kept');
});

t.test('admin tokens: revoked through the API on every instance, never the last; removed from INIT_ADMIN_API_TOKENS at the next start', async (t) => {
  const second = '*:*.second-admin-token';
  const { config, a, b } = await twoInstances(t, { INIT_ADMIN_API_TOKENS: `${ADMIN_TOKEN},${second}` });
  const asSecond = { authorization: second };
  t.equal((await b.inject({ url: '/api/admin/api-tokens', headers: asSecond })).statusCode, 200);

  const revoked = await a.inject({ method: 'DELETE', url: `/api/admin/api-tokens/${encodeURIComponent(second)}`, headers: ADMIN });
  t.equal(revoked.statusCode, 200);
  t.equal((await a.inject({ url: '/api/admin/api-tokens', headers: asSecond })).statusCode, 401, 'at once on the instance that revoked it');
  await propagate(a, b);
  t.equal((await b.inject({ url: '/api/admin/api-tokens', headers: asSecond })).statusCode, 401, 'on the other one with the revision');

  const last = await b.inject({ method: 'DELETE', url: `/api/admin/api-tokens/${encodeURIComponent(ADMIN_TOKEN)}`, headers: ADMIN });
  t.equal(last.statusCode, 403);
  t.match(last.json(), { name: 'InvalidOperationError', message: /last admin token/ });
  t.equal((await b.inject({ url: '/api/admin/api-tokens', headers: ADMIN })).statusCode, 200);

  // A third secret configured, then dropped from the list: revoked when an instance starts without it.
  const third = '*:*.third-admin-token';
  const withThird = await instance(t, { ...config, adminTokens: [ADMIN_TOKEN, third] });
  t.equal((await withThird.inject({ url: '/api/admin/api-tokens', headers: { authorization: third } })).statusCode, 200);
  const without = await instance(t, { ...config, adminTokens: [ADMIN_TOKEN] });
  t.equal((await without.inject({ url: '/api/admin/api-tokens', headers: { authorization: third } })).statusCode, 401);
  await without.database.outbox.flushed(); // events are appended after the response (Outbox.queueFlush)
  const deleted = await without.database.db.collection('events').find({ type: 'api-token-deleted' }).toArray();
  t.equal(deleted.length, 2, 'one api-token-deleted per revoked admin token');
});

t.test('a write that keeps losing to concurrent writers is a 409 in the documented shape, after retries', async (t) => {
  const config = await testConfig(t);
  t.teardown(() => dropDatabase(config));
  const app = await instance(t, config);
  await app.inject({ method: 'POST', url: '/api/admin/projects/default/features', headers: JSON_HEADERS, payload: { name: 'contended' } });
  const outbox = app.database.outbox;
  const original = outbox.replace.bind(outbox);
  let attempts = 0;
  outbox.replace = async () => {
    attempts++;
    throw new ConcurrentModificationError('another writer got there first');
  };
  const res = await app.inject({ method: 'POST', url: '/api/admin/projects/default/features/contended/environments/development/on', headers: ADMIN });
  outbox.replace = original;
  t.equal(res.statusCode, 409);
  t.same(Object.keys(res.json()).slice(0, 3), ['id', 'name', 'message']);
  t.equal(res.json().name, 'ConflictError');
  t.equal(attempts, 5, 'retried before giving up');
  const retried = await app.inject({ method: 'POST', url: '/api/admin/projects/default/features/contended/environments/development/on', headers: ADMIN });
  t.equal(retried.statusCode, 200, 'the next attempt goes through');
});

t.test('a change whose writer died before appending its events is completed by a running instance', async (t) => {
  const config = await testConfig(t, { REVISION_POLL_MS: '60000' });
  t.teardown(() => dropDatabase(config));
  const survivor = await instance(t, config);
  survivor.database.outbox.orphanFlushMs = 50;

  // The dying writer's connection closes as soon as its commit is stored: its append never goes.
  const client = await MongoClient.connect(config.MONGODB_URL!);
  const dying = new Outbox(client.db(config.MONGODB_DB));
  await dying.load();
  dying.onCommitted(() => void client.close(true));
  const segments = dying.collection<StoredDocument & { name: string }>('segments');
  const doc = { _id: 4242, name: 'orphaned', description: null, project: null, constraints: [], createdBy: 'dead', createdAt: new Date() };
  await dying.insert(segments, doc, buildEvents({ name: 'dead', id: -42 }, [{ type: 'segment-created', data: { id: 4242, name: 'orphaned' } }]));
  await dying.settle();
  t.notOk(await survivor.database.db.collection('events').findOne({ type: 'segment-created' }), 'the event is not in the log');

  await survivor.database.outbox.poll();
  t.equal((await survivor.inject({ url: '/api/admin/segments/4242', headers: ADMIN })).statusCode, 200, 'the change is in the state');
  const newest = (await survivor.inject({ url: '/api/admin/search/events?limit=1', headers: ADMIN })).json();
  t.equal(newest.events[0]?.type, 'segment-created', 'its event is searched from the commit, before any append');
  t.ok(
    await eventually(async () => (await survivor.database.db.collection('events').countDocuments({ type: 'segment-created' })) === 1),
    'its event is appended by the survivor',
  );
});

t.test('a change request applied from two instances at once is applied exactly once', async (t) => {
  const { a, b } = await twoInstances(t);
  const created = await a.inject({ method: 'POST', url: '/api/admin/projects/default/features', headers: JSON_HEADERS, payload: { name: 'applied-once' } });
  t.equal(created.statusCode, 201);
  const change = await a.inject({
    method: 'POST', url: '/api/admin/projects/default/environments/development/change-requests', headers: JSON_HEADERS,
    payload: { feature: 'applied-once', action: 'updateEnabled', payload: { enabled: true } },
  });
  const id = change.json().id as number;
  const state = (app: FastifyInstance, value: string) => app.inject({
    method: 'PUT', url: `/api/admin/projects/default/change-requests/${id}/state`, headers: JSON_HEADERS, payload: { state: value },
  });
  t.equal((await state(a, 'In review')).statusCode, 200);
  t.equal((await state(a, 'Approved')).statusCode, 200);
  await propagate(a, b);

  const results = await Promise.all([state(a, 'Applied'), state(b, 'Applied')]);
  t.same(results.map((r) => r.statusCode).sort(), [200, 409], 'one applies, the other is told it is being applied');
  await Promise.all([a.database.outbox.flushed(), b.database.outbox.flushed()]); // events are appended after the response (Outbox.queueFlush)
  t.equal(await a.database.db.collection('events').countDocuments({ type: 'change-request-applied' }), 1, 'one change-request-applied event');
  t.equal(await a.database.db.collection('events').countDocuments({ type: 'feature-environment-enabled' }), 1, 'the change written once');
});

t.test('deleting a segment while another instance adds a strategy using it never leaves a dangling reference', async (t) => {
  const { a, b } = await twoInstances(t);
  const segment = async (name: string) =>
    (await a.inject({ method: 'POST', url: '/api/admin/segments', headers: JSON_HEADERS, payload: { name, constraints: [] } })).json().id as number;
  const first = await segment('deleted-first');
  const second = await segment('used-first');
  t.equal((await a.inject({ method: 'POST', url: '/api/admin/projects/default/features', headers: JSON_HEADERS, payload: { name: 'segmented' } })).statusCode, 201);
  await propagate(a, b);
  const addUsing = (id: number) => b.inject({
    method: 'POST', url: '/api/admin/projects/default/features/segmented/environments/development/strategies',
    headers: JSON_HEADERS, payload: { name: 'default', constraints: [], parameters: {}, segments: [id] },
  });
  const storedSegments = async () => {
    const flag = unpackFlag((await committed(a, 'flags')).get('segmented') as StoredFlag);
    return flag.environments.development!.strategies.flatMap((s) => s.segments ?? []);
  };

  // A deletes; B has not heard of it and adds a strategy using the segment: B takes it back.
  t.equal((await a.inject({ method: 'DELETE', url: `/api/admin/segments/${first}`, headers: ADMIN })).statusCode, 204);
  const late = await addUsing(first);
  t.equal(late.statusCode, 409);
  t.match(late.json().message, /was deleted while the strategy was added/);
  t.same(await storedSegments(), [], 'no strategy refers to the deleted segment');

  // B adds first; A has not heard of it and deletes: the deletion's commit comes after B's, and sees the use.
  t.equal((await addUsing(second)).statusCode, 200);
  t.equal((await a.inject({ method: 'DELETE', url: `/api/admin/segments/${second}`, headers: ADMIN })).statusCode, 409);
  t.equal((await a.inject({ url: `/api/admin/segments/${second}`, headers: ADMIN })).statusCode, 200, 'the segment is kept');
  t.same(await storedSegments(), [second]);
});

// Tags, tag types, invite links, users and change requests are held in the configuration state
// too: what one instance writes is read on the other once its revision is noticed, never earlier
// from the database behind the state's back.

const STRONG = 'Correct-Horse-9';
const JSON_ONLY = { 'content-type': 'application/json' };

async function inviteLink(app: FastifyInstance, name: string): Promise<string> {
  const res = await app.inject({
    method: 'POST', url: '/api/admin/invite-link/tokens', headers: JSON_HEADERS,
    payload: { name, expiresAt: new Date(Date.now() + 7 * 86_400_000).toISOString() },
  });
  if (res.statusCode !== 201) throw new Error(res.body);
  return res.json().secret as string;
}

function signup(app: FastifyInstance, secret: string, username: string) {
  return app.inject({
    method: 'POST', url: `/invite/${secret}/signup`, headers: JSON_ONLY,
    payload: { name: username, email: `${username}@example.com`, username, password: STRONG },
  });
}

function login(app: FastifyInstance, username: string) {
  return app.inject({ method: 'POST', url: '/auth/simple/login', headers: JSON_ONLY, payload: { username, password: STRONG } });
}

t.test('an invite link created on one instance is usable on the other once noticed; its users are listed on both', async (t) => {
  const { a, b } = await twoInstances(t);
  const secret = await inviteLink(a, 'made on a');
  t.equal((await b.inject({ url: `/invite/${secret}/validate` })).statusCode, 400, 'not yet noticed');
  await propagate(a, b);
  t.equal((await b.inject({ url: `/invite/${secret}/validate` })).statusCode, 200);
  const joined = await signup(b, secret, 'joiner');
  t.equal(joined.statusCode, 201, joined.body);
  await propagate(b, a);
  const link = (await a.inject({ url: `/api/admin/invite-link/tokens/${secret}`, headers: ADMIN })).json();
  t.same(link.users.map((u: { username: string }) => u.username), ['joiner'], 'the joiner is listed on the instance that made the link');
  t.same((await a.inject({ url: '/api/admin/user-admin', headers: ADMIN })).json().users.map((u: { id: number }) => u.id), [joined.json().id]);

  // Disabled on A: refused on B with the revision.
  const disabled = await a.inject({ method: 'PUT', url: `/api/admin/invite-link/tokens/${secret}`, headers: JSON_HEADERS, payload: { enabled: false } });
  t.equal(disabled.statusCode, 200, disabled.body);
  await propagate(a, b);
  t.equal((await b.inject({ url: `/invite/${secret}/validate` })).statusCode, 400);
  t.equal((await signup(b, secret, 'too-late')).statusCode, 400);
});

t.test('users: ids stay unique when two instances create users, e-mails too; a user deleted on one instance is signed out on the other', async (t) => {
  const { a, b } = await twoInstances(t);
  const secret = await inviteLink(a, 'for both');
  await propagate(a, b);

  // B has not heard of A's user: its first id is taken, the next one is used.
  const first = await signup(a, secret, 'first');
  const second = await signup(b, secret, 'second');
  t.equal(first.statusCode, 201, first.body);
  t.equal(second.statusCode, 201, second.body);
  t.not(second.json().id, first.json().id, 'distinct ids');
  // Nor of A's next user's e-mail: the commit refuses it, as "already exists".
  t.equal((await signup(a, secret, 'third')).statusCode, 201);
  const twice = await signup(b, secret, 'third');
  t.equal(twice.statusCode, 400, twice.body);
  t.match(twice.json().message, /already exists/);
  await propagate(a, b);
  await propagate(b, a);
  const listed = async (app: FastifyInstance) =>
    (await app.inject({ url: '/api/admin/user-admin', headers: ADMIN })).json().users.map((u: { username: string }) => u.username);
  t.same(await listed(b), ['first', 'second', 'third']);
  t.same(await listed(a), ['first', 'second', 'third']);
  t.equal((await committed(a, 'users')).size, 3);

  const signedIn = await login(b, 'first');
  t.equal(signedIn.statusCode, 200, 'a user created on A signs in on B');
  const cookie = String(signedIn.headers['set-cookie']).split(';')[0]!;
  t.equal((await b.inject({ url: '/api/admin/user', headers: { cookie } })).statusCode, 200);

  // The sign-in wrote the user's seenAt on B: A hears of it before writing the user.
  await propagate(b, a);
  // Deleted on A (there is no API for it: through A's outbox, as a write of A would be).
  const outbox = a.database.outbox;
  const users = outbox.collection<StoredDocument>('users');
  const stored = outbox.state.mirror('users').get(first.json().id);
  t.ok(stored);
  await outbox.remove(users, stored!, []);
  t.equal((await b.inject({ url: '/api/admin/user', headers: { cookie } })).statusCode, 200, 'not yet noticed');
  await propagate(a, b);
  t.equal((await b.inject({ url: '/api/admin/user', headers: { cookie } })).statusCode, 401, 'its session ends on B');
  t.equal((await login(b, 'first')).statusCode, 401, 'and it cannot sign in there');
  t.equal(await b.database.db.collection('sessions').countDocuments({ userId: first.json().id }), 0, 'its sessions are removed');
});

t.test('change requests: made on one instance, seen on the other; a Draft opened on both at once stays one Draft', async (t) => {
  const { a, b } = await twoInstances(t);
  for (const name of ['cr-one', 'cr-two']) {
    t.equal((await a.inject({ method: 'POST', url: '/api/admin/projects/default/features', headers: JSON_HEADERS, payload: { name } })).statusCode, 201);
  }
  await propagate(a, b);
  const add = (app: FastifyInstance, feature: string) => app.inject({
    method: 'POST', url: '/api/admin/projects/default/environments/development/change-requests', headers: JSON_HEADERS,
    payload: { feature, action: 'updateEnabled', payload: { enabled: true } },
  });
  const made = await add(a, 'cr-one');
  t.equal(made.statusCode, 200, made.body);
  const id = made.json().id as number;
  t.equal((await b.inject({ url: `/api/admin/projects/default/change-requests/${id}`, headers: ADMIN })).statusCode, 404, 'not yet noticed');

  // B has not heard of A's Draft: its insert collides (id, then draft key), it reads A's Draft
  // and appends to it instead of opening a second one.
  const appended = await add(b, 'cr-two');
  t.equal(appended.statusCode, 200, appended.body);
  t.equal(appended.json().id, id, "B appended to A's Draft");
  t.same(appended.json().features.map((f: { name: string }) => f.name), ['cr-one', 'cr-two']);

  await propagate(b, a);
  const listed = (await a.inject({ url: '/api/admin/projects/default/change-requests', headers: ADMIN })).json();
  t.same(listed.map((cr: { id: number }) => cr.id), [id], 'one request');
  t.same(listed[0].features.map((f: { name: string }) => f.name), ['cr-one', 'cr-two'], "A sees B's change");
  t.equal((await committed(a, 'change_requests')).size, 1, 'one request stored');

  // Sent to review on A; B (stale) opens the next Draft under a new id.
  t.equal((await a.inject({
    method: 'PUT', url: `/api/admin/projects/default/change-requests/${id}/state`, headers: JSON_HEADERS, payload: { state: 'In review' },
  })).statusCode, 200);
  await propagate(a, b);
  const next = await add(b, 'cr-one');
  t.equal(next.statusCode, 200, next.body);
  t.not(next.json().id, id, 'a new Draft');
  t.equal((await b.inject({ url: `/api/admin/projects/default/change-requests/${id}`, headers: ADMIN })).json().state, 'In review');

  // Approved on A; B, not yet told, is asked to apply it: it re-reads the request before refusing,
  // and applies.
  t.equal((await a.inject({
    method: 'PUT', url: `/api/admin/projects/default/change-requests/${id}/state`, headers: JSON_HEADERS, payload: { state: 'Approved' },
  })).statusCode, 200);
  const applied = await b.inject({
    method: 'PUT', url: `/api/admin/projects/default/change-requests/${id}/state`, headers: JSON_HEADERS, payload: { state: 'Applied' },
  });
  t.equal(applied.statusCode, 200, applied.body);
  t.equal(applied.json().state, 'Applied');
  await propagate(b, a);
  t.equal((await a.inject({ url: `/api/admin/projects/default/change-requests/${id}`, headers: ADMIN })).json().state, 'Applied');
});

t.test('tags and tag types made on one instance are listed and usable on the other', async (t) => {
  const { a, b } = await twoInstances(t);
  t.equal((await a.inject({ method: 'POST', url: '/api/admin/tag-types', headers: JSON_HEADERS, payload: { name: 'team' } })).statusCode, 201);
  t.equal((await a.inject({ method: 'POST', url: '/api/admin/tags', headers: JSON_HEADERS, payload: { type: 'team', value: 'core' } })).statusCode, 201);
  const types = async () => (await b.inject({ url: '/api/admin/tag-types', headers: ADMIN })).json().tagTypes.map((x: { name: string }) => x.name);
  t.same(await types(), ['simple'], 'not yet noticed');
  // B, stale, still refuses a second type of that name: the commit log decides.
  t.equal((await b.inject({ method: 'POST', url: '/api/admin/tag-types', headers: JSON_HEADERS, payload: { name: 'team' } })).statusCode, 409);
  await propagate(a, b);
  t.same(await types(), ['simple', 'team']);
  t.same((await b.inject({ url: '/api/admin/tags', headers: ADMIN })).json().tags, [{ value: 'core', type: 'team' }]);
  const tagged = await b.inject({ method: 'POST', url: '/api/admin/tags', headers: JSON_HEADERS, payload: { type: 'team', value: 'edge' } });
  t.equal(tagged.statusCode, 201, 'the type is known on B');
});

t.test('the first admin, created by another instance a moment ago, is found in the database: the start goes on', async (t) => {
  const { a, b } = await twoInstances(t);
  // A creates the admin; B, which has not heard of it, then runs its start-up step.
  await ensureInitialAdmin(a.services.users, a.stores.users, 'admin', STRONG);
  t.equal(await b.stores.users.findByLogin('admin'), null, 'B has not heard of it');
  await ensureInitialAdmin(b.services.users, b.stores.users, 'admin', STRONG);
  t.ok(await b.stores.users.findByLogin('admin'), 'B now holds it');
  t.equal((await committed(b, 'users')).size, 1, 'created once');
});
