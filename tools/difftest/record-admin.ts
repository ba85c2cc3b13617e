/**
 * Records the Unleash reference's answers to a fixed list of admin calls into a fixture, so that a
 * test can hold Vane to them without the reference server:
 * `node dist/tools/difftest/record-admin.js --peer URL test/fixtures/AREA/NAME.json`.
 *
 * The fixture lists `steps` (`{method, path, body?, capture?, only?}`; `{ref:NAME}` in a path and
 * `"$ref:NAME"` in a body are the id a step captured under NAME); its flag names must be new on
 * the reference. Each step gets the reference's `status`, its body and the events it recorded,
 * made comparable as the admin surface compares them (`normaliseAdmin`, `eventView`: ids and times
 * replaced, events without who made them). `only: PREFIX` keeps, of an array of names, those that
 * start with PREFIX (the reference holds other people's flags). A step `as: "person"` is sent with
 * a personal access token of the reference's first admin user (\`--user\`, \`--password\`); one with
 * `keep: NAME` is recorded as it came, and a later body's `"$kept:NAME"` is that answer.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { commandLine, usageError } from '../cli.js';
import { eventView, normaliseAdmin, type EventView } from './admin-run.js';
import { resolveRefs } from './config.js';
import { capturedId, recordedBody, withKept, withRefs, type RecordedSteps } from './recorded-steps.js';
import { send } from './surfaces.js';

const USAGE = `
Usage: node dist/tools/difftest/record-admin.js [--peer URL] [--peer-token TOKEN] FIXTURE.json

Sends the fixture's steps to the Unleash reference in order and writes each answer and the events
it recorded into the fixture.

  --peer URL           the reference (default http://127.0.0.1:4242)
  --peer-token TOKEN   its admin token (default *:*.peer-admin-token)
  --user NAME          the user whose personal access token sends "as": "person" steps (default admin)
  --password TEXT      their password (default unleash4all)
`;
const { values: args, positionals } = commandLine(USAGE, {
  allowPositionals: true,
  options: {
    peer: { type: 'string', default: 'http://127.0.0.1:4242' },
    'peer-token': { type: 'string', default: '*:*.peer-admin-token' },
    user: { type: 'string', default: 'admin' },
    password: { type: 'string', default: 'unleash4all' },
  },
});

/** A personal access token of the user, made through their session. */
async function personToken(base: string, username: string, password: string): Promise<string> {
  const login = await fetch(`${base}/auth/simple/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }),
  });
  const cookie = login.headers.getSetCookie().find((line) => line.startsWith('unleash-session='))?.split(';')[0];
  // The whole answer first: the session is stored as it ends.
  await login.text();
  if (login.status !== 200 || !cookie) throw new Error(`${username}'s login answered ${login.status}`);
  const res = await fetch(`${base}/api/admin/user/tokens`, {
    method: 'POST', headers: { cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ description: `record-admin ${Date.now()}`, expiresAt: '2099-01-01T00:00:00.000Z' }),
  });
  if (res.status !== 201) throw new Error(`the personal access token answered ${res.status} ${await res.text()}`);
  return ((await res.json()) as { secret: string }).secret;
}

async function main(): Promise<void> {
  const file = positionals[0];
  if (file === undefined || positionals.length > 1) usageError(USAGE, 'expected one fixture file');
  const fixture = JSON.parse(readFileSync(file, 'utf8')) as RecordedSteps;
  const token = args['peer-token'];
  const ids = new Map<string, unknown>();
  const kept = new Map<string, unknown>();
  const person = fixture.steps.some((step) => step.as === 'person') ? await personToken(args.peer, args.user, args.password) : '';
  let actor: string | undefined;
  const latest = async () => ((JSON.parse((await send(args.peer, token, 'GET', '/api/admin/search/events?limit=50')).text) as { events: EventView[] }).events);
  let last = Math.max(0, ...(await latest()).map((event) => event.id));
  for (const step of fixture.steps) {
    const path = step.path.replace(/\{ref:([^}]+)\}/g, (_m, name: string) => String(ids.get(name) ?? name));
    const body = step.body === undefined ? undefined : resolveRefs(withKept(step.body, kept), ids);
    const answer = await send(args.peer, step.as === 'person' ? person : token, step.method, path, body);
    if (step.settleMs) await sleep(step.settleMs);
    const events = (await latest()).filter((event) => event.id > last).reverse();
    last = Math.max(last, ...events.map((event) => event.id));
    actor ??= events.find((event) => typeof event.createdBy === 'string')?.createdBy as string | undefined;
    const answered = recordedBody(answer.text, step.only);
    if (step.capture !== undefined && capturedId(answered, step) !== undefined) ids.set(step.capture, capturedId(answered, step));
    if (step.keep !== undefined) kept.set(step.keep, answered);
    step.status = answer.status;
    step.response = step.keep !== undefined ? answered : normaliseAdmin(withRefs(answered, ids), actor);
    step.events = events.map((event) => eventView(withRefs(event, ids) as EventView, actor));
  }
  fixture.source = `recorded from the Unleash reference (${args.peer}) by tools/difftest/record-admin.ts on ${new Date().toISOString().slice(0, 10)}`;
  writeFileSync(file, `${JSON.stringify(fixture, null, 1)}\n`);
  console.log(`${fixture.steps.length} answers recorded into ${file}`);
}

await main();
