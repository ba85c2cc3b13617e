/**
 * SDK-facing API benchmarks (issue 15), Vane and optionally the Unleash reference server on the
 * same seeded 100-flag configuration (bench/seed.ts), in one run:
 *
 *   npm run bench:sdk                       # Vane only
 *   npm run bench:sdk -- --with-reference   # also (re)starts the reference fresh (PEER_DIR, PEER_PORT, PEER_DB)
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
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest, Agent } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { seededRandom } from './random.js';
import { FLAG_COUNT, firstFlagName, seed, type Target } from './seed.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 5000);
const withReference = process.argv.includes('--with-reference');

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const srv = createServer();
    srv.on('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function waitHealthy(url: string, timeoutMs = 180_000, path = '/health'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url + path)).ok) return;
    } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not become healthy`);
}

async function startVane(): Promise<{ target: Target; child: ChildProcess; cleanup(): Promise<void> }> {
  const port = Number(process.env.BENCH_VANE_PORT ?? 0) || (await freePort());
  const dataDir = mkdtempSync(join(tmpdir(), 'vane-bench-sdk-'));
  const token = '*:*.bench-admin-token';
  const child = spawn(process.execPath, [resolve('dist/src/server.js')], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, INIT_ADMIN_API_TOKENS: token, MONGODB_DB: `vane_bench_sdk_${Date.now()}`, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  // Vane listens while its configuration state loads (/health answers, the API says 503): wait for /ready.
  await waitHealthy(url, 180_000, '/ready');
  return {
    target: { name: 'vane', url, token },
    child,
    async cleanup() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function startReference(): Promise<{ target: Target; pid: number }> {
  const script = [resolve('../shared/unleash-reference/start-unleash.sh'), '/work/shared/unleash-reference/start-unleash.sh'].find(existsSync);
  if (!script) throw new Error('start-unleash.sh not found');
  const run = spawnSync('bash', [script, '--fresh'], { stdio: 'inherit' });
  if (run.status !== 0) throw new Error('could not start the reference server');
  const port = process.env.PEER_PORT ?? '4242';
  const pid = Number(readFileSync(join(process.env.PEER_DIR ?? join(process.env.HOME ?? '/root', 'unleash-peer'), 'unleash.pid'), 'utf8').trim());
  return { target: { name: 'unleash', url: `http://127.0.0.1:${port}`, token: process.env.PEER_ADMIN_TOKEN ?? '*:*.peer-admin-token' }, pid };
}

async function createToken(target: Target, type: string): Promise<string> {
  const res = await fetch(`${target.url}/api/admin/api-tokens`, {
    method: 'POST', headers: { authorization: target.token, 'content-type': 'application/json' },
    body: JSON.stringify({ tokenName: `bench-${type}`, type, environment: 'development', projects: ['default'] }),
  });
  if (res.status !== 201) throw new Error(`${target.name}: token ${res.status} ${await res.text()}`);
  return ((await res.json()) as { secret: string }).secret;
}

/** 400 contexts, the same on both servers (seeded). */
function contexts(): Array<Record<string, unknown>> {
  const rng = seededRandom(15);
  const regions = ['eu', 'us', 'apac', 'antarctica'];
  return Array.from({ length: 400 }, (_, i) => ({
    userId: String(Math.floor(rng() * 1000)),
    sessionId: `s-${i}`,
    properties: { region: regions[i % 4]!, email: `u${i}@example.com`, age: String(Math.floor(rng() * 90)), version: `${i % 5}.${i % 3}.0`, plan: String(i % 5) },
  }));
}

function query(context: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(context)) {
    if (key === 'properties') for (const [k, v] of Object.entries(value as Record<string, string>)) params.append(`properties[${k}]`, v);
    else params.append(key, String(value));
  }
  return params.toString();
}

async function cannon(options: autocannon.Options): Promise<autocannon.Result> {
  return await new Promise((done, fail) => {
    autocannon(options, (err, result) => (err ? fail(err) : done(result)));
  });
}

interface Figure { rps: number; p50: number; p99: number; errors: number; text: string }

function figure(result: autocannon.Result, extra = ''): Figure {
  const errors = result.non2xx + result.errors + result.timeouts;
  return {
    rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors,
    text: `${result.requests.average.toFixed(0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms${errors ? `, ${errors} errors/non-2xx` : ''}${extra}`,
  };
}

