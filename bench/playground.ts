/**
 * Playground benchmarks S1–S4 (docs/glossary.md lists them), Vane and optionally the Unleash reference server on the
 * same seeded configuration, in one run:
 *
 *   npm run bench:playground                      # Vane only
 *   npm run bench:playground -- --with-reference  # also (re)starts ../shared/unleash-reference fresh
 *   npm run bench:playground -- --seed 3 --with-reference   # the differential tester's configuration
 *
 * `--seed N` seeds both servers with `generateConfiguration(N, {flags: 100})` of the differential
 * tester (tools/difftest/config.ts) instead of bench/seed.ts. The open-source reference has no
 * `POST /api/admin/projects`, so the generated projects are folded into `default` on both servers
 * (same flags, strategies, segments and dependencies; only the project ids differ).
 *
 * Inputs rotate: S1 and S2 cycle through ROTATION bodies with different contexts (drawn from the
 * tester's value pools), so no server-side cache of a recent answer could flatter a figure; every
 * body differs, so even the `input` echo changes. The ratio column is Vane ÷ reference req/s from
 * the same run (the machine is shared: compare ratios, not absolute figures across runs).
 *
 * Vane runs as its own process (`node dist/src/server.js`), on MONGODB_URL or its embedded
 * database; autocannon drives both servers from this process. Figures depend on the machine and
 * on autocannon sharing its cores: compare the two columns, not absolute numbers across machines.
 *
 * S1  deprecated playground, one context, 16 connections
 * S2  advanced playground, development+production, userId of 25 values (5 000 evaluations), 8 connections
 * S3  admin GET of one flag, sequential (1 connection), while S1 saturates the server
 * S4  one advanced request of 100 000 evaluations: time to last byte, peak server RSS
 */
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { applyConfiguration, generateConfiguration, POOLS, Random, type AdminRequest } from '../tools/difftest/config.js';
import { commandLine, usageError } from '../tools/cli.js';
import { REFERENCE_ENVIRONMENT, startReference, startVane, stopReference } from './servers.js';
import { FLAG_COUNT, seed, type Target } from './seed.js';

const USAGE = `
Usage: node dist/bench/playground.js [--with-reference] [--seed N]   (npm run bench:playground -- …)

Playground scenarios S1–S4 (docs/glossary.md) on Vane and optionally on the Unleash reference,
both seeded with the same 100-flag configuration.

  --with-reference   also measure the Unleash reference, started fresh
  --seed N           the differential tester's configuration N instead of bench/seed.ts's

Environment: BENCH_SECONDS (seconds per scenario, 10).
${REFERENCE_ENVIRONMENT}
`;
const { values: args } = commandLine(USAGE, {
  options: {
    'with-reference': { type: 'boolean', default: false },
    seed: { type: 'string' },
  },
});
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const withReference = args['with-reference'];
const testerSeed = args.seed === undefined ? undefined : Number(args.seed);
if (testerSeed !== undefined && !Number.isInteger(testerSeed)) usageError(USAGE, '--seed takes an integer');
/** Distinct request bodies each scenario cycles through. */
const ROTATION = 64;

interface Row {
  scenario: string;
  vane: string;
  reference: string;
}

function headers(target: Target): Record<string, string> {
  return { authorization: target.token, 'content-type': 'application/json', accept: 'application/json' };
}

/** One context from the tester's pools (the fields its constraints and stickiness read). */
function rotatingContext(random: Random, userId: string): Record<string, unknown> {
  return {
    appName: random.pick(POOLS.appNames),
    userId,
    sessionId: random.pick(POOLS.sessionIds),
    remoteAddress: random.pick(POOLS.ipv4),
    properties: {
      tenant: random.pick(POOLS.tenants), region: random.pick(POOLS.regions), plan: random.pick(POOLS.plans),
      version: random.pick(POOLS.versions), appVersion: random.pick(POOLS.versions), age: random.pick(POOLS.numbers),
      score: random.pick(POOLS.numbers), email: 'ann@example.com',
    },
  };
}

