/**
 * How cost grows with the configuration: `npm run bench:scale -- --flags 100,1000,2000,5000 [--with-reference]`.
 *
 * Per size, Vane on a fresh embedded database (and with `--with-reference` the Unleash reference,
 * started fresh by its script, one server at a time so they never share the cores):
 *
 * - load: the bench configuration (bench/seed.ts, `size` flags) through the admin API, eight
 *   flags at a time (every flag's own requests in order); the reference above 2 000 flags through
 *   its batch import instead (`--reference-load auto`, the default; `api` or `import` for every
 *   size), since loaded a change per request it slows to ~27 flags a minute past 3 000 flags and
 *   never reached 5 000 in a run (bench/seed.ts importSeed). Its load time is then not comparable;
 *   the table marks it;
 * - start-up: the server stopped and started again on that database, until `/ready` answers 200
 *   (the reference: until its start script sees `/health`);
 * - writes, one at a time, ≥ SAMPLES each, flags rotating: strategy add, variants put,
 *   environment off/on, segment update, flag create (each new flag archived after its sample, see
 *   makeRoom); p50/p99 of the client's round trip;
 * - first read after a write against a steady read, for the deprecated playground, the frontend
 *   API and `/api/client/features` (each the median of READ_PAIRS: a write then one timed read;
 *   the same read after a pause as long as that write took, with no write; and the same read
 *   repeated back to back). The paused read is the steady one the first read is held to: on this
 *   virtual machine a read that follows any idle time costs 2–3 times one that follows another
 *   read at once (Vane's frontend API at 2 000 flags on its main thread: 1.8 ms back to
 *   back, 4.6 ms after 30 ms idle, 5.7 ms after a write and 30 ms idle), and a write leaves the
 *   server waiting on its database;
 * - throughput (autocannon, BENCH_SECONDS each, rotating inputs): deprecated playground over every
 *   flag, advanced playground (development and production, one context: 2 × size evaluations,
 *   within Unleash's default limit of 15 000 at 5 000 flags), frontend API, `/api/client/features`,
 *   the admin flag list, the feature search (the UI's flags overview) and a project's overview;
 * - memory: the server process's RSS after all that, and its peak (the reference's Node process;
 *   its PostgreSQL is not counted).
 *
 * Writes `bench/results/scale-<time>.json` and `.svg` (cost against size, both servers) and
 * prints a table. On a shared machine compare how each figure grows with the size, and the two
 * servers within one run, not absolute figures across runs.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandLine, usageError } from '../tools/cli.js';
import { POOLS, Random } from '../tools/difftest/config.js';
import { cannon, rotating } from './cannon.js';
import { KdamondClock } from './kernel-stalls.js';
import { REFERENCE_ENVIRONMENT, startReference, startVane, stopReference, waitHealthy, type StartedVane } from './servers.js';
import { call, frontendContexts, importSeed, seed, seedFlagName, type Target } from './seed.js';

const USAGE = `
Usage: node dist/bench/scale.js [--flags 100,1000,2000,5000] [--with-reference] [options]
       (npm run bench:scale -- …)

Cost against size, per configuration size: load, start-up, writes (p50/p99), the first read after a
write against a steady read, throughput, RSS. Writes bench/results/scale-<time>.json and .svg.

  --flags LIST               sizes, comma-separated, each at least 10 (default 100,1000,2000,5000)
  --with-reference           also measure the Unleash reference, started fresh, one server at a time
  --reference-load MODE      how the reference is loaded: auto (its API up to 2 000 flags, its batch
                             import above; default), api or import
  --samples N                writes of each kind per size (default 200)
  --reference-samples N      the reference's writes per kind and read pairs (default: --samples)
  --out DIR                  where the results go (default bench/results)

Environment: BENCH_SECONDS (seconds per throughput run, 5); PLAYGROUND_TIMEOUT_MS=120000 for
5 000 flags (Vane's own setting, passed on).
${REFERENCE_ENVIRONMENT}
`;
const { values: args } = commandLine(USAGE, {
  options: {
    flags: { type: 'string', default: '100,1000,2000,5000' },
    'with-reference': { type: 'boolean', default: false },
    'reference-load': { type: 'string', default: 'auto' },
    'reference-samples': { type: 'string' },
    samples: { type: 'string', default: '200' },
    out: { type: 'string', default: 'bench/results' },
  },
});
const SIZES = args.flags.split(',').map(Number);
if (SIZES.some((n) => !Number.isInteger(n) || n < 10)) usageError(USAGE, '--flags takes sizes of at least 10, comma-separated');
const SAMPLES = Number(args.samples);
/**
 * The reference's write samples and read pairs (at most READ_PAIRS), when fewer than Vane's: at
 * 5 000 flags each of its writes took ~10 s, so 50 of each kind and 60 read pairs were
 * most of an hour.
 */
