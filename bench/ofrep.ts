/**
 * OFREP's bulk evaluation beside the frontend API: the same seeded 100-flag
 * configuration (bench/seed.ts), the same 400 rotating contexts (bench/sdk.ts's F1), the same
 * frontend token, 16 connections, the scenarios alternating round by round in one run:
 *
 *   npm run bench:ofrep                              # 3 rounds of 8 s per scenario
 *   npm run bench:ofrep -- --seconds=2 --rounds=1    # a smoke check only
 *
 * F1  POST /api/frontend (enabled flags only), as bench/sdk.ts F1
 * FA  POST /api/frontend/all (every flag: what OFREP answers)
 * O1  POST /ofrep/v1/evaluate/flags, the same contexts as OFREP contexts
 * O2  O1 with If-None-Match of each context's last answer (providers polling: 304s)
 *
 * The goal: O1 at least F1's req/s, p99 ≤ 20 ms.
 *
 * Then the ratio alone, paired: F1 and O1 in alternating 1-second slices (`--pairs`, default 30),
 * each O1 slice against the F1 slice beside it. Why: on this 2-core virtual machine whole rounds
 * of one scenario swing 2× (8-second rounds of F1: 3 390 to 7 598 req/s), slower than a
 * slice, so the medians of rounds compare different stretches of the machine (their O1 / F1 was
 * 0.91× and 1.04× in two runs of the same tree an hour apart); adjacent slices share one.
 */
import { commandLine } from '../tools/cli.js';
import { startVane } from './servers.js';
import { cannon, figure, median, rotating, type Figure } from './cannon.js';
import { FLAG_COUNT, frontendContexts, seed, type Target } from './seed.js';