function rotating(list: string[]): () => string {
  let i = 0;
  return () => list[i++ % list.length]!;
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

async function measure(target: Target): Promise<Record<string, Figure | string>> {
  const client = await createToken(target, 'client');
  const frontend = await createToken(target, 'frontend');
  const ctx = contexts();
  const out: Record<string, Figure | string> = {};
  const features = await fetch(`${target.url}/api/client/features`, { headers: { authorization: client } });
  const etag = features.headers.get('etag') ?? '';
  const size = (await features.arrayBuffer()).byteLength;
  const base = { duration: DURATION, connections: 16 };
  await cannon({ ...base, duration: 2, url: `${target.url}/api/client/features`, headers: { authorization: client } }); // warm-up
  out.C1 = figure(await cannon({ ...base, url: `${target.url}/api/client/features`, headers: { authorization: client } }), `, ${(size / 1000).toFixed(0)} KB bodies`);
  out.C2 = figure(await cannon({ ...base, url: `${target.url}/api/client/features`, headers: { authorization: client, 'if-none-match': etag } }));
  const bodies = rotating(ctx.map((context) => JSON.stringify({ context })));
  const f1 = {
    ...base, url: `${target.url}/api/frontend`,
    requests: [{ method: 'POST' as const, path: '/api/frontend', headers: { authorization: frontend, 'content-type': 'application/json' }, setupRequest: (req: autocannon.Request) => ({ ...req, body: bodies() }) }],
  };
  out.F1 = figure(await cannon(f1));
  const paths = rotating(ctx.map((context) => `/api/frontend?${query(context)}`));
  out.F2 = figure(await cannon({
    ...base, url: `${target.url}/api/frontend`,
    requests: [{ method: 'GET', headers: { authorization: frontend }, setupRequest: (req: autocannon.Request) => ({ ...req, path: paths() }) }],
  }));
  const flag = await firstFlagName();
  const [, admin] = await Promise.all([
    cannon(f1),
    sequentialAdmin(`${target.url}/api/admin/projects/default/features/${flag}`, target.token, DURATION),
  ]);
  out.A = `admin GET p50 ${admin.p50} ms, p99 ${admin.p99} ms (${admin.total} sequential) while F1 saturates`;
  return out;
}

/** Opens `count` SSE streams, toggles a flag, and times until every stream has seen the update. */
async function fanOut(target: Target, pid: number): Promise<string> {
  const client = await createToken(target, 'client');
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const rssBefore = rssOf(pid);
  let updated = 0;
  let resolveAll: () => void = () => undefined;
  const allUpdated = new Promise<void>((r) => (resolveAll = r));
  const requests: Array<ReturnType<typeof httpRequest>> = [];
  const opened: Array<Promise<void>> = [];
  for (let i = 0; i < STREAMS; i++) {
    opened.push(new Promise<void>((ready, fail) => {
      const req = httpRequest(`${target.url}/api/client/streaming`, { agent, headers: { authorization: client, accept: 'text/event-stream' } }, (res) => {
        if (res.statusCode !== 200) { fail(new Error(`stream ${res.statusCode}`)); return; }
        let buffer = '';
        let connected = false;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          if (!connected && buffer.includes('event: unleash-connected')) { connected = true; buffer = ''; ready(); }
          if (connected && buffer.includes('event: unleash-updated')) {
            buffer = '';
            if (++updated === STREAMS) resolveAll();
          }
        });
      });
      req.on('error', fail);
      req.end();
      requests.push(req);
    }));
    if (i % 200 === 199) await Promise.all(opened.slice(-200));
  }
  await Promise.all(opened);
  const rssAfter = rssOf(pid);
  const flag = await firstFlagName();
  const started = performance.now();
  const res = await fetch(`${target.url}/api/admin/projects/default/features/${flag}/environments/development/off`, { method: 'POST', headers: { authorization: target.token } });
  const acknowledged = performance.now();
  await allUpdated;
  const done = performance.now();
  for (const req of requests) req.destroy();
  agent.destroy();
  return `${STREAMS} streams: all updated ${(done - acknowledged).toFixed(0)} ms after the write's acknowledgement (write took ${(acknowledged - started).toFixed(0)} ms, HTTP ${res.status}); ` +
    `server RSS +${((rssAfter - rssBefore) / 1e6).toFixed(0)} MB for the streams (${((rssAfter - rssBefore) / STREAMS / 1024).toFixed(1)} KB each)`;
}

async function main(): Promise<void> {
  const vane = await startVane();
  try {
    console.error(`seeding ${FLAG_COUNT} flags into Vane…`);
    await seed(vane.target);
    const vaneFigures = await measure(vane.target);
    const fan = await fanOut(vane.target, vane.child.pid!);
    let reference: Record<string, Figure | string> = {};
    if (withReference) {
      const ref = await startReference();
      console.error(`seeding ${FLAG_COUNT} flags into the reference…`);
      await seed(ref.target);
      reference = await measure(ref.target);
    }
    console.log(`\n| scenario | Vane | Unleash ${withReference ? '8.2 (reference)' : '(not run)'} | ratio |\n|---|---|---|---|`);
    for (const key of ['C1', 'C2', 'F1', 'F2', 'A']) {
      const v = vaneFigures[key]!;
      const r = reference[key];
      const ratio = typeof v === 'object' && typeof r === 'object' && r.rps > 0 ? `${(v.rps / r.rps).toFixed(1)}×` : '';
      console.log(`| ${key} | ${typeof v === 'object' ? v.text : v} | ${r === undefined ? 'not run' : typeof r === 'object' ? r.text : r} | ${ratio} |`);
    }
    console.log(`| S | ${fan} | Enterprise only | |`);
    console.log(`\n(${DURATION} s per scenario, 16 connections, node ${process.version}, ${FLAG_COUNT} flags, 400 rotating contexts)`);
  } finally {
    await vane.cleanup();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
