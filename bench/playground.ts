/**
 * Playground benchmarks S1–S4 (issue 5), Vane and optionally the Unleash reference server on the
 * same seeded configuration, in one run:
 *
 *   npm run bench:playground                      # Vane only
 *   npm run bench:playground -- --with-reference  # also (re)starts ../shared/unleash-reference fresh
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
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FLAG_COUNT, seed, type Target } from './seed.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const withReference = process.argv.includes('--with-reference');

interface Row {
  scenario: string;
  vane: string;
  reference: string;
}

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

async function waitHealthy(url: string, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url + '/health')).ok) return;
    } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not become healthy`);
}

async function startVane(): Promise<{ target: Target; child: ChildProcess; cleanup(): Promise<void> }> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'vane-bench-'));
  const token = '*:*.bench-admin-token';
  const child = spawn(process.execPath, [resolve('dist/src/server.js')], {
    env: {
      ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, INIT_ADMIN_API_TOKENS: token,
      MONGODB_DB: `vane_bench_${Date.now()}`, LOG_LEVEL: 'warn', PLAYGROUND_EVALUATION_LIMIT: '1000000',
      PLAYGROUND_TIMEOUT_MS: '60000',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(url);
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
  const script = resolve('../shared/unleash-reference/start-unleash.sh');
  const run = spawnSync('bash', [script, '--fresh'], { stdio: 'inherit' });
  if (run.status !== 0) throw new Error('could not start the reference server');
  const port = process.env.PEER_PORT ?? '4242';
  const pid = Number(readFileSync(join(process.env.PEER_DIR ?? join(process.env.HOME ?? '/root', 'unleash-peer'), 'unleash.pid'), 'utf8').trim());
  return { target: { name: 'unleash', url: `http://127.0.0.1:${port}`, token: process.env.PEER_ADMIN_TOKEN ?? '*:*.peer-admin-token' }, pid };
}

function headers(target: Target): Record<string, string> {
  return { authorization: target.token, 'content-type': 'application/json', accept: 'application/json' };
}

const S1_BODY = {
  environment: 'development',
  projects: ['default'],
  context: { appName: 'bench', userId: '123', sessionId: 's-1', remoteAddress: '10.1.2.3', properties: { region: 'eu', email: 'ann@example.com', age: '30', version: '2.1.0', plan: '3' } },
};
const S2_BODY = {
  environments: ['development', 'production'],
  projects: ['default'],
  context: { appName: 'bench', userId: Array.from({ length: 25 }, (_, i) => String(i + 1)).join(','), properties: { region: 'eu', email: 'ann@example.com', age: '30', version: '2.1.0' } },
};
const S4_BODY = {
  environments: ['development'],
  projects: ['default'],
  context: { appName: 'bench', userId: Array.from({ length: 1000 }, (_, i) => String(i + 1)).join(',') },
};

async function cannon(options: autocannon.Options): Promise<autocannon.Result> {
  return await new Promise((done, fail) => {
    autocannon(options, (err, result) => (err ? fail(err) : done(result)));
  });
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

async function measure(target: Target, pid: number): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const base = { headers: headers(target), duration: DURATION };
  await cannon({ ...base, url: target.url + '/api/admin/playground', method: 'POST', body: JSON.stringify(S1_BODY), connections: 4, duration: 2 }); // warm-up
  out.S1 = summary(await cannon({ ...base, url: target.url + '/api/admin/playground', method: 'POST', body: JSON.stringify(S1_BODY), connections: 16 }));
  const s2 = await cannon({ ...base, url: target.url + '/api/admin/playground/advanced', method: 'POST', body: JSON.stringify(S2_BODY), connections: 8 });
  const s2Size = (await (await fetch(target.url + '/api/admin/playground/advanced', { method: 'POST', headers: headers(target), body: JSON.stringify(S2_BODY) })).arrayBuffer()).byteLength;
  out.S2 = `${summary(s2)}, ${(s2Size / 1e6).toFixed(1)} MB per response`;
  const [, s3] = await Promise.all([
    cannon({ ...base, url: target.url + '/api/admin/playground', method: 'POST', body: JSON.stringify(S1_BODY), connections: 16 }),
    sequentialGets(`${target.url}/api/admin/projects/default/features/bench.flag.000`, target.token, DURATION),
  ]);
  out.S3 = `p50 ${s3.p50} ms, p99 ${s3.p99} ms (${s3.total} sequential GETs${s3.non2xx ? `, ${s3.non2xx} non-2xx` : ''})`;
  out.S4 = await scenarioS4(target, pid);
  return out;
}

async function main(): Promise<void> {
  const vane = await startVane();
  let reference: { target: Target; pid: number } | undefined;
  try {
    console.error(`seeding ${FLAG_COUNT} flags into Vane…`);
    let t0 = performance.now();
    await seed(vane.target);
    console.error(`  done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const vaneFigures = await measure(vane.target, vane.child.pid!);
    let referenceFigures: Record<string, string> = {};
    if (withReference) {
      reference = await startReference();
      console.error(`seeding ${FLAG_COUNT} flags into the reference…`);
      t0 = performance.now();
      await seed(reference.target);
      console.error(`  done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      referenceFigures = await measure(reference.target, reference.pid);
    }
    const rows: Row[] = ['S1', 'S2', 'S3', 'S4'].map((s) => ({ scenario: s, vane: vaneFigures[s]!, reference: referenceFigures[s] ?? 'not run' }));
    console.log(`\n| scenario | Vane | Unleash ${withReference ? '8.2 (reference)' : '(not run)'} |\n|---|---|---|`);
    for (const row of rows) console.log(`| ${row.scenario} | ${row.vane} | ${row.reference} |`);
    console.log(`\n(${DURATION} s per scenario, node ${process.version}, ${FLAG_COUNT} flags in development and production)`);
  } finally {
    await vane.cleanup();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