const REFERENCE_SAMPLES = Number(args['reference-samples'] ?? args.samples);
const REFERENCE_LOAD = args['reference-load'];
if (!['auto', 'api', 'import'].includes(REFERENCE_LOAD)) usageError(USAGE, '--reference-load takes auto, api or import');
/** `auto`: the reference's API load is used up to this size, its batch import above. */
const REFERENCE_API_LOAD_MAX = 2000;
const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
/**
 * Read pairs per kind of read. 20 gave medians that moved by half between runs on this machine
 * (the client API's first read after a write at 1 000 flags 2.02× and 2.36× a read after
 * a pause in two runs, 1.24–1.47× in a probe of 40 pairs beside them).
 */
const READ_PAIRS = 40;
/** A kind of request slower than this alone is measured by a fixed number of requests (cannonRun). */
const SLOW_REQUEST_MS = 500;
const SLOW_REQUESTS_PER_CONNECTION = 2;
const LOAD_CONCURRENCY = 8;
const kdamond = new KdamondClock();

interface Percentiles { p50: number; p99: number }
/**
 * A kind of write's figures: its percentiles over every write, and where the kernel runs DAMON how
 * many writes a kdamond burst overlapped and the p99 of the rest (bench/kernel-stalls.ts).
 */
interface WriteFigures extends Percentiles { kdamondOverlaps?: number; p99WithoutOverlaps?: number }
interface ServerFigures {
  loadSeconds: number;
  /** How the configuration was loaded: request by request through the admin API, or the reference's batch import. */
  loadedBy: 'api' | 'import';
  startupMs: number;
  writes: Record<string, WriteFigures>;
  /** Medians, ms: `afterWrite` the first read after a write, `afterPause` a read after as long a pause without one, `steady` back to back. */
  reads: Record<string, { steady: number; afterPause: number; afterWrite: number }>;
  throughput: Record<string, number>;
  rssMb: number;
  peakRssMb: number;
  errors: number;
}
interface SizeResult { flags: number; vane?: ServerFigures; reference?: ServerFigures; referenceFailure?: string }

/**
 * The nearest-rank percentile (the smallest value with at least q of the values at or below it).
 * Not index floor(q·n): for p99 of 50 or 100 samples that is the largest, and one stalled write
 * of a hundred decided a kind's p99.
 */
const percentile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
const summarise = (ms: number[]): Percentiles => {
  const sorted = [...ms].sort((a, b) => a - b);
  return { p50: round(percentile(sorted, 0.5)), p99: round(percentile(sorted, 0.99)) };
};
const median = (ms: number[]) => percentile([...ms].sort((a, b) => a - b), 0.5);
const round = (n: number) => Math.round(n * 100) / 100;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/** VmRSS and VmHWM (peak) of a process, in MB. */
function memoryOf(pid: number): { rss: number; peak: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
  } catch {
    return { rss: NaN, peak: NaN };
  }
}

async function createToken(target: Target, type: 'client' | 'frontend'): Promise<string> {
  const body = { tokenName: `scale-${type}`, type, environment: 'development', projects: ['*'] };
  return ((await call(target, 'POST', '/api/admin/api-tokens', body)) as { secret: string }).secret;
}

async function get(url: string, authorization: string): Promise<void> {
  const res = await fetch(url, { headers: { authorization } });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`GET ${url} → ${res.status}`);
}

async function post(url: string, authorization: string, body: unknown): Promise<void> {
  const res = await fetch(url, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`POST ${url} → ${res.status}`);
}

/** A context from the differential tester's pools. */
function context(random: Random): Record<string, unknown> {
  return {
    appName: random.pick(POOLS.appNames), userId: random.pick(POOLS.userIds), sessionId: random.pick(POOLS.sessionIds),
    remoteAddress: random.pick(POOLS.ipv4),
    properties: { region: random.pick(POOLS.regions), plan: random.pick(POOLS.plans), version: random.pick(POOLS.versions), email: 'ann@example.com' },
  };
}

