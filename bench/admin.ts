/**
 * Admin API benchmark, Vane and optionally the Unleash reference server in one run, on
 * the same configuration:
 *
 *   npm run bench:admin                      # Vane only
 *   npm run bench:admin -- --with-reference  # also (re)starts the reference server fresh
 *   npm run bench:admin -- --replay-only     # the write replay alone (with or without the reference)
 *
 * 1. Write replay: the configuration of bench/seed.ts (5 segments, 100 flags with 1–3 strategies
 *    per environment, variants, dependencies: about 750 admin requests) sent one after another;
 *    the elapsed time and the time per request are reported for both servers.
 * 2. Every admin GET of the issue's table, autocannon with 4 connections for BENCH_SECONDS
 *    (default 5) each; flag-specific paths rotate through the 100 flag names.
 *
 * The reference is started with PEER_DIR / PEER_PORT / PEER_DB from the environment (see
 * /work/shared/unleash-reference/start-unleash.sh).
 */
import autocannon from 'autocannon';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { commandLine } from '../tools/cli.js';
import { REFERENCE_ENVIRONMENT, startReference, startVane, stopReference } from './servers.js';
import { call, FLAG_COUNT, seed, type Target } from './seed.js';

const { values: args } = commandLine(`
Usage: node dist/bench/admin.js [--with-reference] [--replay-only] [--keep-reference]
       (npm run bench:admin -- …)

The write replay of bench/seed.ts, then every admin GET (autocannon, 4 connections), on Vane and
optionally on the Unleash reference.

  --with-reference   also measure the Unleash reference, started fresh
  --replay-only      the write replay alone
  --keep-reference   leave the reference running afterwards

Environment: BENCH_SECONDS (seconds per read, 5), VANE_PORT (Vane's port, a free one),
BENCH_VANE_NODE_ARGS (Node options for Vane, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
${REFERENCE_ENVIRONMENT}
`, {
  options: {
    'with-reference': { type: 'boolean', default: false },
    'replay-only': { type: 'boolean', default: false },
    'keep-reference': { type: 'boolean', default: false },
  },
});
const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 4;
const withReference = args['with-reference'];
const replayOnly = args['replay-only'];

const flagName = (i: number) => `bench.flag.${String(i % FLAG_COUNT).padStart(3, '0')}`;

interface Read {
  label: string;
  path: (i: number) => string;
  /** Not in Unleash OSS (change requests are an Enterprise feature there). */
  vaneOnly?: boolean;
}

/** The reads of the issue's table, in its order. */
const READS: Read[] = [
  { label: 'GET /api/admin/environments', path: () => '/api/admin/environments' },
  { label: 'GET /api/admin/segments', path: () => '/api/admin/segments' },
  { label: 'GET /api/admin/projects/default/features', path: () => '/api/admin/projects/default/features' },
  { label: 'GET /api/admin/projects', path: () => '/api/admin/projects' },
  {
    label: 'GET …/features/:name/environments/development/variants',
    path: (i) => `/api/admin/projects/default/features/${flagName(i)}/environments/development/variants`,
  },
  {
    label: 'GET …/features/:name/environments/development/strategies',
    path: (i) => `/api/admin/projects/default/features/${flagName(i)}/environments/development/strategies`,
  },
  { label: 'GET /api/admin/strategies', path: () => '/api/admin/strategies' },
  { label: 'GET …/features/:name (one flag)', path: (i) => `/api/admin/projects/default/features/${flagName(i)}` },
  { label: 'GET /api/admin/search/events?limit=50', path: () => '/api/admin/search/events?limit=50' },
  // Further lists the configuration state answers (filled by seedLists).
  { label: 'GET /api/admin/tags', path: () => '/api/admin/tags' },
  { label: 'GET /api/admin/tag-types', path: () => '/api/admin/tag-types' },
  { label: 'GET /api/admin/invite-link/tokens', path: () => '/api/admin/invite-link/tokens' },
  { label: 'GET /api/admin/user-admin', path: () => '/api/admin/user-admin' },
  { label: 'GET /api/admin/projects/default/change-requests', path: () => '/api/admin/projects/default/change-requests', vaneOnly: true },
];

/**
 * Fills the lists bench/seed.ts leaves empty, after the write replay (so its figure stays
 * comparable): 3 tag types, 60 tags, 6 invite links, 8 users who joined through them (under
 * the default sign-up rate limit of 10 a minute) and, on Vane, 10 change requests.
 */
async function seedLists(target: Target): Promise<void> {
  for (let k = 0; k < 3; k++) await call(target, 'POST', '/api/admin/tag-types', { name: `bench-type-${k}`, description: `bench tag type ${k}` });
  for (let k = 0; k < 60; k++) await call(target, 'POST', '/api/admin/tags', { type: `bench-type-${k % 3}`, value: `bench-tag-${k}` });
  const expiresAt = new Date(Date.now() + 7 * 86_400_000).toISOString();
  const secrets: string[] = [];
  for (let k = 0; k < 6; k++) {
    secrets.push(((await call(target, 'POST', '/api/admin/invite-link/tokens', { name: `bench-link-${k}`, expiresAt })) as { secret: string }).secret);
  }
  for (let k = 0; k < 8; k++) {
    const res = await fetch(`${target.url}/invite/${secrets[k % 2]!}/signup`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: `Bench User ${k}`, email: `bench-${k}@example.com`, username: `bench-${k}`, password: 'Bench-Password-9' }),
    });
    if (res.status >= 300) throw new Error(`${target.name} signup → ${res.status} ${await res.text()}`);
  }
  if (target.name !== 'vane') return;
  // One open Draft per caller and environment: each is sent to review before the next is opened.
  for (let k = 0; k < 10; k++) {
    const environment = k % 2 === 0 ? 'development' : 'production';
    const cr = (await call(target, 'POST', `/api/admin/projects/default/environments/${environment}/change-requests`, {
      feature: flagName(k), action: 'updateEnabled', payload: { enabled: false },
    })) as { id: number };
    await call(target, 'PUT', `/api/admin/projects/default/change-requests/${cr.id}/state`, { state: 'In review' });
  }
}

