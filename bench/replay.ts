/**
 * A whole configuration sent to each server in order, one request at a time, as a new user
 * loading their flags would (issue 25: "a 2 000-flag configuration replayed in ≤ 0.5× the
 * reference's time"):
 *
 *   npm run bench:replay -- --flags 2000 [--seed 1] [--with-reference]
 *
 * The configuration is the differential tester's (tools/difftest/config.ts: projects, custom
 * strategy types, flags with strategies, constraints, variants, segments, dependencies, tags),
 * on a fresh Vane (embedded database) and with `--with-reference` a fresh Unleash reference (its
 * projects inserted into its database, tools/difftest/peer-projects.ts), one server at a time.
 * Prints each server's time, requests per second, and the answers by status class.
 */
import { parseArgs } from 'node:util';
import { applyConfiguration, generateConfiguration } from '../tools/difftest/config.js';
import { peerProjectCreator } from '../tools/difftest/peer-projects.js';
import { startReference, startVane, stopReference, type StartedVane } from './servers.js';

const { values: args } = parseArgs({
  options: {
    flags: { type: 'string', default: '2000' },
    seed: { type: 'string', default: '1' },
    'with-reference': { type: 'boolean', default: false },
  },
});

interface Replay { seconds: number; requests: number; statuses: Record<string, number> }

async function replay(url: string, token: string, createProject?: (id: string, name: string) => Promise<number>): Promise<Replay> {
  const requests = generateConfiguration(Number(args.seed), { flags: Number(args.flags) });
  const started = performance.now();
  const statuses = await applyConfiguration(url, token, requests, createProject ? { createProject } : {});
  const seconds = (performance.now() - started) / 1000;
  const classes: Record<string, number> = {};
  for (const status of statuses) classes[`${Math.floor(status / 100)}xx`] = (classes[`${Math.floor(status / 100)}xx`] ?? 0) + 1;
  return { seconds, requests: requests.length, statuses: classes };
}

function line(name: string, r: Replay): string {
  return `| ${name} | ${r.requests} | ${r.seconds.toFixed(1)} s | ${(r.requests / r.seconds).toFixed(0)} | ${JSON.stringify(r.statuses)} |`;
}

async function main(): Promise<void> {
  let vane: StartedVane | undefined;
  let vaneReplay: Replay;
  try {
    vane = await startVane({ name: 'replay' });
    console.error(`Vane: replaying ${args.flags} flags (seed ${args.seed})…`);
    vaneReplay = await replay(vane.target.url, vane.target.token);
  } finally {
    await vane?.cleanup();
  }
  let referenceReplay: Replay | undefined;
  if (args['with-reference']) {
    const reference = startReference({ fresh: true });
    try {
      console.error('Unleash: replaying…');
      referenceReplay = await replay(reference.target.url, reference.target.token, peerProjectCreator(process.env.PEER_DB ?? 'unleash_peer'));
    } finally {
      stopReference();
    }
  }
  console.log('\n| server | requests | time | req/s | answers |\n|---|---|---|---|---|');
  console.log(line('Vane', vaneReplay));
  if (referenceReplay) {
    console.log(line('Unleash', referenceReplay));
    console.log(`\nVane / Unleash time: ${(vaneReplay.seconds / referenceReplay.seconds).toFixed(2)}× (node ${process.version})`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
