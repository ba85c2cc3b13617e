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
 * start with PREFIX (the reference holds other people's flags).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { commandLine, usageError } from '../cli.js';
import { eventView, normaliseAdmin, type EventView } from './admin-run.js';
import { resolveRefs } from './config.js';
import { capturedId, recordedBody, withRefs, type RecordedSteps } from './recorded-steps.js';
import { send } from './surfaces.js';

const USAGE = `
Usage: node dist/tools/difftest/record-admin.js [--peer URL] [--peer-token TOKEN] FIXTURE.json

Sends the fixture's steps to the Unleash reference in order and writes each answer and the events
it recorded into the fixture.

  --peer URL           the reference (default http://127.0.0.1:4242)
  --peer-token TOKEN   its admin token (default *:*.peer-admin-token)
`;
const { values: args, positionals } = commandLine(USAGE, {
  allowPositionals: true,
  options: {
    peer: { type: 'string', default: 'http://127.0.0.1:4242' },
    'peer-token': { type: 'string', default: '*:*.peer-admin-token' },
  },
});

async function main(): Promise<void> {
  const file = positionals[0];
  if (file === undefined || positionals.length > 1) usageError(USAGE, 'expected one fixture file');
  const fixture = JSON.parse(readFileSync(file, 'utf8')) as RecordedSteps;
  const token = args['peer-token'];
  const ids = new Map<string, unknown>();
  let actor: string | undefined;
  const latest = async () => ((JSON.parse((await send(args.peer, token, 'GET', '/api/admin/search/events?limit=50')).text) as { events: EventView[] }).events);
  let last = Math.max(0, ...(await latest()).map((event) => event.id));
  for (const step of fixture.steps) {
    const path = step.path.replace(/\{ref:([^}]+)\}/g, (_m, name: string) => String(ids.get(name) ?? name));
    const answer = await send(args.peer, token, step.method, path, step.body === undefined ? undefined : resolveRefs(step.body, ids));
    if (step.settleMs) await sleep(step.settleMs);
    const events = (await latest()).filter((event) => event.id > last).reverse();
    last = Math.max(last, ...events.map((event) => event.id));
    actor ??= events.find((event) => typeof event.createdBy === 'string')?.createdBy as string | undefined;
    const body = recordedBody(answer.text, step.only);
    if (step.capture !== undefined && capturedId(body, step) !== undefined) ids.set(step.capture, capturedId(body, step));
    step.status = answer.status;
    step.response = normaliseAdmin(withRefs(body, ids), actor);
    step.events = events.map((event) => eventView(withRefs(event, ids) as EventView, actor));
  }
  fixture.source = `recorded from the Unleash reference (${args.peer}) by tools/difftest/record-admin.ts on ${new Date().toISOString().slice(0, 10)}`;
  writeFileSync(file, `${JSON.stringify(fixture, null, 1)}\n`);
  console.log(`${fixture.steps.length} answers recorded into ${file}`);
}

await main();
