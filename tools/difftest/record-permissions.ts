/**
 * Records who may call each admin operation of the Unleash reference into a fixture, so that a test
 * holds Vane's permissions to them without the reference server:
 * `node dist/tools/difftest/record-permissions.js --peer URL test/fixtures/permissions/admin.json`.
 *
 * Every operation under /api/admin in the reference's own OpenAPI document is sent once by each
 * principal (an admin token, a Viewer's and an Editor's session, a client and a frontend token),
 * with path parameters naming things that do not exist (so an allowed call changes nothing) and an
 * empty body. The answer's status is what the fixture keeps: a principal is refused when it gets
 * 401 or 403 and the admin token does not.
 */
import { writeFileSync } from 'node:fs';
import { commandLine, usageError } from '../cli.js';
import { createToken } from './surfaces.js';

export const PRINCIPALS = ['admin', 'viewer', 'editor', 'client', 'frontend'] as const;
export type Principal = (typeof PRINCIPALS)[number];

export interface PermissionFixture {
  source: string;
  about: string;
  /** `METHOD /path/with/{params}` → the status each principal got. */
  operations: Record<string, Record<Principal, number>>;
}

/**
 * Path parameters: the project and environment that exist everywhere, and names and ids nothing
 * has, so that an allowed call answers 400 or 404 instead of changing the configuration.
 */
export const PARAMETERS: Record<string, string> = {
  projectId: 'default', environment: 'development', featureName: 'perm-missing-flag', child: 'perm-missing-flag',
  parent: 'perm-missing-parent', id: '999999', token: 'perm-missing-token', name: 'perm-missing', type: 'simple',
  value: 'perm-missing', strategyName: 'perm-missing', appName: 'perm-missing-app', contextField: 'perm-missing',
  legalValue: 'perm-missing', strategyId: 'perm-missing-strategy', linkId: 'perm-missing-link',
};

export const PASSWORD = 'Correct-Horse-9';

/** `METHOD /path` of every /api/admin operation in an OpenAPI document, with its request path. */
export function adminOperations(document: { paths: Record<string, Record<string, unknown>> }): Array<{ key: string; method: string; url: string }> {
  const operations: Array<{ key: string; method: string; url: string }> = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    if (!path.startsWith('/api/admin/')) continue;
    for (const method of Object.keys(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const url = path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(PARAMETERS[name] ?? 'perm-missing'));
      operations.push({ key: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), url });
    }
  }
  return operations.sort((a, b) => a.key.localeCompare(b.key));
}

const USAGE = `
Usage: node dist/tools/difftest/record-permissions.js [--peer URL] [--peer-token TOKEN] FIXTURE.json

Sends every /api/admin operation of the reference's OpenAPI document as an admin token, a Viewer,
an Editor, a client token and a frontend token, and writes the statuses into FIXTURE.json.

  --peer URL           the reference (default http://127.0.0.1:4242)
  --peer-token TOKEN   its admin token (default *:*.peer-admin-token)
`;

async function sessionOf(base: string, adminToken: string, role: 'viewer' | 'editor'): Promise<string> {
  const email = `perm-${role}-${Date.now()}@example.com`;
  const created = await fetch(`${base}/api/admin/user-admin`, {
    method: 'POST', headers: { authorization: adminToken, 'content-type': 'application/json' },
    body: JSON.stringify({ email, name: `perm ${role}`, rootRole: role === 'viewer' ? 3 : 2, password: PASSWORD }),
  });
  if (created.status !== 201) throw new Error(`creating the ${role} answered ${created.status} ${await created.text()}`);
  const login = await fetch(`${base}/auth/simple/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: email, password: PASSWORD }),
  });
  const cookie = login.headers.getSetCookie().find((line) => line.startsWith('unleash-session='));
  if (login.status !== 200 || !cookie) throw new Error(`the ${role}'s login answered ${login.status}`);
  return cookie.split(';')[0]!;
}

let segments = 0;
async function createSegment(base: string, adminToken: string): Promise<number> {
  const res = await fetch(`${base}/api/admin/segments`, {
    method: 'POST', headers: { authorization: adminToken, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `perm-seg-${Date.now()}-${segments++}`, constraints: [] }),
  });
  if (res.status !== 201) throw new Error(`creating a segment answered ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: number }).id;
}

async function main(): Promise<void> {
  const { values: args, positionals } = commandLine(USAGE, {
    allowPositionals: true,
    options: {
      peer: { type: 'string', default: 'http://127.0.0.1:4242' },
      'peer-token': { type: 'string', default: '*:*.peer-admin-token' },
    },
  });
  const file = positionals[0];
  if (file === undefined || positionals.length > 1) usageError(USAGE, 'expected one fixture file');
  const base = args.peer;
  const adminToken = args['peer-token'];
  const document = await (await fetch(`${base}/docs/openapi.json`)).json() as { paths: Record<string, Record<string, unknown>> };
  const headers: Record<Principal, Record<string, string>> = {
    admin: { authorization: adminToken },
    viewer: { cookie: await sessionOf(base, adminToken, 'viewer') },
    editor: { cookie: await sessionOf(base, adminToken, 'editor') },
    client: { authorization: await createToken(base, adminToken, 'client', 'development', ['*']) },
    frontend: { authorization: await createToken(base, adminToken, 'frontend', 'development', ['*']) },
  };
  const operations: PermissionFixture['operations'] = {};
  for (const operation of adminOperations(document)) {
    const statuses = {} as Record<Principal, number>;
    // The admin last: its call is the one most likely to be allowed, and nothing it names exists.
    for (const principal of [...PRINCIPALS].reverse()) {
      const withBody = operation.method !== 'GET' && operation.method !== 'DELETE';
      // Unleash 8.2's permission check reads the segment first and crashes the server on an unknown
      // id (an unhandled NotFoundError in rbac-middleware): each call gets a segment of its own.
      const url = operation.key.includes('/segments/{id}')
        ? operation.url.replace(`/segments/${PARAMETERS.id}`, `/segments/${await createSegment(base, adminToken)}`)
        : operation.url;
      const res = await fetch(`${base}${url}`, {
        method: operation.method,
        headers: { ...headers[principal], ...(withBody ? { 'content-type': 'application/json' } : {}) },
        ...(withBody ? { body: '{}' } : {}),
      });
      await res.arrayBuffer();
      statuses[principal] = res.status;
    }
    operations[operation.key] = Object.fromEntries(PRINCIPALS.map((p) => [p, statuses[p]])) as Record<Principal, number>;
  }
  const fixture: PermissionFixture = {
    source: `recorded from the Unleash reference (${base}) by tools/difftest/record-permissions.ts`,
    about: 'Status of each /api/admin operation per principal, path parameters from PARAMETERS, body {}. Refused: 401 or 403 where the admin token is not.',
    operations,
  };
  writeFileSync(file, `${JSON.stringify(fixture, null, 1)}\n`);
  console.log(`${Object.keys(operations).length} operations recorded into ${file}`);
}

if (process.argv[1]?.endsWith('record-permissions.js')) await main();
