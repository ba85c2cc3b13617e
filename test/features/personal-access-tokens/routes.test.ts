import { readFileSync } from 'node:fs';
import t from 'tap';
import { ADMIN, JSON_ADMIN, buildTestApp, committed } from '../../helpers/app.js';
import { asPerson, login, STRONG, userWithRole } from '../../helpers/sessions.js';

type App = Awaited<ReturnType<typeof buildTestApp>>;
interface Recorded { request: { method: string; path: string; body?: unknown }; response: { status: number; body: Record<string, unknown> } }
const REFERENCE = JSON.parse(readFileSync(new URL('../../../../test/fixtures/personal-access-tokens/reference.json', import.meta.url), 'utf8')) as Record<string, Recorded>;

const TOKENS = '/api/admin/user/tokens';
const FUTURE = '2099-01-01T00:00:00.000Z';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The reference's error body as Vane answers it (D1: BadDataError is ValidationError); the id differs per answer. */
function expectedError(recorded: Recorded): Record<string, unknown> {
  const { id: _id, ...body } = recorded.response.body;
  return { ...body, name: body.name === 'BadDataError' ? 'ValidationError' : body.name };
}

function withoutId(body: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, ...rest } = body;
  return rest;
}

async function events(app: App, type: string): Promise<Array<{ type: string; createdBy: string; createdByUserId: number; data: unknown }>> {
  const res = await app.inject({ method: 'GET', url: `/api/admin/search/events?type=IS:${type}`, headers: ADMIN });
  return res.json().events;
}

async function create(app: App, cookie: string, description: string, expiresAt = FUTURE) {
  return await app.inject({ method: 'POST', url: TOKENS, headers: asPerson(cookie), payload: { description, expiresAt } });
}