/** The five kinds of write, each a function of the sample number (flags rotate with a stride prime to the size). */
async function writers(target: Target, size: number): Promise<Record<string, (k: number) => Promise<unknown>>> {
  const flag = (k: number, salt: number) => seedFlagName((k * 7919 + salt) % size);
  const env = (k: number, salt: number, environment: string) => `/api/admin/projects/default/features/${flag(k, salt)}/environments/${environment}`;
  const segments = ((await call(target, 'GET', '/api/admin/segments')) as { segments: Array<{ id: number; name: string }> }).segments
    .filter((s) => s.name.startsWith('bench-segment-'));
  const run = `${Date.now().toString(36)}`;
  return {
    'strategy add': (k) => call(target, 'POST', `${env(k, 1, 'development')}/strategies`, {
      name: 'flexibleRollout', parameters: { rollout: String(k % 100), stickiness: 'default', groupId: 'scale' },
      constraints: [{ contextName: 'userId', operator: 'IN', values: [String(k)] }],
    }),
    variants: (k) => call(target, 'PUT', `${env(k, 2, 'development')}/variants`, [
      { name: `v${k}`, weight: 1000, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: String(k) } },
    ]),
    // Off, then on again, on the same flag: every sample changes something.
    'environment on/off': (k) => call(target, 'POST', `${env(Math.floor(k / 2), 3, 'production')}/${k % 2 === 0 ? 'off' : 'on'}`),
    'segment update': (k) => {
      const segment = segments[k % segments.length]!;
      return call(target, 'PUT', `/api/admin/segments/${segment.id}`, {
        name: segment.name, constraints: [{ contextName: 'userId', operator: 'IN', values: [String(k)] }],
      });
    },
    'flag create': (k) => call(target, 'POST', '/api/admin/projects/default/features', { name: `scale.${run}.${k}` }),
  };
}

/**
 * Both servers refuse a flag beyond 5 000 active ones (Unleash's default limit): before the
 * creations one seed flag without dependants is archived, and each created flag is archived after
 * its sample (not timed), so every creation finds room and the size stays the same.
 */
async function makeRoom(target: Target, size: number): Promise<void> {
  let i = size - 1;
  while (i % 10 >= 8) i--; // flags 8, 18, … are parents (bench/seed.ts): archiving them is refused
  await call(target, 'DELETE', `/api/admin/projects/default/features/${seedFlagName(i)}`);
}

