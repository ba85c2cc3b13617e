import { readFileSync } from 'node:fs';
import t from 'tap';
import { ADMIN, buildTestApp, JSON_ADMIN, send } from '../../helpers/app.js';
import { asPerson, roleCookies } from '../../helpers/sessions.js';
import { createToken } from '../client-api/helpers.js';
import { asUnleash, withoutId } from '../../helpers/samples.js';

/** Recorded on Unleash 8.2 (the reference server) with the same calls; names without the run's prefix. */
const REFERENCE = JSON.parse(readFileSync(new URL('../../../../test/fixtures/metrics/reference.json', import.meta.url), 'utf8'));

const HOUR_MS = 3_600_000;
const DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Times differ between runs: every ISO date becomes `<date>`, an hour bucket its offset from the current hour. */
function timeless(value: unknown): unknown {
  const hour = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
  return JSON.parse(JSON.stringify(value), (key, v: unknown) => {
    if (typeof v !== 'string' || !DATE.test(v)) return v;
    return key === 'timestamp' ? `H${(new Date(v).getTime() - hour) / HOUR_MS}` : '<date>';
  });
}

/** The reference's hours are relative to when it was recorded. */
function referenceTimeless(value: unknown, recordedHour: number): unknown {
  return JSON.parse(JSON.stringify(value), (key, v: unknown) => {
    if (typeof v !== 'string' || !DATE.test(v)) return v;
    return key === 'timestamp' ? `H${(new Date(v).getTime() - recordedHour) / HOUR_MS}` : '<date>';
  });
}

