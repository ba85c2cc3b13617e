/**
 * Records the Unleash reference's answers to calls made as different principals, outside the admin
 * token's sequences that record-admin.ts records: `node dist/tools/difftest/record-calls.js --peer URL
 * test/fixtures/maintenance/mode.json test/fixtures/edge/reference.json`.
 *
 * A fixture lists `setup` (admin calls made first, answers not kept) and `calls`, each made `as` a
 * principal the recorder creates: `admin` (the admin token), `viewer` (a Viewer's session), `client`
 * and `frontend` tokens, `anonymous` (no credential) or `bogus` (a secret nobody has). In a call's
 * path, body and headers, `<admin>`, `<client>` and `<frontend>` stand for those tokens' secrets,
 * `<viewer>` for the Viewer's e-mail, `<password>` for its password, `<now>` for the time of the
 * call and `<stale>` for ten minutes before it; the answers are recorded with the secrets put back
 * as placeholders. With `maintenance: true` the calls are made while maintenance mode is on, and
 * `operations` gets the status of every /api/admin operation of the reference's OpenAPI document
 * sent then by the admin token (record-permissions.ts's paths, body {}); it is turned off after.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { commandLine, usageError } from '../cli.js';
import { normaliseAdmin } from './admin-run.js';
import { recordedBody } from './recorded-steps.js';
import { adminOperations, PARAMETERS, PASSWORD } from './record-permissions.js';
import { createToken, send } from './surfaces.js';

/** Longer than Unleash's one-minute memory of maintenance mode (maintenance-service.ts, memoizee maxAge). */
const SETTLE_MS = 61_000;

export const CALLERS = ['admin', 'viewer', 'client', 'frontend', 'anonymous', 'bogus'] as const;
export type Caller = (typeof CALLERS)[number];

export interface RecordedCall {
  as: Caller;
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  status?: number;
  response?: unknown;
}

export interface CallFixture {
  source: string;
  about: string;
  maintenance?: boolean;
  setup?: Array<{ method: string; path: string; body?: unknown }>;
  calls: RecordedCall[];
  /** `METHOD /path/{param}` → the admin token's status while maintenance mode is on. */
  operations?: Record<string, number>;
}

/** The values a fixture's placeholders stand for. */
export interface Placeholders {
  admin: string;
  client: string;
  frontend: string;
  viewer: string;
}

/** A value with every placeholder replaced: secrets, the Viewer, and the times of the call. */
export function fillIn<T>(value: T, known: Placeholders, now = Date.now()): T {
  const text = JSON.stringify(value)
    .replaceAll('<admin>', known.admin).replaceAll('<client>', known.client).replaceAll('<frontend>', known.frontend)
    .replaceAll('<viewer>', known.viewer).replaceAll('<password>', PASSWORD)
    .replaceAll('<now>', new Date(now).toISOString()).replaceAll('<stale>', new Date(now - 10 * 60_000).toISOString());
  return text === undefined ? value : JSON.parse(text) as T;
}

/** An answer with the secrets and the Viewer put back as placeholders, ids and times normalised. */
export function asRecorded(text: string, known: Placeholders): unknown {
  let replaced = text;
  for (const name of ['admin', 'client', 'frontend', 'viewer'] as const) replaced = replaced.replaceAll(known[name], `<${name}>`);
  return normaliseAdmin(recordedBody(replaced, undefined), undefined);
}

/** The headers a caller sends, besides the call's own. */
export function callerHeaders(as: Caller, known: Placeholders, cookie: string): Record<string, string> {
  switch (as) {
    case 'admin': return { authorization: known.admin };
    case 'client': return { authorization: known.client };
    case 'frontend': return { authorization: known.frontend };
    case 'bogus': return { authorization: '*:development.not-a-token' };
    case 'viewer': return { cookie };
    case 'anonymous': return {};
  }
}

const USAGE = `
Usage: node dist/tools/difftest/record-calls.js [--peer URL] [--peer-token TOKEN] FIXTURE.json...

Makes each fixture's calls on the Unleash reference as the principals they name and writes the
answers into the fixture (with maintenance: true, while maintenance mode is on).

  --peer URL           the reference (default http://127.0.0.1:4242)
  --peer-token TOKEN   its admin token (default *:*.peer-admin-token)
`;

