/**
 * SDK-facing API benchmarks, Vane and optionally the Unleash reference server on the
 * same seeded 100-flag configuration (bench/seed.ts), in one run:
 *
 *   npm run bench:sdk                       # Vane only, one run per scenario
 *   npm run bench:sdk -- --with-reference   # also (re)starts the reference fresh (PEER_DIR, PEER_PORT, PEER_DB);
 *                                           # each scenario 3 rounds per server, alternating (measureAll)
 *   BENCH_SECONDS=8 BENCH_ROUNDS=3 --only=F1,F2   # per-run seconds, rounds, a subset of scenarios
 *
 * C1  GET /api/client/features, full body, 16 connections
 * C2  the same with If-None-Match (304), 16 connections
 * F1  POST /api/frontend, a different context on every request (400 rotating), 16 connections
 * F2  GET /api/frontend, the same contexts in the query, 16 connections
 * A   admin GET of one flag, sequential, while F1 saturates the server (frontend must not starve admin)
 * S   streaming fan-out: 5 000 SSE streams open, one flag toggled, time until every stream has the
 *     update; server RSS before and after opening them (Vane only: streaming is Enterprise in Unleash)
 */
import autocannon from 'autocannon';
import { fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { commandLine } from '../tools/cli.js';
import { REFERENCE_ENVIRONMENT, startReference, startVane, stopReference } from './servers.js';
import { cannon, cpuMs, figure, median, rotating, type Figure } from './cannon.js';
import { FLAG_COUNT, firstFlagName, frontendContexts as contexts, seed, type Target } from './seed.js';

const { values: args } = commandLine(`
Usage: node dist/bench/sdk.js [--with-reference] [--only=C1,C2,F1,F2,A,S]   (npm run bench:sdk -- …)

The SDK-facing APIs on bench/seed.ts's 100 flags, 16 connections: C1/C2 the client API (full, 304),
F1/F2 the frontend API (POST, GET), A admin reads while F1 saturates, S 5 000 SSE streams told of
one change. With the reference each scenario runs rounds on both servers, alternating.

  --with-reference   also measure the Unleash reference, started fresh
  --only=LIST        run only these scenarios, comma-separated

Environment: BENCH_SECONDS (seconds per run, 8), BENCH_ROUNDS (runs per scenario and server: 3
beside the reference, else 1), BENCH_STREAMS (5000), BENCH_STREAM_PROCS (their processes, 2),
BENCH_VANE_PORT (a free one), BENCH_VANE_NODE_ARGS (Node options for Vane).
${REFERENCE_ENVIRONMENT}
`, {
  options: {
    'with-reference': { type: 'boolean', default: false },
    only: { type: 'string' },
  },
});
const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 5000);
/** Processes the stream clients are spread over (each a separate event loop, like separate SDK hosts). */
const STREAM_PROCS = Number(process.env.BENCH_STREAM_PROCS ?? 2);
/** `--only=S` or `--only=F1,F2`: run only these scenarios (for iterating on one). */
const only = args.only?.split(',');
const runs = (scenario: string) => only === undefined || only.includes(scenario);
const withReference = args['with-reference'];
/** Runs of each scenario per server (BENCH_ROUNDS; 3 beside the reference, 1 alone). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (withReference ? 3 : 1));

async function createToken(target: Target, type: string): Promise<string> {
  const res = await fetch(`${target.url}/api/admin/api-tokens`, {
    method: 'POST', headers: { authorization: target.token, 'content-type': 'application/json' },
    body: JSON.stringify({ tokenName: `bench-${type}`, type, environment: 'development', projects: ['default'] }),
  });
  if (res.status !== 201) throw new Error(`${target.name}: token ${res.status} ${await res.text()}`);
  return ((await res.json()) as { secret: string }).secret;
}

function query(context: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(context)) {
    if (key === 'properties') for (const [k, v] of Object.entries(value as Record<string, string>)) params.append(`properties[${k}]`, v);
    else params.append(key, String(value));
  }
  return params.toString();
}

async function sequentialAdmin(url: string, token: string, seconds: number): Promise<{ p50: number; p99: number; total: number }> {
  const child = spawn(process.execPath, [resolve('dist/bench/sequential.js'), url, token, String(seconds)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await new Promise((r) => child.once('exit', r));
  return JSON.parse(out) as { p50: number; p99: number; total: number };
}

function rssOf(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

type Scenario = 'C1' | 'C2' | 'F1' | 'F2';
const SCENARIOS: Scenario[] = ['C1', 'C2', 'F1', 'F2'];

/** One server ready to be measured: a run per scenario, and the admin-while-saturated check. */
interface Prepared {
  pid: number;
  run: Record<Scenario, () => Promise<Figure>>;
  admin(): Promise<string>;
}