/** S1: one context per request; the bench configuration's own S1 body comes first. */
const S1_BODIES = [
  {
    environment: 'development',
    projects: ['default'],
    context: { appName: 'bench', userId: '123', sessionId: 's-1', remoteAddress: '10.1.2.3', properties: { region: 'eu', email: 'ann@example.com', age: '30', version: '2.1.0', plan: '3' } },
  },
  ...Array.from({ length: ROTATION - 1 }, (_, i) => {
    const random = new Random(1000 + i);
    return { environment: random.pick(['development', 'production']), projects: ['default'], context: rotatingContext(random, random.pick(POOLS.userIds)) };
  }),
];
/** S2: 25 userIds × 2 environments × 100 flags = 5 000 evaluations; the 25 ids rotate. */
const S2_BODIES = Array.from({ length: ROTATION }, (_, i) => {
  const random = new Random(2000 + i);
  const ids = Array.from({ length: 25 }, (_, k) => String(i * 25 + k + 1)).join(',');
  const context = rotatingContext(random, ids);
  return { environments: ['development', 'production'], projects: ['default'], context };
});
const S4_BODY = {
  environments: ['development'],
  projects: ['default'],
  context: { appName: 'bench', userId: Array.from({ length: 1000 }, (_, i) => String(i + 1)).join(',') },
};

/** Requests cycling through `bodies`, one after another on every connection. */
function rotating(bodies: readonly unknown[]): autocannon.Request[] {
  const texts = bodies.map((body) => JSON.stringify(body));
  let next = 0;
  return [{
    setupRequest: (request) => ({ ...request, body: texts[next++ % texts.length] }),
  }];
}

async function cannon(options: autocannon.Options): Promise<autocannon.Result> {
  return await autocannon(options);
}

