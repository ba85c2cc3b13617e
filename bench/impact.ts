/**
 * Playground at scale, `npm run bench:impact`:
 *
 *   impact  the impact of a change request touching 10 flags (and, through a dependency, an 11th)
 *           over a 100 000-user population, on the 100-flag configuration of bench/seed.ts
 *           (2 × 100 000 × 100 = 20 M evaluations as the playground would count them)
 *   batch   100 000 explicit contexts sent as NDJSON, answered as NDJSON (streamed), 1 environment
 *           (100 000 × 100 = 10 M evaluations); and the same as one JSON body and JSON answer
 *
 * Vane runs as its own process (`node dist/src/server.js`, BENCH_PORT or 4416); its RSS is sampled every
 * 10 ms from /proc during each scenario (peak reported). Target: each ≤ 5 s, memory bounded.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { commandLine } from '../tools/cli.js';
import { waitHealthy } from './servers.js';
import { FLAG_COUNT, seed, SEED_PREFIX } from './seed.js';

commandLine(`
Usage: node dist/bench/impact.js   (npm run bench:impact)

The change-request impact over a 100 000-user population and the batch playground on 100 000
contexts (NDJSON and JSON), on a Vane process of its own with bench/seed.ts's 100 flags. No options.

Environment: BENCH_PORT (Vane's port, 4416), BENCH_USERS (the population, 100000),
BENCH_ONLY=batch (the batch scenarios only), BENCH_NODE_ARGS (Node options for Vane).
`, {});

const PORT = Number(process.env.BENCH_PORT ?? 4416);
const USERS = Number(process.env.BENCH_USERS ?? 100_000);
const TOKEN = '*:*.bench-admin-token';
const URL_BASE = `http://127.0.0.1:${PORT}`;
const HEADERS = { authorization: TOKEN, 'content-type': 'application/json' };

function rssOf(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

async function measured<T>(pid: number, run: () => Promise<T>): Promise<{ result: T; ms: number; peakRss: number; startRss: number }> {
  const startRss = rssOf(pid);
  let peakRss = startRss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssOf(pid))), 10);
  const started = performance.now();
  try {
    const result = await run();
    return { result, ms: performance.now() - started, peakRss, startRss };
  } finally {
    clearInterval(sampler);
  }
}

async function call(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(URL_BASE + path, { method, headers: HEADERS, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

const flag = (i: number) => `${SEED_PREFIX}.flag.${String(i).padStart(3, '0')}`;

/** 10 flags: turned off, given a 50 % rollout, or given new variants; flag 8's child (9) follows. */
async function changeRequest(): Promise<number> {
  const touched = [3, 8, 13, 23, 33, 43, 53, 63, 73, 83];
  let id = 0;
  for (const [k, i] of touched.entries()) {
    const change = k % 3 === 0
      ? { feature: flag(i), action: 'updateEnabled', payload: { enabled: false } }
      : k % 3 === 1
        ? { feature: flag(i), action: 'addStrategy', payload: { name: 'flexibleRollout', sortOrder: -1, parameters: { rollout: '50', stickiness: 'userId', groupId: 'cr' }, constraints: [] } }
        : { feature: flag(i), action: 'patchVariant', payload: { variants: [
            { name: 'x', weight: 500, weightType: 'variable', stickiness: 'userId' }, { name: 'y', weight: 500, weightType: 'variable', stickiness: 'userId' },
          ] } };
    id = (await call('POST', '/api/admin/projects/default/environments/development/change-requests', change) as { id: number }).id;
  }
  return id;
}

const PROPERTIES = { region: 'eu', email: 'ann@example.com', age: '30', version: '2.1.0', plan: '3' };