async function prepare(target: Target, pid: number): Promise<Prepared> {
  const client = await createToken(target, 'client');
  const frontend = await createToken(target, 'frontend');
  const ctx = contexts();
  const features = await fetch(`${target.url}/api/client/features`, { headers: { authorization: client } });
  const etag = features.headers.get('etag') ?? '';
  const size = (await features.arrayBuffer()).byteLength;
  const base = { duration: DURATION, connections: 16 };
  await cannon({ ...base, duration: 2, url: `${target.url}/api/client/features`, headers: { authorization: client } }); // warm-up
  const f1 = {
    ...base, url: `${target.url}/api/frontend`,
    ...rotating(ctx.map((context) => ({
      method: 'POST' as const, path: '/api/frontend', headers: { authorization: frontend, 'content-type': 'application/json' }, body: JSON.stringify({ context }),
    }))),
  };
  const f2 = {
    ...base, url: `${target.url}/api/frontend`,
    ...rotating(ctx.map((context) => ({ method: 'GET' as const, path: `/api/frontend?${query(context)}`, headers: { authorization: frontend } }))),
  };
  const frontendRun = async (options: autocannon.Options) => {
    const { value, text } = await stalls(target, () => cannon(options, pid));
    return figure(value, text);
  };
  return {
    pid,
    run: {
      C1: async () => figure(await cannon({ ...base, url: `${target.url}/api/client/features`, headers: { authorization: client } }, pid), `, ${(size / 1000).toFixed(0)} KB bodies`),
      C2: async () => figure(await cannon({ ...base, url: `${target.url}/api/client/features`, headers: { authorization: client, 'if-none-match': etag } }, pid)),
      F1: () => frontendRun(f1),
      F2: () => frontendRun(f2),
    },
    async admin() {
      const flag = await firstFlagName();
      const [, admin] = await Promise.all([
        cannon(f1),
        sequentialAdmin(`${target.url}/api/admin/projects/default/features/${flag}`, target.token, DURATION),
      ]);
      return `admin GET p50 ${admin.p50} ms, p99 ${admin.p99} ms (${admin.total} sequential) while F1 saturates`;
    },
  };
}

/**
 * Waits until the process has used under 5 % of a core over half a second (at most 30 s): a
 * server that has just been measured keeps working for a while (the reference: GC, its metrics
 * jobs), and the next measurement of the other server would share the two cores with it.
 */
async function quiet(pid: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const before = cpuMs(pid);
    await new Promise((r) => setTimeout(r, 500));
    if (!(cpuMs(pid) - before > 25)) return;
  }
}

/**
 * Every scenario ROUNDS times on each server, the servers alternating (and which goes first
 * alternating too), each run starting once the other server is quiet: on this noisy 2-core
 * machine a single run of each side apart swung the same-run ratio by ±30 % (a slow
 * stretch during the reference's turn gave F1 14.8×, one during Vane's 8.8×). Reported: the
 * median run of each side and the ratio of the medians, with every round's ratio beside it.
 */
async function measureAll(sides: Prepared[]): Promise<Array<Partial<Record<Scenario, Figure[]>>>> {
  const results = sides.map((): Partial<Record<Scenario, Figure[]>> => ({}));
  for (const scenario of SCENARIOS.filter(runs)) {
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? sides.map((_, i) => i) : sides.map((_, i) => sides.length - 1 - i);
      for (const i of order) {
        for (const other of sides) if (other !== sides[i]) await quiet(other.pid);
        console.error(`${scenario} round ${round + 1}/${ROUNDS}: ${i === 0 ? 'Vane' : 'reference'}`);
        (results[i]![scenario] ??= []).push(await sides[i]!.run[scenario]());
      }
    }
  }
  return results;
}