/** S3's client runs in its own process (see bench/sequential.ts). */
async function sequentialGets(url: string, token: string, seconds: number): Promise<{ p50: number; p99: number; total: number; non2xx: number }> {
  const child = spawn(process.execPath, [resolve('dist/bench/sequential.js'), url, token, String(seconds)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await new Promise((r) => child.once('exit', r));
  return JSON.parse(out) as { p50: number; p99: number; total: number; non2xx: number };
}

function summary(result: autocannon.Result): string {
  const errors = result.non2xx + result.errors + result.timeouts;
  return `${result.requests.average.toFixed(1)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms` +
    (errors ? `, ${errors} errors/non-2xx` : '');
}

function rssOf(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

async function scenarioS4(target: Target, pid: number): Promise<string> {
  let peak = rssOf(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 10);
  const started = performance.now();
  const res = await fetch(target.url + '/api/admin/playground/advanced', { method: 'POST', headers: headers(target), body: JSON.stringify(S4_BODY) });
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  const elapsed = performance.now() - started;
  clearInterval(sampler);
  if (res.status !== 200) return `refused: HTTP ${res.status}`;
  return `${(elapsed / 1000).toFixed(2)} s to last byte, ${(bytes / 1e6).toFixed(1)} MB, peak server RSS ${(peak / 1e6).toFixed(0)} MB`;
}

/** req/s per server and scenario, for the ratio column. */
const rates: Record<string, Record<string, number>> = {};

/** The flag S3 reads: the first generated flag with `--seed`. */
let s3Flag = 'bench.flag.000';

/** The tester's requests with every project folded into `default` (see the header). */
function foldedConfiguration(seedValue: number): AdminRequest[] {
  const requests = generateConfiguration(seedValue, { flags: FLAG_COUNT });
  const tag = `s${seedValue}-p`;
  const fold = (path: string) => path.replace(new RegExp(`^/api/admin/projects/${tag}\\d+(?=/)`), '/api/admin/projects/default');
  return requests
    .filter((request) => !(request.method === 'POST' && request.path === '/api/admin/projects'))
    .map((request) => {
      const body = request.body as Record<string, unknown> | undefined;
      const folded = body && typeof body.project === 'string' && body.project.startsWith(tag) ? { ...body, project: 'default' } : body;
      return { ...request, path: fold(request.path), body: folded };
    });
}

async function seedTarget(target: Target): Promise<void> {
  if (testerSeed === undefined) return await seed(target);
  const requests = foldedConfiguration(testerSeed);
  const statuses = await applyConfiguration(target.url, target.token, requests);
  const failed = statuses.filter((status) => status >= 300 && status !== 403 && status !== 409).length;
  const firstFlag = requests.find((request) => request.method === 'POST' && /\/features$/.test(request.path));
  s3Flag = (firstFlag?.body as { name: string }).name;
  console.error(`  ${requests.length} requests, ${failed} refused (other than 403/409)`);
}

async function measure(target: Target, pid: number): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const base = { headers: headers(target), duration: DURATION };
  const s1Url = target.url + '/api/admin/playground';
  await cannon({ ...base, url: s1Url, method: 'POST', requests: rotating(S1_BODIES), connections: 4, duration: 2 }); // warm-up
  const s1 = await cannon({ ...base, url: s1Url, method: 'POST', requests: rotating(S1_BODIES), connections: 16 });
  const s1Size = (await (await fetch(s1Url, { method: 'POST', headers: headers(target), body: JSON.stringify(S1_BODIES[0]) })).arrayBuffer()).byteLength;
  rates[target.name] = { S1: s1.requests.average };
  out.S1 = `${summary(s1)}, ${(s1Size / 1e3).toFixed(0)} KB per response`;
  const s2 = await cannon({ ...base, url: target.url + '/api/admin/playground/advanced', method: 'POST', requests: rotating(S2_BODIES), connections: 8 });
  rates[target.name]!.S2 = s2.requests.average;
  const s2Size = (await (await fetch(target.url + '/api/admin/playground/advanced', { method: 'POST', headers: headers(target), body: JSON.stringify(S2_BODIES[0]) })).arrayBuffer()).byteLength;
  out.S2 = `${summary(s2)}, ${(s2Size / 1e6).toFixed(1)} MB per response`;
  const [, s3] = await Promise.all([
    cannon({ ...base, url: s1Url, method: 'POST', requests: rotating(S1_BODIES), connections: 16 }),
    sequentialGets(`${target.url}/api/admin/projects/default/features/${s3Flag}`, target.token, DURATION),
  ]);
  out.S3 = `p50 ${s3.p50} ms, p99 ${s3.p99} ms (${s3.total} sequential GETs${s3.non2xx ? `, ${s3.non2xx} non-2xx` : ''})`;
  out.S4 = await scenarioS4(target, pid);
  return out;
}

async function main(): Promise<void> {
  if (withReference) stopReference();
  const vane = await startVane({ name: 'playground', env: { PLAYGROUND_EVALUATION_LIMIT: '1000000', PLAYGROUND_TIMEOUT_MS: '60000' } });
  let reference: { target: Target; pid: number } | undefined;
  try {
    console.error(`seeding ${FLAG_COUNT} flags into Vane…`);
    let t0 = performance.now();
    await seedTarget(vane.target);
    console.error(`  done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const vaneFigures = await measure(vane.target, vane.child.pid!);
    let referenceFigures: Record<string, string> = {};
    if (withReference) {
      reference = startReference();
      console.error(`seeding ${FLAG_COUNT} flags into the reference…`);
      t0 = performance.now();
      await seedTarget(reference.target);
      console.error(`  done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      try {
        referenceFigures = await measure(reference.target, reference.pid);
      } finally {
        stopReference();
      }
    }
    const ratio = (s: string) => {
      const mine = rates.vane?.[s];
      const theirs = rates.unleash?.[s];
      return mine && theirs ? `${(mine / theirs).toFixed(1)}×` : '';
    };
    const rows: Row[] = ['S1', 'S2', 'S3', 'S4'].map((s) => ({ scenario: s, vane: vaneFigures[s]!, reference: referenceFigures[s] ?? 'not run' }));
    console.log(`\n| scenario | Vane | Unleash ${withReference ? '8.2 (reference)' : '(not run)'} | ratio |\n|---|---|---|---|`);
    for (const row of rows) console.log(`| ${row.scenario} | ${row.vane} | ${row.reference} | ${ratio(row.scenario)} |`);
    const configuration = testerSeed === undefined ? 'bench/seed.ts configuration' : `tester configuration --seed ${testerSeed}`;
    console.log(`\n(${configuration}, ${DURATION} s per scenario, ${ROTATION} rotating bodies, node ${process.version}, ${FLAG_COUNT} flags in development and production)`);
  } finally {
    await vane.cleanup();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