/** Everything but load and start-up, on a running server with the configuration loaded. */
async function measure(
  target: Target, pid: number, size: number, samples = SAMPLES,
): Promise<Omit<ServerFigures, 'loadSeconds' | 'loadedBy' | 'startupMs'>> {
  const pairs = Math.min(READ_PAIRS, samples);
  const client = await createToken(target, 'client');
  const frontend = await createToken(target, 'frontend');
  const random = new Random(size);
  const contexts = Array.from({ length: 64 }, () => context(random));
  const frontendBodies = frontendContexts().slice(0, 64);
  const playgroundBody = (i: number) => ({ environment: i % 2 ? 'production' : 'development', projects: ['default'], context: contexts[i % contexts.length] });
  const advancedBody = (i: number) => ({ environments: ['development', 'production'], projects: ['default'], context: contexts[i % contexts.length] });
  const auth = { authorization: target.token, 'content-type': 'application/json' };
  let errors = 0;

  /** One request of each kind alone: what picks a throughput run's kind (cannonRun) and the timed reads. */
  const single: Record<string, () => Promise<void>> = {
    'deprecated playground': () => post(`${target.url}/api/admin/playground`, target.token, playgroundBody(0)),
    'advanced playground': () => post(`${target.url}/api/admin/playground/advanced`, target.token, advancedBody(0)),
    'frontend API': () => post(`${target.url}/api/frontend`, frontend, { context: frontendBodies[0] }),
    'client features': () => get(`${target.url}/api/client/features`, client),
    'admin flag list': () => get(`${target.url}/api/admin/projects/default/features`, target.token),
    'feature search': () => get(`${target.url}/api/admin/search/features?offset=0&limit=25&favoritesFirst=true&sortBy=createdAt&sortOrder=desc`, target.token),
    'project overview': () => get(`${target.url}/api/admin/projects/default/overview`, target.token),
  };

  const throughput: Record<string, number> = {};
  /**
   * Requests per second of one kind. A server whose single request takes over SLOW_REQUEST_MS
   * (the reference at 2 000 flags and more) gets a fixed number of requests instead of a timed run,
   * all of them awaited: autocannon counts only the answers that arrive within its duration, and
   * the requests it leaves in flight kept such a server busy through the next runs (at 5 000 flags
   * the reference answered none in any run, the frontend API included, 50 ms alone).
   */
  const cannonRun = async (name: string, options: Parameters<typeof cannon>[0]) => {
    // The second of two requests alone: the first builds what a server builds on first use (Vane's
    // pool threads compile the 5 000 flags, ~2 s, and sent its first run to the slow path below).
    await single[name]!();
    const alone = await timed(single[name]!);
    if (alone > SLOW_REQUEST_MS) {
      const amount = (options.connections ?? 1) * SLOW_REQUESTS_PER_CONNECTION;
      const started = performance.now();
      const { result } = await cannon({ ...options, amount, timeout: 600 }, pid);
      errors += result.non2xx + result.errors + result.timeouts;
      throughput[name] = round((result.requests.total - result.non2xx) / ((performance.now() - started) / 1000));
      return;
    }
    await cannon({ ...options, duration: 1 }); // warm-up: JIT, first builds
    const { result } = await cannon({ ...options, duration: DURATION }, pid);
    errors += result.non2xx + result.errors + result.timeouts;
    throughput[name] = Math.round(result.requests.average);
  };
  await cannonRun('deprecated playground', {
    url: `${target.url}/api/admin/playground`, connections: 8,
    ...rotating(contexts.map((_, i) => ({ method: 'POST' as const, path: '/api/admin/playground', headers: auth, body: JSON.stringify(playgroundBody(i)) }))),
  });
  await cannonRun('advanced playground', {
    url: `${target.url}/api/admin/playground/advanced`, connections: 4,
    ...rotating(contexts.map((_, i) => ({ method: 'POST' as const, path: '/api/admin/playground/advanced', headers: auth, body: JSON.stringify(advancedBody(i)) }))),
  });
  await cannonRun('frontend API', {
    url: `${target.url}/api/frontend`, connections: 16,
    ...rotating(frontendBodies.map((c) => ({
      method: 'POST' as const, path: '/api/frontend', headers: { authorization: frontend, 'content-type': 'application/json' }, body: JSON.stringify({ context: c }),
    }))),
  });
  // With the official Node SDK's `accept-encoding: gzip,deflate` (unleash-client 6.12 through
  // make-fetch-happen, seen on the wire): SDKs take the document compressed, and both
  // servers compress it (the reference per request, Vane once per state); at 5 000 flags it is
  // 3.5 MB plain. The timed reads (`single`) send the same through fetch.
  await cannonRun('client features', {
    url: `${target.url}/api/client/features`, connections: 16, headers: { authorization: client, 'accept-encoding': 'gzip,deflate' },
  });
  await cannonRun('admin flag list', { url: `${target.url}/api/admin/projects/default/features`, connections: 8, headers: { authorization: target.token } });
  // The official UI's two heaviest page loads: the flags overview's first page (what the UI asks
  // for, sorted by creation, favorites first) and a project's overview.
  const searches = ['', '&query=seed', '&type=IS%3Arelease', '&state=IS%3Aactive'].map((filter) => ({
    method: 'GET' as const, path: `/api/admin/search/features?offset=0&limit=25&favoritesFirst=true&sortBy=createdAt&sortOrder=desc${filter}`,
    headers: { authorization: target.token },
  }));
  await cannonRun('feature search', { url: `${target.url}/api/admin/search/features`, connections: 8, ...rotating(searches) });
  await cannonRun('project overview', { url: `${target.url}/api/admin/projects/default/overview`, connections: 8, headers: { authorization: target.token } });

  // First read after a write against a steady read: a toggle, then the read. Off, then on again,
  // on the same flag (every seed flag is on in development), so every toggle changes something:
  // taking the next flag each time, turning an enabled flag on would write nothing, and half the
  // "after a write" reads would follow no write.
  const toggle = (k: number) => call(target, 'POST', `/api/admin/projects/default/features/${seedFlagName((Math.floor(k / 2) * 31 + 5) % size)}/environments/development/${k % 2 ? 'on' : 'off'}`);
  const readFigures: ServerFigures['reads'] = {};
  let k = 0;
  for (const name of ['deprecated playground', 'frontend API', 'client features']) {
    const read = single[name]!;
    const steady: number[] = [];
    const afterWrite: number[] = [];
    // A read that fails (the reference at 5 000 flags reset connections once its database pool
    // ran dry after the throughput runs) is counted as an error and left out of the medians.
    const sample = async (into: number[]) => {
      try {
        into.push(await timed(read));
      } catch (err) {
        errors++;
        console.error(`${target.name}: ${name} read failed: ${(err as Error).message}`);
      }
    };
    const afterPause: number[] = [];
    await sample([]); // warm-up, not counted
    for (let i = 0; i < pairs; i++) await sample(steady);
    for (let i = 0; i < pairs; i++) {
      const wrote = await timed(() => toggle(k++));
      await sample(afterWrite);
      // The same idle time without a write, then the same read of the same (now built) state.
      await new Promise((resolve) => setTimeout(resolve, wrote));
      await sample(afterPause);
    }
    readFigures[name] = { steady: round(median(steady)), afterPause: round(median(afterPause)), afterWrite: round(median(afterWrite)) };
  }
  if (k % 2 === 1) await toggle(k); // leave every toggled flag as it was

  const writes: ServerFigures['writes'] = {};
  for (const [name, write] of Object.entries(await writers(target, size))) {
    const ms: number[] = [];
    const clear: number[] = []; // the writes no kdamond burst overlapped
    const count = name === 'environment on/off' ? samples + (samples % 2) : samples;
    const creating = name === 'flag create';
    if (creating) await makeRoom(target, size);
    for (let i = 0; i < count; i++) {
      let created: { name: string } | undefined;
      const { value: took, overlapped } = await kdamond.overlapped(() => timed(async () => (created = (await write(i)) as { name: string } | undefined)));
      ms.push(took);
      if (!overlapped) clear.push(took);
      if (creating && created) await call(target, 'DELETE', `/api/admin/projects/default/features/${created.name}`);
    }
    const slowest = ms.indexOf(Math.max(...ms));
    const stalls = kdamond.present ? { kdamondOverlaps: ms.length - clear.length, p99WithoutOverlaps: clear.length ? summarise(clear).p99 : NaN } : undefined;
    const noted = stalls ? `; ${stalls.kdamondOverlaps} overlapped by a kdamond burst, p99 of the others ${stalls.p99WithoutOverlaps} ms` : '';
    console.error(`${target.name} ${size} flags, ${name}: slowest write ${round(ms[slowest]!)} ms, sample ${slowest} of ${count}${noted}`);
    writes[name] = { ...summarise(ms), ...stalls };
  }
  const memory = memoryOf(pid);
  return { writes, reads: readFigures, throughput, rssMb: Math.round(memory.rss), peakRssMb: Math.round(memory.peak), errors };
}