/** Counts bytes and lines natively (the client shares the machine: it must stay cheap). */
async function readAll(res: Response): Promise<{ bytes: number; lines: number; last: string }> {
  let bytes = 0;
  let lines = 0;
  let last: Buffer = Buffer.alloc(0);
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    const buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    bytes += buffer.length;
    for (let at = buffer.indexOf(10); at >= 0; at = buffer.indexOf(10, at + 1)) lines++;
    last = buffer;
  }
  return { bytes, lines, last: last.subarray(-300).toString() };
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vane-bench-impact-'));
  const nodeArgs = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : [];
  const child = spawn(process.execPath, [...nodeArgs, resolve('dist/src/server.js')], {
    env: {
      ...process.env, PORT: String(PORT), HOST: '127.0.0.1', DATA_DIR: dataDir, INIT_ADMIN_API_TOKENS: TOKEN,
      MONGODB_DB: `vane_bench_impact_${Date.now()}`, LOG_LEVEL: 'warn', PLAYGROUND_TIMEOUT_MS: '60000',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const pid = child.pid!;
  try {
    // Vane listens while its configuration loads (/ready says 503 until then).
    await waitHealthy(URL_BASE);
    await seed({ name: 'vane', url: URL_BASE, token: TOKEN });
    const id = await changeRequest();
    const population = { userId: { from: 1, to: USERS }, remoteAddress: ['10.1.2.3'], ...Object.fromEntries(Object.entries(PROPERTIES).map(([k, v]) => [`properties.${k}`, [v]])), appName: ['bench'] };
    const only = process.env.BENCH_ONLY;
    // Warm-up (threads compile the snapshot, JIT): a small population first.
    await call('POST', `/api/admin/playground/change-request/${id}/impact`, { population: { ...population, userId: { from: 1, to: 2000 } } });

    if (only !== 'batch') {
      const impact = await measured(pid, async () => await call('POST', `/api/admin/playground/change-request/${id}/impact`, { population }));
      const answer = impact.result as { contexts: number; flags: Array<{ name: string; turnedOn: number; turnedOff: number; variantChanged: number }> };
      const logical = 2 * answer.contexts * FLAG_COUNT;
      const affected = answer.flags.length;
      console.log(`impact  ${answer.contexts} contexts, ${affected} flags changed: ${impact.ms.toFixed(0)} ms; ` +
      `${(logical / impact.ms / 1000).toFixed(2)} M evaluations/s counted as 2 × contexts × ${FLAG_COUNT} flags ` +
      `(${(2 * answer.contexts * affected / impact.ms / 1000).toFixed(2)} M/s counted on the ${affected} changed flags only); ` +
      `server RSS ${mb(impact.startRss)} → peak ${mb(impact.peakRss)}`);
      for (const f of answer.flags) console.log(`        ${f.name}: on ${f.turnedOn}, off ${f.turnedOff}, variant ${f.variantChanged}`);

      const impactLines = await measured(pid, async () => {
        const res = await fetch(`${URL_BASE}/api/admin/playground/change-request/${id}/impact`, {
          method: 'POST', headers: { ...HEADERS, accept: 'application/x-ndjson' }, body: JSON.stringify({ population }),
        });
        return await readAll(res);
      });
      console.log(`impact  NDJSON: ${impactLines.result.lines} changed (context, flag) lines, ${mb(impactLines.result.bytes)}: ` +
      `${impactLines.ms.toFixed(0)} ms; server RSS peak ${mb(impactLines.peakRss)}`);
    }

    const contexts = Array.from({ length: USERS }, (_, i) => ({ appName: 'bench', userId: String(i + 1), remoteAddress: '10.1.2.3', properties: PROPERTIES }));
    const ndjsonBody = contexts.map((c) => JSON.stringify(c)).join('\n') + '\n';
    const evaluations = USERS * FLAG_COUNT;
    const batch = await measured(pid, async () => {
      const res = await fetch(`${URL_BASE}/api/admin/playground/batch?environments=development`, {
        method: 'POST', headers: { authorization: TOKEN, 'content-type': 'application/x-ndjson', accept: 'application/x-ndjson' }, body: ndjsonBody,
      });
      if (res.status !== 200) throw new Error(`batch ${res.status} ${await res.text()}`);
      return await readAll(res);
    });
    console.log(`batch   NDJSON in and out, ${USERS} contexts × ${FLAG_COUNT} flags: ${batch.ms.toFixed(0)} ms, ` +
      `${(evaluations / batch.ms / 1000).toFixed(2)} M evaluations/s, ${batch.result.lines} records, ${mb(batch.result.bytes)}; ` +
      `server RSS ${mb(batch.startRss)} → peak ${mb(batch.peakRss)}`);

    const jsonBatch = await measured(pid, async () => {
      const res = await fetch(`${URL_BASE}/api/admin/playground/batch`, {
        method: 'POST', headers: HEADERS, body: JSON.stringify({ environments: ['development'], projects: ['default'], contexts }),
      });
      if (res.status !== 200) throw new Error(`batch ${res.status} ${await res.text()}`);
      return await readAll(res);
    });
    console.log(`batch   JSON in and out: ${jsonBatch.ms.toFixed(0)} ms, ${(evaluations / jsonBatch.ms / 1000).toFixed(2)} M evaluations/s, ` +
      `${mb(jsonBatch.result.bytes)}; server RSS peak ${mb(jsonBatch.peakRss)}`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
