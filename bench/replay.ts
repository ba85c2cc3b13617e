/**
 * A whole configuration sent to each server in order, one request at a time, as a new user
 * loading their flags would (issue 25: "a 2 000-flag configuration replayed in ≤ 0.5× the
 * reference's time"):
 *
 *   npm run bench:replay -- --flags 2000 [--seed 1] [--with-reference] [--rounds 3]
 *
 * The configuration is the differential tester's (tools/difftest/config.ts: projects, custom
 * strategy types, flags with strategies, constraints, variants, segments, dependencies, tags),
 * on a fresh Vane (embedded database) and with `--with-reference` a fresh Unleash reference (its
 * projects inserted into its database, tools/difftest/peer-projects.ts), one server at a time.
 * Prints each server's time, requests per second, and the answers by status class.
 *
 * With `--rounds`, the servers take turns (which goes first alternating), each replay starting
 * once the machine is quiet (machineQuiet), and the ratio of the median times is reported beside
 * each round's: this 2-core machine's speed swings about 2× by the hour, and single runs of each
 * side gave ratios from 0.41 to 0.57 within one hour, 0.61 when the reference's
 * PostgreSQL was still busy with the import the run before it left.
 */
import { readFileSync } from 'node:fs';
import { commandLine } from '../tools/cli.js';
import { applyConfiguration, generateConfiguration } from '../tools/difftest/config.js';
import { peerProjectCreator } from '../tools/difftest/peer-projects.js';
import { REFERENCE_ENVIRONMENT, startReference, startVane, stopReference, type StartedVane } from './servers.js';

const { values: args } = commandLine(`
Usage: node dist/bench/replay.js [--flags 2000] [--seed 1] [--with-reference] [--rounds 1]
       (npm run bench:replay -- …)

A whole configuration (the differential tester's) sent to a fresh Vane in order, one request at a
time, and with --with-reference to a fresh Unleash reference, one server at a time.

  --flags N          flags in the configuration (default 2000)
  --seed N           the configuration's seed (default 1)
  --with-reference   also replay it to the Unleash reference (its projects inserted into PEER_DB)
  --rounds N         rounds, the servers taking turns; the ratio of the medians is reported (default 1)

${REFERENCE_ENVIRONMENT}
`, {
  options: {
    flags: { type: 'string', default: '2000' },
    seed: { type: 'string', default: '1' },
    'with-reference': { type: 'boolean', default: false },
    rounds: { type: 'string', default: '1' },
  },
});
const ROUNDS = Math.max(1, Number(args.rounds));

interface Replay { seconds: number; requests: number; statuses: Record<string, number> }

/** The machine's busy and total CPU time so far (jiffies, every core), from /proc/stat. */
function cpuTimes(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

/**
 * Waits until the whole machine has been under 10 % busy for two seconds in a row (at most two
 * minutes): what a server measured before left running (the reference's PostgreSQL after its
 * import, a Vane's clears after its replay) would otherwise share the two cores with the next.
 */
async function machineQuiet(): Promise<void> {
  const deadline = Date.now() + 120_000;
  let quietSeconds = 0;
  while (quietSeconds < 2 && Date.now() < deadline) {
    const before = cpuTimes();
    await new Promise((r) => setTimeout(r, 1000));
    const after = cpuTimes();
    const busy = (after.busy - before.busy) / Math.max(1, after.total - before.total);
    quietSeconds = busy < 0.1 ? quietSeconds + 1 : 0;
  }
}

async function replay(url: string, token: string, createProject?: (id: string, name: string) => Promise<number>): Promise<Replay> {
  const requests = generateConfiguration(Number(args.seed), { flags: Number(args.flags) });
  await machineQuiet();
  const started = performance.now();
  const statuses = await applyConfiguration(url, token, requests, createProject ? { createProject } : {});
  const seconds = (performance.now() - started) / 1000;
  const classes: Record<string, number> = {};
  for (const status of statuses) classes[`${Math.floor(status / 100)}xx`] = (classes[`${Math.floor(status / 100)}xx`] ?? 0) + 1;
  return { seconds, requests: requests.length, statuses: classes };
}

async function replayVane(): Promise<Replay> {
  let vane: StartedVane | undefined;
  try {
    vane = await startVane({ name: 'replay' });
    console.error(`Vane: replaying ${args.flags} flags (seed ${args.seed})…`);
    return await replay(vane.target.url, vane.target.token);
  } finally {
    await vane?.cleanup();
  }
}

async function replayReference(): Promise<Replay> {
  const reference = startReference({ fresh: true });
  try {
    console.error('Unleash: replaying…');
    return await replay(reference.target.url, reference.target.token, peerProjectCreator(process.env.PEER_DB ?? 'unleash_peer'));
  } finally {
    stopReference();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function line(name: string, r: Replay): string {
  return `| ${name} | ${r.requests} | ${r.seconds.toFixed(1)} s | ${(r.requests / r.seconds).toFixed(0)} | ${JSON.stringify(r.statuses)} |`;
}

async function main(): Promise<void> {
  const vane: Replay[] = [];
  const reference: Replay[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (ROUNDS > 1) console.error(`round ${round + 1}/${ROUNDS}`);
    const referenceFirst = args['with-reference'] && round % 2 === 1;
    if (referenceFirst) reference.push(await replayReference());
    vane.push(await replayVane());
    if (args['with-reference'] && !referenceFirst) reference.push(await replayReference());
  }
  console.log('\n| server | requests | time | req/s | answers |\n|---|---|---|---|---|');
  for (const [round, r] of vane.entries()) {
    console.log(line(ROUNDS > 1 ? `Vane, round ${round + 1}` : 'Vane', r));
    if (reference[round]) console.log(line(ROUNDS > 1 ? `Unleash, round ${round + 1}` : 'Unleash', reference[round]));
  }
  if (reference.length) {
    const ratios = vane.map((r, i) => (r.seconds / reference[i]!.seconds).toFixed(2));
    const ratio = median(vane.map((r) => r.seconds)) / median(reference.map((r) => r.seconds));
    console.log(`\nVane / Unleash time: ${ratio.toFixed(2)}× (median ${median(vane.map((r) => r.seconds)).toFixed(1)} s against ${median(reference.map((r) => r.seconds)).toFixed(1)} s; rounds ${ratios.join(', ')}; node ${process.version})`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
