import { readFileSync } from 'node:fs';
import t from 'tap';
import { ADMIN, buildTestApp, eventsAfter, JSON_ADMIN, lastEventId, send } from '../../helpers/app.js';
import { asPerson, roleCookies } from '../../helpers/sessions.js';
import { createToken } from '../client-api/helpers.js';
import { asUnleash, withoutId } from '../../helpers/samples.js';

/** Recorded on Unleash 8.2 (the reference server) with the same calls. */
const REFERENCE = JSON.parse(readFileSync(new URL('../../../../test/fixtures/ui-config/reference.json', import.meta.url), 'utf8'));

interface Case { body: string | null; status: number; answer: Record<string, unknown> | null }

/** Without the fresh `id` (Vane always sends one, D1) and with Unleash's BadDataError name for Vane's ValidationError. */
t.test('the admin UI\'s housekeeping calls, as Unleash 8.2 answers them', async (t) => {
  const app = await buildTestApp(t);
  const cookies = await roleCookies(app);
  const post = (url: string, body: string | null, headers: Record<string, string> = body === null ? ADMIN : JSON_ADMIN) =>
    app.inject({ method: 'POST', url, headers, ...(body === null ? {} : { payload: body }) });

  await t.test('POST /api/admin/ui-config/cors: stored, shown in ui-config, a setting event every time', async (t) => {
    const origins = async () => (await send(app, 'GET', '/api/admin/ui-config')).json().frontendApiOrigins;
    t.same(await origins(), ['*'], 'FRONTEND_API_ORIGINS until set');
    let first = true;
    for (const { body, status, answer, events, origins: after } of REFERENCE.cors as Array<Case & { events: Array<Record<string, unknown>>; origins: string[] }>) {
      const before = await lastEventId(app);
      const res = await post('/api/admin/ui-config/cors', body);
      t.equal(res.statusCode, status, String(body));
      t.same(asUnleash(res.body === '' ? null : res.json()), withoutId(answer), String(body));
      const recorded = (await eventsAfter(app, before)).map((e) => ({ type: e.type, data: e.data, preData: e.preData }));
      const expected = events.map((e) => ({ type: e.type, data: e.data, preData: e.preData }));
      if (first && expected.length > 0) {
        // The reference had origins set before; a database that never had them records setting-created.
        t.same(recorded, [{ type: REFERENCE.corsFirstEver.type, data: REFERENCE.corsFirstEver.data, preData: null }], 'first ever: setting-created');
        first = false;
      } else {
        t.same(recorded, expected, `events of ${String(body)}`);
      }
      t.same(await origins(), after, 'ui-config shows them');
    }
  });

  await t.test('the frontend API answers browsers from the origins set, at once', async (t) => {
    t.equal((await post('/api/admin/ui-config/cors', JSON.stringify({ frontendApiOrigins: ['https://ok.example.com'] }))).statusCode, 204);
    const preflight = (origin: string) => app.inject({
      method: 'OPTIONS', url: '/api/frontend', headers: { origin, 'access-control-request-method': 'GET' },
    });
    const allowed = await preflight('https://ok.example.com');
    t.equal(allowed.statusCode, 204);
    t.equal(allowed.headers['access-control-allow-origin'], 'https://ok.example.com');
    t.notOk((await preflight('https://no.example.com')).headers['access-control-allow-origin']);
    t.equal((await post('/api/admin/ui-config/cors', JSON.stringify({ frontendApiOrigins: ['*'] }))).statusCode, 204);
    t.equal((await preflight('https://no.example.com')).headers['access-control-allow-origin'], '*');
  });

  await t.test('POST /api/admin/record-ui-error and GET /api/admin/telemetry/settings', async (t) => {
    for (const { body, status, answer } of REFERENCE.uiErrors as Case[]) {
      const res = await post('/api/admin/record-ui-error', body);
      t.equal(res.statusCode, status, String(body));
      t.same(asUnleash(res.body === '' ? null : res.json()), withoutId(answer), String(body));
    }
    t.equal((await post('/api/admin/record-ui-error', null)).statusCode, 415, 'no body, no content type');
    t.equal((await send(app, 'GET', '/api/admin/telemetry/settings')).body, JSON.stringify(REFERENCE.telemetry));
  });

  await t.test('POST /api/admin/splash/:splashId: seen by the person, shown in their profile; the admin token stores nothing', async (t) => {
    const adminToken = await post('/api/admin/splash/splash', null);
    t.equal(adminToken.body, JSON.stringify({ ...REFERENCE.splashAdminToken, splashId: 'splash' }));
    const viewerId = (await app.inject({ method: 'GET', url: '/api/admin/user', headers: asPerson(cookies.viewer) })).json().user.id;
    for (const id of ['first', 'splash', 'first']) {
      const res = await app.inject({ method: 'POST', url: `/api/admin/splash/${id}`, headers: { cookie: cookies.viewer, origin: 'http://localhost:4242' } });
      t.equal(res.statusCode, 200);
      t.equal(res.body, JSON.stringify({ ...REFERENCE.splashViewer, splashId: id, userId: viewerId }), 'key order: seen, splashId, userId');
    }
    const profile = (await app.inject({ method: 'GET', url: '/api/admin/user', headers: asPerson(cookies.viewer) })).json();
    t.equal(JSON.stringify(profile.splash), JSON.stringify({ first: true, splash: true }), 'in the order first seen');
    t.same((await send(app, 'GET', '/api/admin/user')).json().splash, {}, 'the admin token has none');
  });

  await t.test('who may call what', async (t) => {
    const { viewer, editor } = cookies;
    const client = await createToken(app, 'client', ['*']);
    const frontend = await createToken(app, 'frontend', ['*']);
    const bodies: Record<string, string | undefined> = {
      '/api/admin/record-ui-error': '{"errorMessage":"x"}', '/api/admin/ui-config/cors': '{"frontendApiOrigins":["*"]}',
    };
    for (const [operation, expected] of Object.entries(REFERENCE.permissions as Record<string, Record<string, number | Record<string, unknown>>>)) {
      const [method, path] = operation.split(' ') as [string, string];
      const body = bodies[path];
      const json: Record<string, string> = body ? { 'content-type': 'application/json' } : {};
      const call = (headers: Record<string, string>) => app.inject({ method: method as 'GET', url: path, headers: { ...headers, ...json }, ...(body ? { payload: body } : {}) });
      const asViewer = await call({ cookie: viewer, origin: 'http://localhost:4242' });
      const asEditor = await call({ cookie: editor, origin: 'http://localhost:4242' });
      t.same({
        viewer: asViewer.statusCode, editor: asEditor.statusCode,
        client: (await call({ authorization: client })).statusCode, frontend: (await call({ authorization: frontend })).statusCode, none: (await call({})).statusCode,
      }, { viewer: expected.viewer, editor: expected.editor, client: expected.client, frontend: expected.frontend, none: expected.none }, operation);
      // Vane's 403 names the one permission the route declares (rules D1; Unleash lists ADMIN beside it).
      if (expected.viewerBody) t.match(asViewer.json(), { name: 'NoAccessError', permissions: ['UPDATE_CORS'] }, `${operation}: the Viewer's 403`);
    }
  });
});