async function vaneAt(size: number): Promise<ServerFigures> {
  const name = `scale${size}`;
  let vane: StartedVane = await startVane({ name });
  const reuse = { dataDir: '', database: '' };
  let loadSeconds: number;
  try {
    const started = performance.now();
    await seed(vane.target, undefined, { flags: size, concurrency: LOAD_CONCURRENCY });
    loadSeconds = (performance.now() - started) / 1000;
  } finally {
    await vane.cleanup({ keep: true });
  }
  reuse.dataDir = vane.dataDir;
  reuse.database = vane.database;
  const started = performance.now();
  vane = await startVane({ name, reuse });
  const startupMs = performance.now() - started;
  try {
    return { loadSeconds: round(loadSeconds), loadedBy: 'api', startupMs: Math.round(startupMs), ...(await measure(vane.target, vane.child.pid!, size)) };
  } finally {
    await vane.cleanup();
    rmSync(reuse.dataDir, { recursive: true, force: true });
  }
}

async function referenceAt(size: number): Promise<ServerFigures> {
  let reference = startReference();
  try {
    const loadedBy = REFERENCE_LOAD === 'import' || (REFERENCE_LOAD === 'auto' && size > REFERENCE_API_LOAD_MAX) ? 'import' : 'api';
    const started = performance.now();
    if (loadedBy === 'import') await importSeed(reference.target, undefined, { flags: size });
    else await seed(reference.target, undefined, { flags: size, concurrency: LOAD_CONCURRENCY });
    const loadSeconds = (performance.now() - started) / 1000;
    stopReference();
    const restarted = performance.now();
    reference = startReference({ fresh: false });
    await waitHealthy(reference.target.url);
    const startupMs = performance.now() - restarted;
    return { loadSeconds: round(loadSeconds), loadedBy, startupMs: Math.round(startupMs), ...(await measure(reference.target, reference.pid, size, REFERENCE_SAMPLES)) };
  } finally {
    stopReference();
  }
}

