/**
 * Records what the Unleash reference's webhook addon sends and lists, for Vane's webhook tests
 * (test/features/addons/deliveries.test.ts): a receiver on loopback, the scenario's configurations
 * (webhooks.ts) created on the reference, then the scenario's writes; each request the receiver
 * got (path, the webhook's headers, body) and each configuration's integration events, made
 * comparable by `normaliseDelivery`.
 *
 * The reference must allow private addresses (start it with UNLEASH_ALLOW_PRIVATE_URL_IN_INTEGRATION=true)
 * and hands events only to the configurations it has read in the last minute: the recorder waits
 * `--settle-ms` between creating them and writing.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { commandLine, usageError } from '../cli.js';
import { send } from './surfaces.js';
import { normaliseDelivery, SCENARIO_WRITES, scenarioAddons, startReceiver } from './webhooks.js';

const USAGE = `
Usage: node dist/tools/difftest/record-webhooks.js [--peer URL] [--peer-token TOKEN] [--settle-ms N] FIXTURE.json

Creates the webhook scenario's configurations on the Unleash reference, waits for it to read
them, makes the scenario's writes and records what a loopback receiver got and what the
reference lists as each configuration's integration events.

  --peer URL           the reference (default http://127.0.0.1:4242), started with
                       UNLEASH_ALLOW_PRIVATE_URL_IN_INTEGRATION=true
  --peer-token TOKEN   its admin token (default *:*.peer-admin-token)
  --settle-ms N        wait after creating the configurations (default 65000: Unleash reads them once a minute)
`;
const { values: args, positionals } = commandLine(USAGE, {
  allowPositionals: true,
  options: {
    peer: { type: 'string', default: 'http://127.0.0.1:4242' },
    'peer-token': { type: 'string', default: '*:*.peer-admin-token' },
    'settle-ms': { type: 'string', default: '65000' },
  },
});

async function main(): Promise<void> {
  const file = positionals[0];
  if (file === undefined || positionals.length > 1) usageError(USAGE, 'expected one fixture file');
  const token = args['peer-token'];
  const receiver = await startReceiver();
  const ids: number[] = [];
  for (const addon of scenarioAddons(receiver.url)) {
    const created = await send(args.peer, token, 'POST', '/api/admin/addons', addon);
    if (created.status !== 201) throw new Error(`creating ${JSON.stringify(addon)}: ${created.status} ${created.text}`);
    ids.push((JSON.parse(created.text) as { id: number }).id);
  }
  await sleep(Number(args['settle-ms']));
  const flag = `hook-${randomBytes(4).toString('hex')}`;
  for (const [method, path, body] of SCENARIO_WRITES) {
    const answer = await send(args.peer, token, method, path.replace('{flag}', flag), body === undefined ? undefined : JSON.parse(JSON.stringify(body).replace('{flag}', flag)));
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`);
  }
  // Delivered once the reference announces the events (every second); quiet for 5 s is done.
  for (let count = -1; count !== receiver.received.length;) {
    count = receiver.received.length;
    await sleep(5000);
  }
  const integrationEvents = [];
  for (const id of ids) {
    const listed = JSON.parse((await send(args.peer, token, 'GET', `/api/admin/addons/${id}/events`)).text) as { integrationEvents: unknown[] };
    integrationEvents.push(normaliseDelivery(listed.integrationEvents, flag));
  }
  await receiver.close();
  const fixture = {
    source: `recorded from the Unleash reference (${args.peer}) by tools/difftest/record-webhooks.ts on ${new Date().toISOString().slice(0, 10)}`,
    about: 'What the webhook addon of Unleash 8.2 sends for the scenario of tools/difftest/webhooks.ts (requests by path, in the order received) '
      + 'and lists as each configuration\'s integration events (newest first), ids, times and group ids replaced, the receiver at {receiver}.',
    received: receiver.received.map(({ path, headers, body }) => ({ path, headers, body: normaliseDelivery(body, flag) })),
    integrationEvents,
  };
  writeFileSync(file, `${JSON.stringify(fixture, null, 1).replaceAll(receiver.url, '{receiver}')}\n`);
  console.log(`${receiver.received.length} requests and ${ids.length} configurations' integration events recorded into ${file}`);
}

await main();
