/**
 * Who may call each admin operation, held to the Unleash reference: every /api/admin operation
 * Vane serves is sent by a Viewer, an Editor, a client and a frontend token as
 * tools/difftest/record-permissions.ts sent it to Unleash 8.2 (test/fixtures/permissions/admin.json),
 * and each principal Unleash refuses (401/403 where the admin token is not) Vane refuses with the
 * same status, and none other.
 */
import { readFileSync } from 'node:fs';
import t from 'tap';
import { adminOperations, PRINCIPALS, PARAMETERS, type PermissionFixture, type Principal } from '../../tools/difftest/record-permissions.js';
import { ADMIN, buildTestApp, send } from '../helpers/app.js';
import { ORIGIN, roleCookies } from '../helpers/sessions.js';

const fixture = JSON.parse(readFileSync(new URL('../../../test/fixtures/permissions/admin.json', import.meta.url), 'utf8')) as PermissionFixture;
/** docs/rules.md D12: where Unleash decides after the body or by the flag's project. */
const D12: ReadonlyArray<[string, Principal]> = [
  ['PUT /api/admin/projects/{projectId}/features/{featureName}/variants-batch', 'viewer'],
  ['POST /api/admin/segments/strategies', 'viewer'],
  ['POST /api/admin/features/{featureName}/tags', 'editor'],
  ['PUT /api/admin/features/{featureName}/tags', 'editor'],
  ['DELETE /api/admin/features/{featureName}/tags/{type}/{value}', 'editor'],
  ['POST /api/admin/archive/revive/{featureName}', 'editor'],
];
const refused = (statuses: Record<Principal, number>, principal: Principal) =>
  (statuses[principal] === 401 || statuses[principal] === 403) && statuses.admin !== 401 && statuses.admin !== 403;

t.test('every admin operation Vane serves refuses whom Unleash 8.2 refuses, and only them', async (t) => {
  const app = await buildTestApp(t);
  const cookies = await roleCookies(app);
  const token = async (type: 'client' | 'frontend') =>
    (await send(app, 'POST', '/api/admin/api-tokens', { tokenName: `perm-${type}`, type, environment: 'development', projects: ['*'] })).json().secret as string;
  const headers: Record<Principal, Record<string, string>> = {
    admin: ADMIN,
    viewer: { cookie: cookies.viewer, origin: ORIGIN },
    editor: { cookie: cookies.editor, origin: ORIGIN },
    client: { authorization: await token('client') },
    frontend: { authorization: await token('frontend') },
  };
  const served = adminOperations((await app.inject({ method: 'GET', url: '/docs/openapi.json' })).json());
  const vaneKeys = new Set(served.map((operation) => operation.key.replace(/\{[^}]+\}/g, '{}')));
  const reference = adminOperations({ paths: Object.fromEntries(Object.keys(fixture.operations).map((key) => [key.slice(key.indexOf(' ') + 1), { [key.slice(0, key.indexOf(' ')).toLowerCase()]: {} }])) });
  let compared = 0;
  for (const operation of reference) {
    if (!vaneKeys.has(operation.key.replace(/\{[^}]+\}/g, '{}'))) continue;
    const expected = fixture.operations[operation.key]!;
    for (const principal of PRINCIPALS.filter((p) => p !== 'admin')) {
      if (D12.some(([key, who]) => key === operation.key && who === principal)) continue;
      const url = operation.key.includes('/segments/{id}')
        ? operation.url.replace(`/segments/${PARAMETERS.id}`, `/segments/${(await send(app, 'POST', '/api/admin/segments', { name: `perm-${compared}-${principal}`, constraints: [] })).json().id}`)
        : operation.url;
      const withBody = operation.method !== 'GET' && operation.method !== 'DELETE';
      const res = await app.inject({
        method: operation.method as never, url,
        headers: { ...headers[principal], ...(withBody ? { 'content-type': 'application/json' } : {}) },
        ...(withBody ? { payload: '{}' } : {}),
      });
      const vaneRefused = res.statusCode === 401 || res.statusCode === 403;
      if (refused(expected, principal)) {
        t.equal(res.statusCode, expected[principal], `${operation.key} refuses the ${principal} (${res.body.slice(0, 120)})`);
      } else {
        t.notOk(vaneRefused, `${operation.key} lets the ${principal} through as Unleash does (Unleash ${expected[principal]}, Vane ${res.statusCode} ${res.body.slice(0, 120)})`);
      }
    }
    compared++;
  }
  t.ok(compared >= 100, `${compared} operations compared`);
});