t.test('personal access tokens', async (t) => {
  const app = await buildTestApp(t);
  const viewerId = await userWithRole(app, 'viewer', 3);
  const editorId = await userWithRole(app, 'editor', 2);
  const viewer = await login(app, 'viewer', STRONG);
  const editor = await login(app, 'editor', STRONG);
  let secret = '';
  let patId = 0;

  await t.test('created with its secret shown once, then listed without it', async (t) => {
    const res = await create(app, viewer, 'my pat');
    t.equal(res.statusCode, 201, res.body);
    const body = res.json();
    t.same(Object.keys(body), Object.keys(REFERENCE.create!.response.body), 'the reference key order');
    t.match(body, { id: 1, description: 'my pat', expiresAt: FUTURE, userId: viewerId, seenAt: null });
    t.match(body.secret, /^user:[0-9a-f]{56}$/);
    secret = body.secret;
    patId = body.id;
    const list = await app.inject({ method: 'GET', url: TOKENS, headers: { cookie: viewer } });
    t.equal(list.statusCode, 200);
    const listed = list.json().pats as Array<Record<string, unknown>>;
    t.same(Object.keys(listed[0]!), Object.keys((REFERENCE.list!.response.body.pats as object[])[0]!));
    t.same(listed, [{ id: patId, description: 'my pat', expiresAt: FUTURE, userId: viewerId, createdAt: body.createdAt, seenAt: null }]);
    t.notOk(list.body.includes(secret.slice(5)), 'never listed');
    const other = await app.inject({ method: 'GET', url: TOKENS, headers: { cookie: editor } });
    t.same(other.json(), { pats: [] }, "another person's list");
    const stored = [...(await committed(app, 'personal_access_tokens')).values()];
    t.equal(stored.length, 1);
    t.notOk(JSON.stringify(stored).includes(secret.slice(5)), 'only a hash is stored');
  });

  await t.test('pat-created event', async (t) => {
    const [event] = await events(app, 'pat-created');
    t.match(event, { type: 'pat-created', createdByUserId: viewerId });
    t.same(event!.data, { id: patId, description: 'my pat', expiresAt: FUTURE, secure: false });
    t.same(Object.keys(event!.data as object), Object.keys((REFERENCE.events as unknown as Array<{ data: object }>)[1]!.data));
  });

  await t.test('validation as Unleash', async (t) => {
    for (const name of ['missingDescription', 'missingExpiresAt', 'badExpiresAt', 'emptyDescription', 'pastExpiresAt', 'duplicate']) {
      const recorded = REFERENCE[name]!;
      const body = recorded.request.body as { description?: string; expiresAt?: string };
      const payload = { ...body, ...(body.description === 'hp-pat' ? { description: 'my pat' } : {}) };
      const res = await app.inject({ method: 'POST', url: TOKENS, headers: asPerson(viewer), payload });
      t.equal(res.statusCode, recorded.response.status, name);
      t.same(withoutId(res.json()), expectedError(recorded), name);
    }
    const coerced = await create(app, editor, 5 as unknown as string);
    t.equal(coerced.json().description, '5', 'a number is coerced, as Unleash');
    await app.inject({ method: 'DELETE', url: `${TOKENS}/${coerced.json().id}`, headers: asPerson(editor) });
  });

  await t.test('at most 10 per person; the limit before a taken description', async (t) => {
    for (let i = 2; i <= 10; i++) t.equal((await create(app, viewer, `pat ${i}`)).statusCode, 201);
    const over = await create(app, viewer, 'pat 11');
    t.equal(over.statusCode, 403);
    t.same(withoutId(over.json()), expectedError(REFERENCE.limit!));
    t.same(withoutId((await create(app, viewer, 'my pat')).json()), expectedError(REFERENCE.limitBeforeDuplicate!));
    t.equal((await create(app, editor, 'my pat')).statusCode, 201, 'descriptions are unique per person only');
    const list = (await app.inject({ method: 'GET', url: TOKENS, headers: { cookie: viewer } })).json().pats as Array<{ id: number }>;
    t.same(list.map((p) => p.id), [...list.map((p) => p.id)].sort((a, b) => a - b), 'by id');
    for (const pat of list.slice(1)) await app.inject({ method: 'DELETE', url: `${TOKENS}/${pat.id}`, headers: asPerson(viewer) });
  });

  await t.test("a PAT authenticates with its person's root role", async (t) => {
    const pat = { authorization: secret };
    const segments = await app.inject({ method: 'GET', url: '/api/admin/segments', headers: pat });
    t.equal(segments.statusCode, 200);
    const refused = await app.inject({
      method: 'POST', url: '/api/admin/segments', headers: { ...pat, 'content-type': 'application/json' }, payload: { name: 'by-pat', constraints: [] },
    });
    t.equal(refused.statusCode, 403);
    t.equal(refused.json().name, 'NoAccessError');
    t.same(refused.json().permissions, ['CREATE_SEGMENT']);
    const bearer = await app.inject({ method: 'GET', url: '/api/admin/user', headers: { authorization: `Bearer ${secret}` } });
    t.equal(bearer.statusCode, 200);
    t.match(bearer.json(), { user: { id: viewerId, rootRole: 3 }, permissions: [], feedback: [], splash: {}, sessionExpiresAt: null });
    t.equal((await app.inject({ method: 'GET', url: TOKENS, headers: pat })).statusCode, REFERENCE.patListsOwn!.response.status, 'its own tokens');
    const client = await app.inject({ method: 'GET', url: '/api/client/features', headers: pat });
    t.equal(client.statusCode, 403);
    t.equal(client.json().message, REFERENCE.patClientApi!.response.body.message);

    const editorPat = (await create(app, editor, 'editing')).json().secret as string;
    const made = await app.inject({
      method: 'POST', url: '/api/admin/segments', headers: { authorization: editorPat, 'content-type': 'application/json' }, payload: { name: 'by-pat', constraints: [] },
    });
    t.equal(made.statusCode, 201, made.body);
    t.equal(made.json().createdBy, 'editor');
    t.equal((await events(app, 'segment-created'))[0]?.createdByUserId, editorId, 'audited as the person');
  });

  await t.test('seenAt is written once a minute at most, after the request', async (t) => {
    let seen: string | null = null;
    for (let i = 0; i < 50 && !seen; i++) {
      await sleep(20);
      seen = ((await app.inject({ method: 'GET', url: TOKENS, headers: { cookie: viewer } })).json().pats[0] as { seenAt: string | null }).seenAt;
    }
    t.ok(seen, 'set after use');
    const head = app.database.outbox.committed;
    for (let i = 0; i < 5; i++) await app.inject({ method: 'GET', url: '/api/admin/segments', headers: { authorization: secret } });
    await sleep(50);
    t.equal(app.database.outbox.committed, head, 'no commit for uses within the minute');
  });

  await t.test('API tokens are refused', async (t) => {
    for (const [method, url] of [['GET', TOKENS], ['POST', TOKENS], ['DELETE', `${TOKENS}/1`]] as const) {
      const res = await app.inject({ method, url, headers: JSON_ADMIN, ...(method === 'POST' ? { payload: { description: 'x', expiresAt: FUTURE } } : {}) });
      t.equal(res.statusCode, 403, `${method} ${url}`);
      t.same(withoutId(res.json()), expectedError(REFERENCE.adminTokenList!));
    }
  });

  await t.test('deleted: 200 without a body, an event, and the PAT no longer authenticates', async (t) => {
    const others = await app.inject({ method: 'DELETE', url: `${TOKENS}/${patId}`, headers: asPerson(editor) });
    t.equal(others.statusCode, 200);
    t.equal((await app.inject({ method: 'GET', url: '/api/admin/user', headers: { authorization: secret } })).statusCode, 200, "another person's: untouched");
    const res = await app.inject({ method: 'DELETE', url: `${TOKENS}/${patId}`, headers: asPerson(viewer) });
    t.equal(res.statusCode, 200);
    t.equal(res.body, '');
    t.equal((await app.inject({ method: 'DELETE', url: `${TOKENS}/${patId}`, headers: asPerson(viewer) })).statusCode, 200, 'again');
    t.equal((await app.inject({ method: 'DELETE', url: `${TOKENS}/999`, headers: asPerson(viewer) })).statusCode, 200, 'unknown');
    const bad = await app.inject({ method: 'DELETE', url: `${TOKENS}/abc`, headers: asPerson(viewer) });
    t.equal(bad.statusCode, 400);
    t.same(withoutId(bad.json()), expectedError(REFERENCE.deleteNotInteger!));
    const deleted = (await events(app, 'pat-deleted')).filter((e) => (e.data as { id: number }).id === patId);
    t.equal(deleted.length, 1, 'one event');
    t.same(deleted[0]!.data, { id: patId, description: 'my pat', expiresAt: FUTURE, secure: false });
    const after = await app.inject({ method: 'GET', url: '/api/admin/user', headers: { authorization: secret } });
    t.equal(after.statusCode, 401);
    t.same(withoutId(after.json()), expectedError(REFERENCE.deletedPat!));
  });

  await t.test('an expired PAT is 401', async (t) => {
    const res = await create(app, viewer, 'short-lived', new Date(Date.now() + 600).toISOString());
    t.equal(res.statusCode, 201);
    const short = res.json().secret as string;
    t.equal((await app.inject({ method: 'GET', url: '/api/admin/segments', headers: { authorization: short } })).statusCode, 200);
    await sleep(700);
    const expired = await app.inject({ method: 'GET', url: '/api/admin/segments', headers: { authorization: short } });
    t.equal(expired.statusCode, 401);
    t.equal(expired.json().name, 'UnauthorizedError');
  });

  await t.test('a `user:` API token of a project named user still authenticates as an API token', async (t) => {
    const unknown = await app.inject({ method: 'GET', url: '/api/admin/segments', headers: { authorization: `user:${'0'.repeat(56)}` } });
    t.equal(unknown.statusCode, 401);
    t.equal(unknown.json().name, 'UnauthorizedError');
  });
});