/** Vane names a 400 for invalid data ValidationError where Unleash says BadDataError (docs/rules.md D1). */
t.test('applications, their instances and a flag\'s hourly metrics, as Unleash 8.2 answers them', async (t) => {
  const app = await buildTestApp(t);
  for (const name of ['flag', 'quiet']) t.equal((await send(app, 'POST', '/api/admin/projects/default/features', { name })).statusCode, 201);
  const client = await createToken(app, 'client', ['*']);
  const sdk = (url: string, payload: object) =>
    app.inject({ method: 'POST', url, headers: { authorization: client, 'content-type': 'application/json' }, payload });
  const start = new Date(Date.now() - 30_000).toISOString();
  t.same([
    (await sdk('/api/client/register', {
      appName: 'app', instanceId: 'i1', sdkVersion: 'unleash-client-node:3.0.0', strategies: ['default', 'nope'], started: start, interval: 10000,
    })).statusCode,
    (await sdk('/api/client/metrics', {
      appName: 'app', instanceId: 'i1', bucket: { start, stop: start, toggles: { flag: { yes: 5, no: 2, variants: { v1: 3 } }, ghost: { yes: 1, no: 0 } } },
    })).statusCode,
    (await sdk('/api/client/metrics', { appName: 'other', instanceId: 'o1', bucket: { start, stop: start, toggles: { flag: { yes: 1, no: 0 } } } })).statusCode,
  ], REFERENCE.sdkStatuses);
  // A metrics report writes its application, then its instance, after the answer.
  const written = async () => (await send(app, 'GET', '/api/admin/metrics/instances/other/environment/development')).json().instances.length > 0;
  for (let i = 0; i < 100 && !(await written()); i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const get = async (url: string) => {
    const res = await send(app, 'GET', url);
    t.equal(res.statusCode, 200, url);
    return res.json();
  };
  // An application shows each strategy as GET /api/admin/strategies lists it: the built-ins as Unleash 8.2 does.
  // The reference recorded its current hour as the one of its reported bucket (the last entry).
  const recordedHour = new Date(REFERENCE.raw2.data.at(-1).timestamp as string).getTime();

  await t.test('GET /api/admin/client-metrics/features/:name/raw', async (t) => {
    t.same(timeless(await get('/api/admin/client-metrics/features/flag/raw?hoursBack=2')), referenceTimeless(REFERENCE.raw2, recordedHour));
    t.equal(JSON.stringify(timeless(await get('/api/admin/client-metrics/features/flag/raw?hoursBack=2'))),
      JSON.stringify(referenceTimeless(REFERENCE.raw2, recordedHour)), 'key order of reported and filled hours');
    t.equal((await get('/api/admin/client-metrics/features/flag/raw')).data.length, REFERENCE.rawDefaultLength);
    for (const [hoursBack, length] of Object.entries(REFERENCE.rawHoursBack as Record<string, number>)) {
      t.equal((await get(`/api/admin/client-metrics/features/flag/raw?hoursBack=${hoursBack}`)).data.length, length, `hoursBack=${hoursBack}`);
    }
    t.same(await get('/api/admin/client-metrics/features/missing/raw'), REFERENCE.rawMissing);
    t.same(await get('/api/admin/client-metrics/features/quiet/raw'), REFERENCE.rawQuiet);
    t.same(await get('/api/admin/client-metrics/features/ghost/raw'), REFERENCE.rawMissing, 'a reported name that is not a flag has none');
  });

  await t.test('one application, its overview and instances', async (t) => {
    t.equal(JSON.stringify(timeless(await get('/api/admin/metrics/applications/app'))), JSON.stringify(timeless(REFERENCE.app)));
    t.equal(JSON.stringify(timeless(await get('/api/admin/metrics/applications/other'))), JSON.stringify(timeless(REFERENCE.appFromMetrics)));
    const missing = await send(app, 'GET', '/api/admin/metrics/applications/missing');
    t.same([missing.statusCode, withoutId(missing.json())], REFERENCE.appMissing);
    t.equal(JSON.stringify(timeless(await get('/api/admin/metrics/applications/app/overview'))), JSON.stringify(timeless(REFERENCE.overview)));
    t.equal(JSON.stringify(timeless(await get('/api/admin/metrics/instances/app/environment/development'))), JSON.stringify(timeless(REFERENCE.instances)));
    t.same(await get('/api/admin/metrics/instances/app/environment/production'), REFERENCE.instancesOtherEnv);
  });

  await t.test('outdated SDKs, a project\'s applications, unknown flags', async (t) => {
    // The reference lists other runs' applications beside this one's.
    t.same(await get('/api/admin/metrics/sdks/outdated'), { sdks: [{ sdkVersion: 'unleash-client-node:3.0.0', applications: ['app'] }] });
    t.same(Object.keys(REFERENCE.outdated.sdks[0]), ['sdkVersion', 'applications']);
    t.same(await get('/api/admin/projects/default/sdks/outdated'), { sdks: [{ sdkVersion: 'unleash-client-node:3.0.0', applications: ['app'] }] });
    t.same(await get('/api/admin/projects/no-such-project-D/sdks/outdated'), REFERENCE.projectOutdatedMissing);
    t.equal(JSON.stringify(await get('/api/admin/projects/default/applications')), JSON.stringify(REFERENCE.projectApplications));
    t.same(await get('/api/admin/projects/default/applications?limit=1&offset=1&sortOrder=desc'), REFERENCE.projectApplicationsPage);
    t.same(await get('/api/admin/projects/default/applications?query=zzz'), { applications: [], total: 0 });
    t.same(await get('/api/admin/projects/default/applications?query=NODE'), { ...REFERENCE.projectApplications, applications: [REFERENCE.projectApplications.applications[0]], total: 1 });
    t.same(await get('/api/admin/projects/no-such-project-D/applications'), REFERENCE.projectApplicationsMissing);
    t.same(timeless(await get('/api/admin/metrics/unknown-flags')), { unknownFlags: timeless(REFERENCE.unknownFlagsOwn) });
  });

  await t.test('POST and DELETE an application: statuses, bodies, what is stored (no event)', async (t) => {
    const before = (await send(app, 'GET', '/api/admin/events?limit=1')).json().events[0]?.id ?? 0;
    for (const { body, status, answer } of REFERENCE.posts as Array<{ body: string | null; status: number; answer: Record<string, unknown> | null }>) {
      const res = await app.inject({
        method: 'POST', url: '/api/admin/metrics/applications/made', headers: body === null ? ADMIN : JSON_ADMIN, ...(body === null ? {} : { payload: body }),
      });
      t.equal(res.statusCode, status, String(body));
      t.same(asUnleash(res.body === '' ? null : res.json()), answer === null ? null : withoutId(answer), String(body));
    }
    t.equal(JSON.stringify(timeless(await get('/api/admin/metrics/applications/made'))), JSON.stringify(timeless(REFERENCE.made)));
    const listed = (await get('/api/admin/metrics/applications')).applications;
    t.equal(JSON.stringify(timeless(listed)), JSON.stringify(timeless(REFERENCE.madeListed)));
    const deleted = await send(app, 'DELETE', '/api/admin/metrics/applications/made');
    const after = await send(app, 'GET', '/api/admin/metrics/applications/made');
    const again = await send(app, 'DELETE', '/api/admin/metrics/applications/made');
    t.same([[deleted.statusCode, deleted.body === '' ? null : deleted.body], after.statusCode, [again.statusCode, again.body === '' ? null : again.body]], REFERENCE.delete);
    t.equal((await send(app, 'GET', '/api/admin/events?limit=1')).json().events[0]?.id ?? 0, before, 'no event');
  });

  await t.test('who may call what: every role reads; Editors and Admins change; SDK tokens are refused', async (t) => {
    const cookies = await roleCookies(app);
    const frontend = await createToken(app, 'frontend', ['*']);
    const permissions = REFERENCE.permissions as Record<string, Record<string, number | object>>;
    for (const [operation, expected] of Object.entries(permissions)) {
      const [method, path] = operation.split(' ') as [string, string];
      if (path.startsWith('/api/admin/splash') || path.startsWith('/api/admin/record-ui') || path.startsWith('/api/admin/telemetry') || path.startsWith('/api/admin/ui-config')) continue;
      const body = method === 'POST' ? '{}' : undefined;
      const call = (headers: Record<string, string>) => app.inject({ method: method as 'GET', url: path, headers, ...(body ? { payload: body } : {}) });
      const json: Record<string, string> = body ? { 'content-type': 'application/json' } : {};
      const statuses = {
        viewer: (await call({ ...asPerson(cookies.viewer), ...json })).statusCode,
        editor: (await call({ ...asPerson(cookies.editor), ...json })).statusCode,
        client: (await call({ authorization: client, ...json })).statusCode,
        frontend: (await call({ authorization: frontend, ...json })).statusCode,
        none: (await call({ ...json })).statusCode,
      };
      t.same(statuses, { viewer: expected.viewer, editor: expected.editor, client: expected.client, frontend: expected.frontend, none: expected.none }, operation);
    }
  });
});

t.test('the applications list a page at a time, as Unleash 8.2 pages it (measured with these four names)', async (t) => {
  const app = await buildTestApp(t);
  for (const name of ['zeta-app', 'alpha-app', 'Mid-app', 'beta']) {
    t.equal((await send(app, 'POST', `/api/admin/metrics/applications/${name}`, { description: `d ${name}` })).statusCode, 202);
  }
  const page = async (query: string) => {
    const res = await app.inject({ method: 'GET', url: `/api/admin/metrics/applications?${query}`, headers: ADMIN });
    t.equal(res.statusCode, 200, query);
    const body = res.json<{ applications: Array<{ appName: string }>; total: number }>();
    return [body.applications.map((a) => a.appName).join(' '), body.total];
  };
  const all = 'Mid-app alpha-app beta zeta-app';
  const expected: Array<[string, string, number]> = [
    ['', all, 4],
    ['limit=2', 'Mid-app alpha-app', 4],
    ['offset=1&limit=2', 'alpha-app beta', 4],
    ['offset=3', 'zeta-app', 4],
    ['offset=10', '', 0],
    ['sortBy=appName&sortOrder=desc', 'zeta-app beta alpha-app Mid-app', 4],
    ['sortBy=createdAt&sortOrder=DESC', all, 4],
    ['query=APP', 'Mid-app alpha-app zeta-app', 3],
    ['query=et', 'beta zeta-app', 2],
    ['query=d%20', 'Mid-app', 1],
    ['limit=abc', all, 4],
    ['limit=0', all, 4],
    ['offset=-1', all, 4],
    ['query=a&limit=1', 'Mid-app', 4],
    ['query=zeta&limit=1&offset=1', '', 0],
  ];
  for (const [query, names, total] of expected) t.same(await page(query), [names, total], query);
});