/** Reads a gauge of Vane's /internal-backstage/prometheus (NaN when absent). */
async function gauge(target: Target, name: string): Promise<number> {
  return (await scrape(target))(name);
}

async function scrape(target: Target): Promise<(name: string) => number> {
  const res = await fetch(`${target.url}/internal-backstage/prometheus`, { headers: { authorization: target.token } }).catch(() => undefined);
  const lines = res?.ok ? (await res.text()).split('\n') : [];
  return (name) => {
    const line = lines.find((l) => l.startsWith(`${name} `));
    return line === undefined ? NaN : Number(line.slice(name.length + 1));
  };
}

const GC_KINDS = ['minor', 'major', 'incremental', 'weakcb'];

/**
 * Where a tail comes from: the server's own event-loop delay (prom-client's monitorEventLoopDelay,
 * reset by every scrape, so the scrape before the run starts it afresh) and its GC time over the
 * run. A p99 well above the loop's delay is time the process waited for a core, not time it spent.
 */
async function stalls<T>(target: Target, run: () => Promise<T>): Promise<{ value: T; text: string }> {
  const before = await scrape(target);
  const value = await run();
  const after = await scrape(target);
  const gc = GC_KINDS.reduce((sum, kind) => {
    const name = `nodejs_gc_duration_seconds_sum{kind="${kind}"}`;
    const delta = after(name) - before(name);
    return Number.isFinite(delta) ? sum + delta : sum;
  }, 0);
  const p99 = after('nodejs_eventloop_lag_p99_seconds');
  const max = after('nodejs_eventloop_lag_max_seconds');
  const where = (w: string) => after(`vane_frontend_answers_total{where="${w}"}`) - before(`vane_frontend_answers_total{where="${w}"}`);
  const pooled = where('pool');
  const batches = after('vane_frontend_pool_tasks_total') - before('vane_frontend_pool_tasks_total');
  const split = Number.isFinite(pooled) ? `, ${((100 * pooled) / (pooled + where('main') + where('fallback'))).toFixed(0)} % of answers on the pool (${(pooled / batches).toFixed(1)} per batch)` : '';
  const text = Number.isFinite(p99) ? `; server loop delay p99 ${(p99 * 1000).toFixed(0)} ms, max ${(max * 1000).toFixed(0)} ms, GC ${(gc * 1000).toFixed(0)} ms${split}` : '';
  return { value, text };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

/**
 * Opens STREAMS SSE streams from STREAM_PROCS child processes (bench/stream-clients.ts: raw
 * sockets, a byte search for the event line), toggles a flag, and reports in one wall clock
 * (performance.timeOrigin + now(), the same system clock in every process):
 * - server side: when Vane's fan-out started and when it had issued the last socket write
 *   (Vane's vane_sdk_stream_fanout_* gauges), relative to the write's acknowledgement;
 * - client side: when the median and the LAST stream had the event, relative to the same ack.
 * The clients share the machine's cores with the server, so the client-side time includes
 * their own reading; the server-side time is what Vane alone takes.
 */
async function fanOut(target: Target, pid: number): Promise<string> {
  const client = await createToken(target, 'client');
  const { hostname, port } = new URL(target.url);
  const rssBefore = rssOf(pid);
  const share = Math.ceil(STREAMS / STREAM_PROCS);
  const children = Array.from({ length: STREAM_PROCS }, (_, i) => {
    const count = Math.max(0, Math.min(share, STREAMS - i * share));
    const child = fork(resolve('dist/bench/stream-clients.js'), [hostname, port, client, String(count)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const message = (type: string) => new Promise<{ arrivals?: number[] }>((done, fail) => {
      child.on('message', (m: { type: string; message?: string; arrivals?: number[] }) => {
        if (m.type === type) done(m);
        else if (m.type === 'error') fail(new Error(m.message));
      });
      child.once('exit', (code) => fail(new Error(`stream clients exited (${code}) before ${type}`)));
    });
    return { child, ready: message('ready'), done: message('done') };
  });
  try {
    await Promise.all(children.map((c) => c.ready));
    await new Promise((r) => setTimeout(r, 1000)); // let the hydrations drain before measuring RSS
    const rssAfter = rssOf(pid);
    const flag = await firstFlagName();
    const wall = () => performance.timeOrigin + performance.now();
    const started = wall();
    const res = await fetch(`${target.url}/api/admin/projects/default/features/${flag}/environments/development/off`, { method: 'POST', headers: { authorization: target.token } });
    const acknowledged = wall();
    const arrivals = (await Promise.all(children.map((c) => c.done))).flatMap((m) => m.arrivals ?? []).sort((a, b) => a - b);
    const fanCommitted = (await gauge(target, 'vane_sdk_stream_fanout_committed_seconds')) * 1000;
    const fanStarted = (await gauge(target, 'vane_sdk_stream_fanout_started_seconds')) * 1000;
    const fanIssued = (await gauge(target, 'vane_sdk_stream_fanout_issued_seconds')) * 1000;
    const fanStreams = await gauge(target, 'vane_sdk_stream_fanout_streams');
    const fanCpu = (await gauge(target, 'vane_sdk_stream_fanout_cpu_seconds')) * 1000;
    const ms = (t: number) => `${(t - acknowledged).toFixed(0)} ms`;
    return `${STREAMS} streams (${STREAM_PROCS} client processes): server committed the write ${ms(fanCommitted)}, started the fan-out ${ms(fanStarted)} and had issued all ${fanStreams} writes ${ms(fanIssued)} after the write's acknowledgement ` +
      `(${(fanIssued - fanStarted).toFixed(0)} ms of writes, ${fanCpu.toFixed(0)} ms of CPU); clients had it: median ${ms(percentile(arrivals, 50))}, p99 ${ms(percentile(arrivals, 99))}, last ${ms(arrivals.at(-1) ?? NaN)} ` +
      `(write took ${(acknowledged - started).toFixed(0)} ms, HTTP ${res.status}); server RSS +${((rssAfter - rssBefore) / 1e6).toFixed(0)} MB for the streams (${((rssAfter - rssBefore) / STREAMS / 1024).toFixed(1)} KB each)`;
  } finally {
    for (const { child } of children) {
      child.removeAllListeners('exit');
      if (child.connected) child.send('close');
    }
  }
}

async function main(): Promise<void> {
  // BENCH_VANE_NODE_ARGS: e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the server alone.
  const nodeArgs = process.env.BENCH_VANE_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  if (withReference) stopReference();
  const vane = await startVane({ name: 'sdk', port: Number(process.env.BENCH_VANE_PORT ?? 0), nodeArgs });
  try {
    console.error(`seeding ${FLAG_COUNT} flags into Vane…`);
    await seed(vane.target);
    const sides = [await prepare(vane.target, vane.child.pid!)];
    if (withReference) {
      const ref = startReference();
      console.error(`seeding ${FLAG_COUNT} flags into the reference…`);
      await seed(ref.target);
      sides.push(await prepare(ref.target, ref.pid));
    }
    try {
      const [vaneRuns, referenceRuns = {}] = await measureAll(sides);
      const admin: string[] = [];
      if (runs('A')) {
        for (const side of sides) {
          for (const other of sides) if (other !== side) await quiet(other.pid);
          admin.push(await side.admin());
        }
      }
      if (withReference) stopReference();
      const fan = runs('S') ? await fanOut(vane.target, vane.child.pid!) : 'not run';
      console.log(`\n| scenario | Vane (median run) | Unleash ${withReference ? '8.2 (reference, median run)' : '(not run)'} | ratio of the medians (each round) |\n|---|---|---|---|`);
      for (const key of SCENARIOS) {
        const v = vaneRuns![key];
        if (v === undefined) continue;
        const r = referenceRuns[key];
        const ratio = r ? `${(median(v).rps / median(r).rps).toFixed(1)}× (${v.map((run, i) => `${(run.rps / r[i]!.rps).toFixed(1)}×`).join(', ')})` : '';
        console.log(`| ${key} | ${median(v).text} | ${r ? median(r).text : 'not run'} | ${ratio} |`);
      }
      if (admin.length) console.log(`| A | ${admin[0]} | ${admin[1] ?? 'not run'} | |`);
      console.log(`| S | ${fan} | Enterprise only | |`);
      console.log(`\n(${ROUNDS} rounds of ${DURATION} s per scenario and server, alternating; 16 connections, node ${process.version}, ${FLAG_COUNT} flags, 400 rotating contexts)`);
    } finally {
      if (withReference) stopReference();
    }
  } finally {
    await vane.cleanup();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
