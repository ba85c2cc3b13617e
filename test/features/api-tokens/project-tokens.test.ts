import t, { type Test } from 'tap';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { ADMIN, buildTestApp, eventsAfter, lastEventId, send } from '../../helpers/app.js';
import { fixture, vaneError } from '../../helpers/samples.js';
import { asPerson, roleCookies } from '../../helpers/sessions.js';

interface Recorded { request: { method: string; path: string; body: Record<string, unknown> | null }; status: number; body: any; location?: string }
/** Answers of Unleash 8.2 (a client token `C-client-…` on `*`, project `default`). */
const recorded = fixture('api-tokens/measured.json') as Record<string, Recorded>;

const PROJECT = '/api/admin/projects/default/api-tokens';

/** A recorded error in Vane's form (D1), compared without the `id`s. */
function sameError(t: Test, res: LightMyRequestResponse, name: string) {
  const rec = recorded[name]!;
  t.equal(res.statusCode, rec.status, name);
  const { id, ...rest } = res.json();
  t.type(id, 'string');
  t.same(rest, vaneError(rec.body), name);
}

async function createToken(app: FastifyInstance, body: Record<string, unknown>, url = '/api/admin/api-tokens') {
  const res = await send(app, 'POST', url, body);
  if (res.statusCode !== 201) throw new Error(res.body);
  return res.json<{ secret: string; tokenName: string }>();
}