function table(results: SizeResult[]): string {
  const rows: string[] = ['| flags | server | load s | start-up ms | strategy add p50/p99 | flag create p50/p99 | on/off p50/p99 | variants p50/p99 | segment p50/p99 | playground req/s | advanced req/s | frontend req/s | client features req/s | flag list req/s | search req/s | overview req/s | reads after a write / after a pause / back to back (playground, frontend, client) ms | RSS MB (peak) |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|'];
  for (const r of results) {
    if (r.referenceFailure) rows.push(`| ${r.flags} | Unleash | failed: ${r.referenceFailure} |`);
    for (const [server, f] of [['Vane', r.vane], ['Unleash', r.reference]] as const) {
      if (!f) continue;
      const w = (k: string) => `${f.writes[k]?.p50} / ${f.writes[k]?.p99}`;
      const rd = (k: string) => `${f.reads[k]?.afterWrite} / ${f.reads[k]?.afterPause} / ${f.reads[k]?.steady}`;
      rows.push(`| ${r.flags} | ${server} | ${f.loadSeconds}${f.loadedBy === 'import' ? ' (import)' : ''} | ${f.startupMs} | ${w('strategy add')} | ${w('flag create')} | ${w('environment on/off')} | ${w('variants')} | ${w('segment update')} | ` +
        `${f.throughput['deprecated playground']} | ${f.throughput['advanced playground']} | ${f.throughput['frontend API']} | ${f.throughput['client features']} | ${f.throughput['admin flag list']} | ` +
        `${f.throughput['feature search']} | ${f.throughput['project overview']} | ` +
        `${rd('deprecated playground')}, ${rd('frontend API')}, ${rd('client features')} | ${f.rssMb} (${f.peakRssMb}) |`);
    }
  }
  return rows.join('\n');
}

