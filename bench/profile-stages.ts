/**
 * Where a request's CPU goes, by stage, from V8 CPU profiles of the server taken under a benchmark:
 *
 *   BENCH_VANE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" node dist/bench/sdk.js --only=F1
 *   node dist/bench/profile-stages.js /tmp/prof --last=8 --requests=N
 *
 * Each sample of the last `--last` seconds of each profile (the load; the seeding before it is left
 * out) is given to the innermost frame on its stack that belongs to a stage (STAGES, first match
 * per frame), so a native leaf such as `writev` or `JSON.parse` counts for the stage that called
 * it. Every thread's profile counts (the main thread's and the evaluation pool's). With
 * `--requests` (the benchmark's request count) each stage is also printed in µs per request.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandLine, usageError } from '../tools/cli.js';

interface CallFrame { functionName: string; url: string }
interface ProfileNode { id: number; callFrame: CallFrame; children?: number[] }
interface CpuProfile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

/** Stages in the order a frame is tested against them; `test` sees the frame's function name and URL. */
const STAGES: ReadonlyArray<{ name: string; test: (fn: string, url: string) => boolean }> = [
  // A pool thread waiting for a task blocks in piscina's Atomics.wait loop: sampled, not running.
  { name: 'idle (waiting for the network or a task)', test: (fn) => fn === '(idle)' || fn === 'atomicsWaitLoop' },
  { name: 'garbage collection', test: (fn) => fn === '(garbage collector)' },
  { name: 'evaluation (engine, frontend toggles)', test: (_fn, url) => /\/src\/evaluation\/|frontend-api\/evaluate|workers\//.test(url) },
  { name: 'hop to the pool (dispatch, piscina, messages)', test: (_fn, url) => /piscina|pool-scheduler|frontend-api\/dispatch|shipped-state|worker_threads|internal\/worker/.test(url) },
  { name: 'authentication (token look-up)', test: (_fn, url) => /plugins\/auth|api-tokens\//.test(url) },
  { name: 'body: JSON parse and depth check', test: (_fn, url) => /plugins\/errors\.js/.test(url) },
  { name: 'schema validation (ajv)', test: (_fn, url) => /ajv|schema-validator|fast-uri/.test(url) },
  { name: 'metrics and logging (prom-client, pino)', test: (_fn, url) => /prom-client|plugins\/metrics|pino|request-logger/.test(url) },
  { name: 'CORS and cookies', test: (_fn, url) => /sdk-cors|@fastify\/cookie|\/cookie\//.test(url) },
  { name: 'response: serialise and write the socket', test: (_fn, url) => /fast-json-stringify|_http_outgoing|node:net|stream_base_commons|streams\/writable|fastify\/lib\/reply/.test(url) },
  { name: 'request: HTTP parsing', test: (_fn, url) => /_http_common|_http_server|_http_incoming|streams\/readable/.test(url) },
  { name: 'Fastify: routing, hooks, body reading', test: (_fn, url) => /fastify|find-my-way|light-my-request|avvio/.test(url) },
  { name: 'the route (context, scope, ETag)', test: (_fn, url) => /frontend-api\/|client-api\/|ofrep\//.test(url) },
  { name: 'Node: promises, timers, events', test: (_fn, url) => /^node:/.test(url) },
];
const OTHER = 'other (V8 internals, native without a caller above)';

const { values, positionals } = commandLine(`
Usage: node dist/bench/profile-stages.js DIR [--last=S] [--requests=N]

Reads every *.cpuprofile in DIR and prints the share of CPU samples per stage over the last S
seconds of each profile (default 8); with --requests, µs per request too.
`, {
  allowPositionals: true,
  options: { last: { type: 'string', default: '8' }, requests: { type: 'string' } },
});
const dir = positionals[0];
if (dir === undefined) usageError('Usage: node dist/bench/profile-stages.js DIR', 'no profile directory given');
const lastUs = Number(values.last) * 1e6;
const requests = values.requests === undefined ? undefined : Number(values.requests);

const totals = new Map<string, number>();
let allUs = 0;
for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stageOf = new Map<number, string>();
  const stage = (id: number): string => {
    const known = stageOf.get(id);
    if (known !== undefined) return known;
    const { functionName, url } = byId.get(id)!.callFrame;
    const own = STAGES.find((s) => s.test(functionName, url))?.name;
    const up = parent.get(id);
    const found = own ?? (up === undefined ? OTHER : stage(up));
    stageOf.set(id, found);
    return found;
  };
  const end = profile.timeDeltas.reduce((a, b) => a + b, 0);
  let at = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i]!;
    at += delta;
    if (end - at > lastUs) return;
    const name = stage(id);
    totals.set(name, (totals.get(name) ?? 0) + delta);
    allUs += delta;
  });
}
const busy = allUs - (totals.get(STAGES[0]!.name) ?? 0);
const rows = [...totals].sort((a, b) => b[1] - a[1]);
process.stdout.write('| stage | share of busy CPU | µs per request |\n|---|---|---|\n');
for (const [name, us] of rows) {
  if (name === STAGES[0]!.name) continue;
  const perRequest = requests === undefined ? '' : (us / requests).toFixed(1);
  process.stdout.write(`| ${name} | ${((us / busy) * 100).toFixed(1)} % | ${perRequest} |\n`);
}
const total = requests === undefined ? '' : (busy / requests).toFixed(1);
process.stdout.write(`| **all threads, busy** | 100 % | ${total} |\n`);