t.test('API tokens by name, their expiry, a project\'s tokens', async (t) => {
  const app = await buildTestApp(t);
  const { viewer, editor } = await roleCookies(app);
  const client = await createToken(app, { tokenName: 'C-client', type: 'client', environment: 'development' });
  const frontend = await createToken(app, { tokenName: 'C-fe', type: 'frontend', environment: 'development' });

  await t.test('GET by name: Unleash\'s keys, admin tokens only for an admin token, Editors read, Viewers do not', async (t) => {
    const res = await send(app, 'GET', '/api/admin/api-tokens/C-client');
    t.equal(res.statusCode, 200);
    const [token] = res.json().tokens;
    t.same(Object.keys(token), Object.keys(recorded.byName!.body.tokens[0]), 'keys in Unleash\'s order');
    t.match(token, { tokenName: 'C-client', type: 'client', project: '*', projects: ['*'], environment: 'development', expiresAt: null, alias: null, seenAt: null, secure: false });
    t.notMatch(token.secret, client.secret, 'the secret stays masked');
    t.same((await send(app, 'GET', '/api/admin/api-tokens/nobody')).json(), recorded.byUnknownName!.body);
    t.equal((await send(app, 'GET', '/api/admin/api-tokens/admin')).json().tokens.length, 1, 'the admin token, for an admin token');
    const editorAdmin = await app.inject({ method: 'GET', url: '/api/admin/api-tokens/admin', headers: { cookie: editor } });
    t.same(editorAdmin.json(), recorded.editorByAdminName!.body);
    const editorOwn = await app.inject({ method: 'GET', url: '/api/admin/api-tokens/C-client', headers: { cookie: editor } });
    t.equal(editorOwn.statusCode, recorded.editorByName!.status);
    t.equal(editorOwn.json().tokens.length, 1);
    const viewerOwn = await app.inject({ method: 'GET', url: '/api/admin/api-tokens/C-client', headers: { cookie: viewer } });
    t.equal(viewerOwn.statusCode, recorded.viewerByName!.status);
  });

  await t.test('PUT expiresAt: 200 empty, api-token-updated as Unleash records it, none when unchanged', async (t) => {
    const before = await lastEventId(app);
    const url = `/api/admin/api-tokens/${encodeURIComponent(client.secret)}`;
    const res = await send(app, 'PUT', url, recorded.update!.request.body);
    t.equal(res.statusCode, recorded.update!.status);
    t.equal(res.body, '');
    const expected = recorded.updateEvent!.body.events[0];
    const [event] = await eventsAfter(app, before);
    t.equal(event!.type, 'api-token-updated');
    t.equal(event!.project, expected.project);
    t.equal(event!.environment, expected.environment);
    t.same(Object.keys(event!.data), Object.keys(expected.data), 'data keys as Unleash writes them');
    t.same(Object.keys(event!.preData), Object.keys(expected.preData), 'preData keys in jsonb order');
    t.equal(event!.data.expiresAt, '2032-01-01T00:00:00.000Z');
    t.equal(event!.preData.expiresAt, null);
    t.equal((await send(app, 'PUT', url, recorded.updateSame!.request.body)).statusCode, 200);
    t.same(await eventsAfter(app, before + 1), [], 'the same expiry again records nothing');
    const unknown = await send(app, 'PUT', '/api/admin/api-tokens/unknown-secret', recorded.updateUnknown!.request.body);
    t.equal(unknown.statusCode, recorded.updateUnknown!.status);
    t.same(await eventsAfter(app, before + 1), []);
    for (const name of ['updateMissing', 'updateBadDate', 'updateDateOnly']) sameError(t, await send(app, 'PUT', url, recorded[name]!.request.body), name);
    const byEditor = await app.inject({ method: 'PUT', url, headers: asPerson(editor), payload: recorded.update!.request.body! });
    t.equal(byEditor.statusCode, recorded.editorUpdate!.status);
    const byClient = await app.inject({ method: 'PUT', url, headers: { authorization: client.secret, 'content-type': 'application/json' }, payload: recorded.update!.request.body! });
    t.equal(byClient.statusCode, recorded.clientTokenUpdate!.status);
  });

  await t.test('a past expiry ends the token', async (t) => {
    const url = `/api/admin/api-tokens/${encodeURIComponent(frontend.secret)}`;
    t.equal((await send(app, 'PUT', url, { expiresAt: '2020-01-01T00:00:00.000Z' })).statusCode, 200);
    const res = await app.inject({ method: 'GET', url: '/api/frontend', headers: { authorization: frontend.secret } });
    t.equal(res.statusCode, 401);
  });

  let projectSecret = '';
  await t.test('create in a project: 201 as the global create, projects forced, other keys ignored', async (t) => {
    const before = await lastEventId(app);
    const rec = recorded.projectCreate!;
    const res = await send(app, 'POST', PROJECT, { ...rec.request.body, tokenName: 'C-p3' });
    t.equal(res.statusCode, rec.status);
    t.equal(res.headers.location, rec.location);
    t.same(Object.keys(res.json()), Object.keys(rec.body));
    t.match(res.json(), { projects: ['default'], project: 'default', type: 'frontend', environment: 'development' });
    t.match(res.json().secret, /^default:development\.[0-9a-f]{56}$/);
    projectSecret = res.json().secret;
    const [event] = await eventsAfter(app, before);
    const expected = recorded.projectCreateEvent!.body.events[0];
    t.equal(event!.type, 'api-token-created');
    t.same([event!.project, event!.environment], [expected.project, expected.environment]);
    t.same(Object.keys(event!.data), Object.keys(expected.data));
    for (const name of ['projectCreateNoName', 'projectCreateAdmin', 'projectCreateAllEnvs', 'projectCreateFrontendAllEnvs', 'projectCreateUnknownEnv', 'projectCreateBadDate']) {
      sameError(t, await send(app, 'POST', PROJECT, recorded[name]!.request.body!), name);
    }
    sameError(t, await send(app, 'POST', '/api/admin/projects/nope/api-tokens', { tokenName: 'x', type: 'client' }), 'projectCreateUnknownProject');
    sameError(t, await send(app, 'POST', '/api/admin/projects/nope/api-tokens', { tokenName: '', type: 'client' }), 'projectCreateEmptyNameUnknownProject');
    const byViewer = await app.inject({ method: 'POST', url: PROJECT, headers: asPerson(viewer), payload: { tokenName: 'x', type: 'client' } });
    t.equal(byViewer.statusCode, recorded.viewerProjectCreate!.status);
  });

  await t.test('list a project\'s tokens: every token for an admin token, the project\'s own for a person', async (t) => {
    const all = await send(app, 'GET', PROJECT);
    t.equal(all.statusCode, 200);
    t.same(all.json().tokens.map((tk: { tokenName: string }) => tk.tokenName), ['admin', 'C-client', 'C-fe', 'C-p3']);
    t.same(Object.keys(all.json().tokens[0]), Object.keys(recorded.editorProjectList!.body.tokens[0]));
    const byEditor = await app.inject({ method: 'GET', url: PROJECT, headers: { cookie: editor } });
    t.same(byEditor.json().tokens.map((tk: { tokenName: string }) => tk.tokenName), ['C-p3']);
    t.equal((await app.inject({ method: 'GET', url: PROJECT, headers: { cookie: viewer } })).statusCode, recorded.viewerProjectList!.status);
    sameError(t, await send(app, 'GET', '/api/admin/projects/nope/api-tokens'), 'projectListUnknown');
    for (const [secret, name] of [[client.secret, 'clientTokenProjectList']] as const) {
      const res = await app.inject({ method: 'GET', url: PROJECT, headers: { authorization: secret } });
      t.equal(res.statusCode, recorded[name]!.status);
    }
  });

  await t.test('delete through a project: 404 unseen, 400 another scope, 200 with api-token-deleted', async (t) => {
    const del = (project: string, secret: string, headers: Record<string, string> = ADMIN) =>
      app.inject({ method: 'DELETE', url: `/api/admin/projects/${project}/api-tokens/${encodeURIComponent(secret)}`, headers });
    const star = await del('default', client.secret);
    t.same([star.statusCode, star.body], [recorded.projectDeleteStar!.status, '']);
    t.equal((await del('nope', projectSecret)).statusCode, recorded.projectDeleteUnknownProject!.status);
    t.equal((await del('default', 'unknown-secret')).statusCode, recorded.projectDeleteUnknown!.status);
    t.equal((await del('default', client.secret, { cookie: editor, origin: 'http://localhost:4242' })).statusCode, recorded.editorProjectDeleteStar!.status);
    t.equal((await del('default', projectSecret, { cookie: viewer, origin: 'http://localhost:4242' })).statusCode, recorded.viewerProjectDelete!.status);
    const before = await lastEventId(app);
    const ok = await del('default', projectSecret);
    t.same([ok.statusCode, ok.body], [recorded.projectDelete!.status, '']);
    const [event] = await eventsAfter(app, before);
    const expected = recorded.projectDeleteEvent!.body.events[0];
    t.equal(event!.type, 'api-token-deleted');
    t.same(Object.keys(event!.preData), Object.keys(expected.preData), 'the stored row without its secret, jsonb order');
    t.same([event!.project, event!.environment], [expected.project, expected.environment]);
    t.equal((await app.inject({ method: 'GET', url: '/api/frontend', headers: { authorization: projectSecret } })).statusCode, 401);
  });

  await t.test('a project token\'s update is recorded with `*` as its project (as Unleash\'s store returns it)', async (t) => {
    const { secret } = await createToken(app, { tokenName: 'C-p4', type: 'client' }, PROJECT);
    const before = await lastEventId(app);
    const url = `/api/admin/api-tokens/${encodeURIComponent(secret)}`;
    for (let i = 0; i < 2; i++) t.equal((await send(app, 'PUT', url, { expiresAt: '2033-01-01T00:00:00.000Z' })).statusCode, 200);
    const events = await eventsAfter(app, before);
    t.equal(events.length, 2, 'the same expiry again is recorded again: data and preData differ');
    t.same([events[0]!.project, events[0]!.data.project, events[0]!.data.projects, events[0]!.preData.projects], ['*', '*', ['*'], ['default']]);
  });
});