interface Figures {
  replaySeconds: number;
  requests: number;
  reads: Map<string, { rps: number; p50: number; p99: number; errors: number }>;
}

async function cannon(options: autocannon.Options): Promise<autocannon.Result> {
  return await autocannon(options);
}

/** Counts the requests the replay sends, by wrapping fetch for its duration. */
async function replay(target: Target): Promise<{ seconds: number; requests: number }> {
  const original = globalThis.fetch;
  let requests = 0;
  globalThis.fetch = (async (...args: Parameters<typeof fetch>) => {
    requests++;
    return await original(...args);
  });
  const started = performance.now();
  try {
    await seed(target);
  } finally {
    globalThis.fetch = original;
  }
  return { seconds: (performance.now() - started) / 1000, requests };
}

async function measure(target: Target): Promise<Figures> {
  console.error(`${target.name}: write replay…`);
  const { seconds, requests } = await replay(target);
  console.error(`  ${requests} requests in ${seconds.toFixed(1)} s`);
  if (!replayOnly) await seedLists(target);
  const reads = new Map<string, { rps: number; p50: number; p99: number; errors: number }>();
  for (const read of replayOnly ? [] : READS) {
    if (read.vaneOnly && target.name !== 'vane') continue;
    let i = 0;
    const result = await cannon({
      url: target.url,
      connections: CONNECTIONS,
      duration: DURATION,
      headers: { authorization: target.token, accept: 'application/json' },
      requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: read.path(i++) }) }],
    });
    reads.set(read.label, {
      rps: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.non2xx + result.errors + result.timeouts,
    });
    console.error(`  ${read.label}: ${result.requests.average.toFixed(0)} req/s, p99 ${result.latency.p99} ms`);
  }
  return { replaySeconds: seconds, requests, reads };
}

function cell(f: { rps: number; p50: number; p99: number; errors: number } | undefined): string {
  if (!f) return 'not run';
  return `${f.rps.toFixed(0)} (p50 ${f.p50} / p99 ${f.p99} ms)${f.errors ? `, ${f.errors} errors` : ''}`;
}

async function main(): Promise<void> {
  // BENCH_VANE_NODE_ARGS: e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the server alone.
  const nodeArgs = process.env.BENCH_VANE_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  if (withReference) stopReference();
  const vane = await startVane({ name: 'admin', port: Number(process.env.VANE_PORT ?? 0), nodeArgs });
  let vaneFigures: Figures;
  try {
    vaneFigures = await measure(vane.target);
  } finally {
    await vane.cleanup();
  }
  let ref: Figures | undefined;
  if (withReference) {
    const { target } = startReference();
    try {
      ref = await measure(target);
    } finally {
      if (!args['keep-reference']) stopReference();
    }
  }
  console.log('\n| admin request | Unleash req/s | Vane req/s | Vane ÷ Unleash |\n|---|---:|---:|---:|');
  const perWrite = (f: Figures) => `${f.replaySeconds.toFixed(1)} s (${((f.replaySeconds * 1000) / f.requests).toFixed(1)} ms/request)`;
  console.log(
    `| write replay, ${vaneFigures.requests} sequential requests | ${ref ? perWrite(ref) : 'not run'} | ${perWrite(vaneFigures)} | ` +
      `${ref ? `${(ref.replaySeconds / vaneFigures.replaySeconds).toFixed(2)}× as fast` : ''} |`,
  );
  for (const read of replayOnly ? [] : READS) {
    const v = vaneFigures.reads.get(read.label);
    const r = ref?.reads.get(read.label);
    const ratio = v && r && r.rps > 0 ? `${(v.rps / r.rps).toFixed(1)}×` : '';
    console.log(`| \`${read.label}\` | ${cell(r)} | ${cell(v)} | ${ratio} |`);
  }
  console.log(`(${CONNECTIONS} connections, ${DURATION} s per read, node ${process.version}, ${FLAG_COUNT} flags)`);
  if (replayOnly) return;
  const memory = spawnSync(process.execPath, ['--expose-gc', resolve('dist/bench/state-memory.js'), '1000'], { encoding: 'utf8' });
  if (memory.status === 0) {
    const m = JSON.parse(memory.stdout) as { heapBytes: number; jsonBytes: number };
    console.log(`Configuration state: ${(m.heapBytes / 1e6).toFixed(1)} MB of heap per 1 000 flags of this shape (${(m.jsonBytes / 1e6).toFixed(1)} MB as JSON)`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