const { values: args } = commandLine(`
Usage: node dist/bench/ofrep.js [--seconds=S] [--rounds=N] [--pairs=N]   (npm run bench:ofrep -- …)

OFREP's bulk evaluation beside the frontend API (F1, FA, O1, O2), 16 connections, the scenarios
alternating round by round; then F1 and O1 in alternating 1-second slices, paired.

  --seconds=S   seconds per round (default: BENCH_SECONDS, else 8)
  --rounds=N    rounds per scenario (default: BENCH_ROUNDS, else 3)
  --pairs=N     paired F1/O1 slices (default 30)
`, {
  options: {
    seconds: { type: 'string' },
    rounds: { type: 'string' },
    pairs: { type: 'string', default: '30' },
  },
});
const SECONDS = Number(args.seconds ?? process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(args.rounds ?? process.env.BENCH_ROUNDS ?? 3);
const PAIRS = Number(args.pairs);

type Scenario = 'F1' | 'FA' | 'O1' | 'O2';
const SCENARIOS: Scenario[] = ['F1', 'FA', 'O1', 'O2'];

async function frontendToken(target: Target): Promise<string> {
  const res = await fetch(`${target.url}/api/admin/api-tokens`, {
    method: 'POST', headers: { authorization: target.token, 'content-type': 'application/json' },
    body: JSON.stringify({ tokenName: 'bench-ofrep', type: 'frontend', environment: 'development', projects: ['default'] }),
  });
  if (res.status !== 201) throw new Error(`token ${res.status} ${await res.text()}`);
  return ((await res.json()) as { secret: string }).secret;
}

async function main(): Promise<void> {
  const vane = await startVane({ name: 'ofrep' });
  try {
    console.error(`seeding ${FLAG_COUNT} flags…`);
    await seed(vane.target);
    const url = vane.target.url;
    const token = await frontendToken(vane.target);
    const contexts = frontendContexts();
    const post = (path: string, context: Record<string, unknown>, headers: Record<string, string> = {}) => ({
      method: 'POST' as const, path, headers: { authorization: token, 'content-type': 'application/json', ...headers }, body: JSON.stringify({ context }),
    });
    // Each context's ETag, for the polling scenario (and a check that every context is answered).
    const etags: string[] = [];
    for (const context of contexts) {
      const res = await fetch(`${url}/ofrep/v1/evaluate/flags`, { method: 'POST', headers: { authorization: token, 'content-type': 'application/json' }, body: JSON.stringify({ context }) });
      if (res.status !== 200) throw new Error(`OFREP ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
      etags.push(res.headers.get('etag') ?? '');
    }
    const options: Record<Scenario, Parameters<typeof cannon>[0]> = {
      F1: { url, ...rotating(contexts.map((context) => post('/api/frontend', context))) },
      FA: { url, ...rotating(contexts.map((context) => post('/api/frontend/all', context))) },
      O1: { url, ...rotating(contexts.map((context) => post('/ofrep/v1/evaluate/flags', context))) },
      O2: { url, ...rotating(contexts.map((context, i) => post('/ofrep/v1/evaluate/flags', context, { 'if-none-match': etags[i]! }))) },
    };
    const base = { duration: SECONDS, connections: 16 };
    await cannon({ ...base, ...options.F1, duration: Math.min(2, SECONDS) }); // warm-up
    const figures: Partial<Record<Scenario, Figure[]>> = {};
    for (let round = 0; round < ROUNDS; round++) {
      // Alternating order: a slow stretch of the shared machine does not fall on one scenario.
      for (const scenario of round % 2 === 0 ? SCENARIOS : [...SCENARIOS].reverse()) {
        console.error(`${scenario} round ${round + 1}/${ROUNDS}`);
        (figures[scenario] ??= []).push(figure(await cannon({ ...base, ...options[scenario] }, vane.child.pid)));
      }
    }
    console.log('\n| scenario | median run | all runs (req/s) |\n|---|---|---|');
    for (const scenario of SCENARIOS) {
      const runs = figures[scenario]!;
      console.log(`| ${scenario} | ${median(runs).text} | ${runs.map((r) => r.rps.toFixed(0)).join(', ')} |`);
    }
    const ratio = median(figures.O1!).rps / median(figures.F1!).rps;
    console.log(`\nO1 / F1: ${ratio.toFixed(2)}× (${ROUNDS} rounds of ${SECONDS} s, 16 connections, node ${process.version}, ${FLAG_COUNT} flags, 400 rotating contexts)`);
    console.log('(O2\'s answers are 304s, which autocannon counts as non-2xx)');
    if (PAIRS > 0) console.log(paired(await pairs(options.F1, options.O1, base.connections)));
  } finally {
    await vane.cleanup();
  }
}

interface Slice { requests: number; seconds: number }

/** `PAIRS` pairs of 1-second slices, F1 and O1 in alternating order (so neither always goes first). */
async function pairs(f1: Parameters<typeof cannon>[0], o1: Parameters<typeof cannon>[0], connections: number): Promise<Array<{ f1: Slice; o1: Slice }>> {
  const slice = async (options: Parameters<typeof cannon>[0]): Promise<Slice> => {
    const { result } = await cannon({ ...options, duration: 1, connections });
    return { requests: result.requests.total, seconds: result.duration };
  };
  const out: Array<{ f1: Slice; o1: Slice }> = [];
  console.error(`${PAIRS} pairs of 1-second slices…`);
  for (let i = 0; i < PAIRS; i++) {
    if (i % 2 === 0) {
      const a = await slice(f1);
      out.push({ f1: a, o1: await slice(o1) });
    } else {
      const b = await slice(o1);
      out.push({ o1: b, f1: await slice(f1) });
    }
  }
  return out;
}

function paired(results: Array<{ f1: Slice; o1: Slice }>): string {
  const rate = ({ requests, seconds }: Slice) => requests / seconds;
  const ratios = results.map(({ f1, o1 }) => rate(o1) / rate(f1)).sort((a, b) => a - b);
  const sum = (pick: (pair: { f1: Slice; o1: Slice }) => Slice) => results.reduce(
    (acc, pair) => ({ requests: acc.requests + pick(pair).requests, seconds: acc.seconds + pick(pair).seconds }),
    { requests: 0, seconds: 0 },
  );
  const quartile = (q: number) => ratios[Math.min(ratios.length - 1, Math.floor(q * ratios.length))]!.toFixed(2);
  const [f1, o1] = [sum((pair) => pair.f1), sum((pair) => pair.o1)];
  return `paired O1 / F1 (${results.length} pairs of 1-second slices): median ${quartile(0.5)}× (quartiles ${quartile(0.25)}–${quartile(0.75)}), `
    + `over all slices ${(rate(o1) / rate(f1)).toFixed(2)}× (F1 ${rate(f1).toFixed(0)}, O1 ${rate(o1).toFixed(0)} req/s)`;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
