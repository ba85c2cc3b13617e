/**
 * Records the Unleash reference's frontend API answers into a fixture, so that a test can hold
 * Vane to them without the reference server:
 * `node dist/tools/difftest/record-frontend.js --peer URL test/fixtures/frontend-api/NAME.json`.
 *
 * The fixture names its `configuration` (admin requests, config.ts's form), the token's
 * `environment` and its `requests` (`{method: "POST", context}` or `{method: "GET", query}`); this
 * applies the configuration to the reference (flag names must be new there), asks every request
 * twice from this machine and writes each answer beside its request (`status`, `body`), marked
 * `random` when the two answers differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { commandLine, usageError } from '../cli.js';
import { applyConfiguration, type AdminRequest } from './config.js';
import { askFrontend, createFrontendToken, type FrontendRequest } from './surfaces.js';

export interface FrontendFixture {
  source: string;
  about: string;
  environment: string;
  /** Flags whose toggles a test compares together, by the rule they show. */
  groups?: Record<string, string[]>;
  configuration: AdminRequest[];
  requests: Array<FrontendRequest & { status?: number; body?: string; random?: boolean }>;
}

const USAGE = `
Usage: node dist/tools/difftest/record-frontend.js [--peer URL] [--peer-token TOKEN] FIXTURE.json

Applies the fixture's configuration to the Unleash reference, asks it every request of the fixture
twice and writes each answer into the fixture (marked random when the two differ).

  --peer URL           the reference (default http://127.0.0.1:4301)
  --peer-token TOKEN   its admin token (default *:*.peer-admin-token)
`;
const { values: args, positionals } = commandLine(USAGE, {
  allowPositionals: true,
  options: {
    peer: { type: 'string', default: 'http://127.0.0.1:4301' },
    'peer-token': { type: 'string', default: '*:*.peer-admin-token' },
  },
});

async function main(): Promise<void> {
  const file = positionals[0];
  if (file === undefined || positionals.length > 1) usageError(USAGE, 'expected one fixture file');
  const fixture = JSON.parse(readFileSync(file, 'utf8')) as FrontendFixture;
  const statuses = await applyConfiguration(args.peer, args['peer-token'], fixture.configuration);
  statuses.forEach((status, i) => {
    if (status >= 300) throw new Error(`request ${i} answered ${status}: ${JSON.stringify(fixture.configuration[i])}`);
  });
  const token = await createFrontendToken(args.peer, args['peer-token'], fixture.environment, ['default']);
  // Unleash's frontend API reads a cache refreshed on the next configuration revision (about 1 s).
  await sleep(3000);
  for (const request of fixture.requests) {
    const first = await askFrontend(args.peer, token, request);
    const second = await askFrontend(args.peer, token, request);
    request.status = first.status;
    request.body = first.body;
    if (first.body !== second.body) request.random = true;
    else delete request.random;
  }
  fixture.source = `recorded from the Unleash reference (${args.peer}) by tools/difftest/record-frontend.ts on ${new Date().toISOString().slice(0, 10)}`;
  writeFileSync(file, `${JSON.stringify(fixture, null, 1)}\n`);
  console.log(`${fixture.requests.length} answers recorded into ${file}`);
}

await main();