async function viewerSession(base: string, adminToken: string): Promise<{ email: string; cookie: string }> {
  const email = `calls-viewer-${Date.now()}@example.com`;
  const user = { email, name: 'calls viewer', rootRole: 3, password: PASSWORD };
  const created = await send(base, adminToken, 'POST', '/api/admin/user-admin', user);
  if (created.status !== 201) throw new Error(`creating the Viewer answered ${created.status} ${created.text}`);
  const login = await fetch(`${base}/auth/simple/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: email, password: PASSWORD }),
  });
  const cookie = login.headers.getSetCookie().find((line) => line.startsWith('unleash-session='));
  if (login.status !== 200 || !cookie) throw new Error(`the Viewer's login answered ${login.status}`);
  return { email, cookie: cookie.split(';')[0]! };
}

async function maintenance(base: string, adminToken: string, enabled: boolean): Promise<void> {
  const res = await send(base, adminToken, 'POST', '/api/admin/maintenance', { enabled });
  if (res.status !== 204) throw new Error(`turning maintenance mode ${enabled ? 'on' : 'off'} answered ${res.status} ${res.text}`);
}

async function record(base: string, adminToken: string, file: string): Promise<void> {
  const fixture = JSON.parse(readFileSync(file, 'utf8')) as CallFixture;
  const viewer = await viewerSession(base, adminToken);
  const known: Placeholders = {
    admin: adminToken,
    client: await createToken(base, adminToken, 'client', 'development', ['*']),
    frontend: await createToken(base, adminToken, 'frontend', 'development', ['*']),
    viewer: viewer.email,
  };
  for (const step of fixture.setup ?? []) {
    const res = await send(base, adminToken, step.method, step.path, fillIn(step.body, known));
    if (res.status >= 300) throw new Error(`setup ${step.method} ${step.path} answered ${res.status} ${res.text}`);
  }
  const document = await (await fetch(`${base}/docs/openapi.json`)).json() as { paths: Record<string, Record<string, unknown>> };
  // Unleash 8.2's permission check of a segment route reads the segment and crashes the server on
  // an unknown id (record-permissions.ts): the sweep names one that exists.
  const segment = fixture.maintenance
    ? await send(base, adminToken, 'POST', '/api/admin/segments', { name: `calls-seg-${Date.now()}`, constraints: [] })
    : undefined;
  const segmentId = segment ? String((JSON.parse(segment.text) as { id: number }).id) : '';
  if (fixture.maintenance) {
    await maintenance(base, adminToken, true);
    // Unleash remembers the mode for a minute, and a scheduled job that asks while the switch is
    // stored keeps the old answer that long (measured: a flag created 201 right after turning it on).
    await sleep(SETTLE_MS);
  }
  try {
    for (const call of fixture.calls) {
      const res = await fetch(base + fillIn(call.path, known), {
        method: call.method,
        headers: {
          ...callerHeaders(call.as, known, viewer.cookie),
          ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...fillIn(call.headers ?? {}, known),
        },
        ...(call.body === undefined ? {} : { body: JSON.stringify(fillIn(call.body, known)) }),
      });
      call.status = res.status;
      call.response = asRecorded(await res.text(), known);
    }
    if (fixture.maintenance) {
      const operations: Record<string, number> = {};
      for (const operation of adminOperations(document)) {
        const withBody = operation.method !== 'GET' && operation.method !== 'DELETE';
        const url = operation.url.replace(`/segments/${PARAMETERS.id}`, `/segments/${segmentId}`);
        const res = await send(base, adminToken, operation.method, url, withBody ? {} : undefined);
        operations[operation.key] = res.status;
      }
      fixture.operations = operations;
    }
  } finally {
    if (fixture.maintenance) await maintenance(base, adminToken, false);
  }
  const day = new Date().toISOString().slice(0, 10);
  fixture.source = `recorded from the Unleash reference (${base}) by tools/difftest/record-calls.ts on ${day}`;
  writeFileSync(file, `${JSON.stringify(fixture, null, 1)}\n`);
  const swept = fixture.operations ? ` and ${Object.keys(fixture.operations).length} operations` : '';
  console.log(`${fixture.calls.length} calls${swept} recorded into ${file}`);
}

async function main(): Promise<void> {
  const { values: args, positionals } = commandLine(USAGE, {
    allowPositionals: true,
    options: {
      peer: { type: 'string', default: 'http://127.0.0.1:4242' },
      'peer-token': { type: 'string', default: '*:*.peer-admin-token' },
    },
  });
  if (positionals.length === 0) usageError(USAGE, 'expected at least one fixture file');
  for (const file of positionals) await record(args.peer, args['peer-token'], file);
}

if (process.argv[1]?.endsWith('record-calls.js')) await main();
