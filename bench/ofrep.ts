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
 */
import { startVane } from './servers.js';
import { cannon, figure, median, rotating, type Figure } from './cannon.js';
import { FLAG_COUNT, frontendContexts, seed, type Target } from './seed.js';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const SECONDS = Number(arg('seconds') ?? process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(arg('rounds') ?? process.env.BENCH_ROUNDS ?? 3);

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
  } finally {
    await vane.cleanup();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