/** Four panels of cost against size (log scales), a line per server and figure. */
function chart(results: SizeResult[]): string {
  const panels: Array<{ title: string; series: Array<{ label: string; pick: (f: ServerFigures) => number }> }> = [
    { title: 'write ms (strategy add p50, p99)', series: [{ label: 'p50', pick: (f) => f.writes['strategy add']!.p50 }, { label: 'p99', pick: (f) => f.writes['strategy add']!.p99 }] },
    { title: 'deprecated playground req/s', series: [{ label: 'req/s', pick: (f) => f.throughput['deprecated playground']! }] },
    { title: 'start-up to ready, ms', series: [{ label: 'ms', pick: (f) => f.startupMs }] },
    { title: 'RSS MB', series: [{ label: 'MB', pick: (f) => f.rssMb }] },
  ];
  const W = 360;
  const H = 240;
  const pad = { left: 56, right: 16, top: 28, bottom: 36 };
  const colours = { Vane: '#1f77b4', Unleash: '#d62728' };
  const sizes = results.map((r) => r.flags);
  const log = (v: number) => Math.log10(Math.max(v, 1e-3));
  const parts: string[] = [];
  panels.forEach((panel, index) => {
    const x0 = (index % 2) * W;
    const y0 = Math.floor(index / 2) * H;
    const lines: Array<{ server: 'Vane' | 'Unleash'; label: string; points: Array<[number, number]> }> = [];
    for (const server of ['Vane', 'Unleash'] as const) {
      for (const s of panel.series) {
        const points = results.flatMap((r): Array<[number, number]> => {
          const f = server === 'Vane' ? r.vane : r.reference;
          const v = f ? s.pick(f) : NaN;
          return Number.isFinite(v) && v > 0 ? [[r.flags, v]] : [];
        });
        if (points.length) lines.push({ server, label: s.label, points });
      }
    }
    const values = lines.flatMap((l) => l.points.map(([, v]) => v));
    const [vMin, vMax] = values.length ? [Math.min(...values), Math.max(...values)] : [1, 10];
    const [lo, hi] = [Math.floor(log(vMin)), Math.max(Math.ceil(log(vMax)), Math.floor(log(vMin)) + 1)];
    const [sLo, sHi] = [log(Math.min(...sizes)), Math.max(log(Math.max(...sizes)), log(Math.min(...sizes)) + 0.1)];
    const px = (size: number) => x0 + pad.left + ((log(size) - sLo) / (sHi - sLo)) * (W - pad.left - pad.right);
    const py = (v: number) => y0 + H - pad.bottom - ((log(v) - lo) / (hi - lo)) * (H - pad.top - pad.bottom);
    parts.push(`<text x="${x0 + W / 2}" y="${y0 + 18}" text-anchor="middle" font-weight="bold">${panel.title}</text>`);
    parts.push(`<rect x="${x0 + pad.left}" y="${y0 + pad.top}" width="${W - pad.left - pad.right}" height="${H - pad.top - pad.bottom}" fill="none" stroke="#999"/>`);
    for (let e = lo; e <= hi; e++) parts.push(`<text x="${x0 + pad.left - 4}" y="${py(10 ** e) + 4}" text-anchor="end">${10 ** e}</text>`);
    for (const size of sizes) parts.push(`<text x="${px(size)}" y="${y0 + H - pad.bottom + 14}" text-anchor="middle">${size}</text>`);
    parts.push(`<text x="${x0 + W / 2}" y="${y0 + H - 6}" text-anchor="middle">flags</text>`);
    for (const line of lines) {
      const dash = line.label === 'p99' ? ' stroke-dasharray="4 3"' : '';
      parts.push(`<polyline fill="none" stroke="${colours[line.server]}" stroke-width="2"${dash} points="${line.points.map(([s, v]) => `${px(s).toFixed(1)},${py(v).toFixed(1)}`).join(' ')}"/>`);
      for (const [s, v] of line.points) parts.push(`<circle cx="${px(s).toFixed(1)}" cy="${py(v).toFixed(1)}" r="2.5" fill="${colours[line.server]}"/>`);
    }
  });
  parts.push(`<text x="${W * 2 - 8}" y="${H * 2 + 16}" text-anchor="end"><tspan fill="${colours.Vane}">— Vane</tspan>  <tspan fill="${colours.Unleash}">— Unleash 8.2 (reference)</tspan>  (dashed: p99)</text>`);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W * 2}" height="${H * 2 + 24}" font-family="sans-serif" font-size="11">\n` +
    `<rect width="100%" height="100%" fill="white"/>\n${parts.join('\n')}\n</svg>\n`;
}

async function main(): Promise<void> {
  const withReference = args['with-reference'];
  if (withReference) stopReference();
  const results: SizeResult[] = [];
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  mkdirSync(args.out, { recursive: true });
  const save = () => {
    const file = join(args.out, `scale-${stamp}`);
    writeFileSync(`${file}.json`, JSON.stringify({ node: process.version, samples: SAMPLES, referenceSamples: REFERENCE_SAMPLES, seconds: DURATION, results }, null, 2));
    writeFileSync(`${file}.svg`, chart(results));
    return file;
  };
  for (const size of SIZES) {
    console.error(`${size} flags: Vane…`);
    const result: SizeResult = { flags: size, vane: await vaneAt(size) };
    results.push(result);
    save(); // Vane's figures kept before the reference's run, which can take an hour or fail
    if (withReference) {
      console.error(`${size} flags: the reference…`);
      try {
        result.reference = await referenceAt(size);
      } catch (err) {
        result.referenceFailure = (err as Error).message;
        console.error(`${size} flags: the reference failed: ${result.referenceFailure}`);
      }
    }
    save(); // after every size, so a long run that fails late keeps what it measured
  }
  const file = save();
  console.log(table(results));
  const referenceShare = REFERENCE_SAMPLES === SAMPLES ? '' : `; the reference ${REFERENCE_SAMPLES} writes and ${Math.min(READ_PAIRS, REFERENCE_SAMPLES)} read pairs`;
  console.log(`\n(${SAMPLES} writes per kind, ${DURATION} s per throughput run, ${Math.min(READ_PAIRS, SAMPLES)} read pairs${referenceShare}, node ${process.version}; ${file}.json, ${file}.svg)`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
