/**
 * `npm run soak`: Vane under the traffic of all its clients at once, on the README's embedded
 * database, then the faults production sees. Phases:
 *
 * 1. **Configure**: `--instances` fresh Vane processes (`dist/src/server.js`; one alone starts its
 *    own FerretDB in its DATA_DIR, several share one the soak starts, through MONGODB_URL, as
 *    instances behind a load balancer do; every caller below picks an instance in turn) get a random configuration of `--flags` flags from the differential tester's
 *    generator (tools/difftest/config.ts), sent in order through the admin API.
 * 2. **Soak** for `--duration` seconds, everything at once, each caller paced (a soak finds what
 *    breaks when every kind of client is there, not the throughput ceiling: bench/ does that; with
 *    no pauses the load generator itself took most of the two cores): official server SDKs (`unleash-client`)
 *    evaluating every flag for rotating users and posting metrics every second, a streaming SDK,
 *    browser SDKs (`unleash-proxy-client`) refreshing and posting metrics every second, frontend
 *    API, playground (deprecated and advanced), batch and event-search callers, and admin writers.
 * 3. **Freeze**: the database process is stopped (SIGSTOP) for `--freeze` seconds under the same
 *    load, then resumed: how fast writes answer 503, how fast `/ready` turns, whether reads keep
 *    answering, how fast writes succeed again.
 * 4. **Kill**: every Vane is SIGKILLed while the writers write, and started again on the same data:
 *    every write that was acknowledged (2xx) must be there, with its event, on every instance.
 *
 * It reports requests by route and status (the server's own counts, scraped before the kill),
 * write latency p50/p99, hangs (a request without an answer after 10 s), the database's open
 * SQLite handles and Vane's RSS over time, and the checks after the restart; `--json FILE` writes
 * the whole report. It exits non-zero when a check fails. test/tools/soak.test.ts runs a short
 * version in `npm test`.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startEmbeddedDatabase, type EmbeddedServer } from '../../src/db/embedded.js';
import { commandLine } from '../cli.js';
import { applyConfiguration, generateConfiguration, Random } from '../difftest/config.js';
import { generateContext } from '../difftest/contexts.js';
import type { AppsStart, AppsStopped } from './apps.js';

const ADMIN_TOKEN = '*:*.soak-admin-token';
const HANG_MS = 10_000;
/** The SDKs' read routes (as the server's histogram names them), for the `sdkReadP99Ms` bar. */
const SDK_READS = new Set([
  'GET /api/client/features', 'GET /api/client/delta', 'GET /api/frontend', 'POST /api/frontend',
  'POST /ofrep/v1/evaluate/flags', 'POST /ofrep/v1/evaluate/flags/:key',
]);
const SDK_READ_P99_MS = 100;
const ABORT_MS = 30_000;

export interface SoakOptions {
  durationS: number;
  flags: number;
  /** Vane processes on one database. */
  instances: number;
  freezeS: number;
  seed: number;
  /** Concurrent admin writers. */
  writers: number;
  /** Server SDKs (each also posts metrics every second). */
  serverSdks: number;
  browserSdks: number;
  log: (line: string) => void;
}

/**
 * One sample every 5 s. `heapMb` is the main thread's V8 heap in use, from Vane's Prometheus
 * metrics (the last answer: -1 until one came): RSS growing while it stays flat is the worker
 * threads or memory outside V8, not the main thread's objects.
 */
interface Sample { atS: number; phase: string; sqliteHandles: number; rssMb: number; heapMb: number; loopP99Ms: number; writeP99Ms: number }

export interface SoakReport {
  options: Omit<SoakOptions, 'log'>;
  configureS: number;
  configureFailures: number;
  /** The server's request counts by route and status (scraped before the kill). */
  serverRoutes: Record<string, Record<string, number>>;
  /** This tool's callers: requests by label and status (0: no answer: connection error or aborted). */
  clientRoutes: Record<string, Record<string, number>>;
  writes: { acknowledged: number; p50Ms: number; p99Ms: number; maxMs: number; statuses: Record<string, number> };
  hangs: number;
  /** Requests without an answer after 10 s, by label. */
  hangsByRoute: Record<string, number>;
  /** Answers 503 (refused: at capacity, database down), by label. */
  refusedByRoute: Record<string, number>;
  /** Latency of the answered requests (2xx, 304) by label: p50, p99, max (ms). */
  latencyByRoute: Record<string, { count: number; p50Ms: number; p99Ms: number; maxMs: number }>;
  /**
   * p99 of the SDK reads answered (2xx, 304) during the soak phase, as the servers timed them (the
   * upper bound of their histogram's bucket; in this process they would be timed with its own delays).
   */
  sdkReadP99Ms: number;
  /** The same by route (bucket bounds). */
  sdkReadP99MsByRoute: Record<string, number>;
  unexpected5xx: number;
  sdkErrors: number;
  samples: Sample[];
  freeze: {
    firstWrite503Ms: number | null;
    ready503Ms: number | null;
    readsDuringFreeze: { ok: number; failed: number };
    writesOkAfterResumeMs: number | null;
  };
  restart: { readyAfterMs: number | null; checked: number; missing: string[]; missingEvents: string[] };
  serverWarnings: number;
  serverErrors: number;
  /** The server's warning and error lines by level and message, most frequent first. */
  serverMessages: Array<{ level: 'warn' | 'error'; msg: string; count: number }>;
  /**
   * The database's work during the soak phase, by "collection operation", summed over the
   * instances, busiest first: count, seconds sent and unanswered, seconds waiting for a slot.
   */
  databaseDuringSoak: Array<{ operation: string; count: number; busyS: number; waitS: number }>;
  /** CPU used during the soak phase, in cores (1 = one core busy all along), by process. */
  cpuDuringSoak: Record<string, number>;
  failures: string[];
}

/** Milliseconds until every thread of `pid` shows state T (stopped) in /proc, or null past `withinMs`. */
async function everyThreadStopped(pid: number, withinMs: number): Promise<number | null> {
  const started = performance.now();
  const stopped = () => readdirSync(`/proc/${pid}/task`).every((task) => {
    try {
      // "pid (comm) S …": the state follows the last ')', as comm may hold spaces or parentheses.
      const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'T';
    } catch {
      return true; // the thread has exited
    }
  });
  while (!stopped()) {
    if (performance.now() - started > withinMs) return null;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return Math.round(performance.now() - started);
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Every request this tool makes, by label and status, with hang detection. */
class Recorder {
  readonly routes = new Map<string, Map<number, number>>();
  readonly writeLatencies: number[] = [];
  readonly writeStatuses = new Map<number, number>();
  /** Answered requests' latencies by label (2xx and 304), while `measuring`. */
  readonly latencies = new Map<string, number[]>();
  readonly hangsByLabel = new Map<string, number>();
  measuring = false;
  private readonly inFlight = new Set<{ started: number; hung: boolean; label: string }>();
  hangs = 0;
  unexpected5xx = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly log: (line: string) => void) {
    this.timer = setInterval(() => {
      const now = performance.now();
      for (const entry of this.inFlight) {
        if (!entry.hung && now - entry.started > HANG_MS) {
          entry.hung = true;
          this.hangs++;
          this.hangsByLabel.set(entry.label, (this.hangsByLabel.get(entry.label) ?? 0) + 1);
          this.log(`HANG: ${entry.label} without an answer for ${HANG_MS / 1000} s`);
        }
      }
    }, 500);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The write latencies of the last `windowMs` (for the samples). */
  private readonly recentWrites: Array<[number, number]> = [];

  recentWriteP99(windowMs = 5000): number {
    const since = performance.now() - windowMs;
    while (this.recentWrites.length && this.recentWrites[0]![0] < since) this.recentWrites.shift();
    return percentile(this.recentWrites.map(([, ms]) => ms).sort((a, b) => a - b), 99);
  }

  async call(label: string, url: string, init: RequestInit & { write?: boolean } = {}): Promise<{ status: number; text: string; ms: number }> {
    const entry = { started: performance.now(), hung: false, label };
    this.inFlight.add(entry);
    let status: number;
    let text: string;
    try {
      const res = await fetch(url, { ...init, signal: AbortSignal.timeout(ABORT_MS) });
      text = await res.text();
      status = res.status;
    } catch (err) {
      status = 0;
      // What failed without an answer (a reset connection, the abort): for the caller's log.
      text = String((err as { cause?: unknown }).cause ?? err);
    } finally {
      this.inFlight.delete(entry);
    }
    const ms = performance.now() - entry.started;
    let byStatus = this.routes.get(label);
    if (!byStatus) this.routes.set(label, (byStatus = new Map<number, number>()));
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    if (this.measuring && ((status >= 200 && status < 300) || status === 304)) {
      let list = this.latencies.get(label);
      if (!list) this.latencies.set(label, (list = []));
      list.push(ms);
    }
    if (status >= 500 && status !== 503) {
      this.unexpected5xx++;
      this.log(`${status} on ${label}: ${text.slice(0, 200)}`);
    }
    if (init.write) {
      this.writeStatuses.set(status, (this.writeStatuses.get(status) ?? 0) + 1);
      if (status >= 200 && status < 300) {
        this.writeLatencies.push(ms);
        this.recentWrites.push([performance.now(), ms]);
      }
    }
    return { status, text, ms };
  }
}

/** A Vane process of its own, on `dataDir`, logging JSON lines to `logFile`. */
class VaneProcess {
  static exitHook = false;
  static readonly running = new Set<VaneProcess>();
  child: ChildProcess | undefined;
  warnings = 0;
  errors = 0;
  /** Warning and error lines by `level msg`. */
  readonly messages = new Map<string, number>();
  /** `mongoUrl`: the shared database (several instances); otherwise Vane starts its own in `dataDir`. */
  constructor(readonly port: number, readonly dataDir: string, private readonly logFile: string, private readonly mongoUrl = '') {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  start(): void {
    if (!VaneProcess.exitHook) {
      // A soak that dies must not leave its Vane (and database) running.
      VaneProcess.exitHook = true;
      process.once('exit', () => { for (const p of VaneProcess.running) p.child?.kill('SIGKILL'); });
    }
    VaneProcess.running.add(this);
    const server = resolve(dirname(fileURLToPath(import.meta.url)), '../../src/server.js');
    const child = spawn(process.execPath, [server], {
      env: {
        ...process.env, PORT: String(this.port), HOST: '127.0.0.1', DATA_DIR: this.dataDir, MONGODB_URL: this.mongoUrl,
        INIT_ADMIN_API_TOKENS: ADMIN_TOKEN, LOG_LEVEL: 'warn', SIGNUP_RATE_LIMIT: '100000', LOGIN_RATE_LIMIT: '100000', UNLEASH_UI: 'off',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = createWriteStream(this.logFile, { flags: 'a' });
    let partial = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out.write(chunk);
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const level = /"level":(\d+)/.exec(line)?.[1];
        if (level === '40') this.warnings++;
        else if (level && Number(level) >= 50) this.errors++;
        else continue;
        const msg = /"msg":"((?:[^"\\]|\\.)*)"/.exec(line)?.[1] ?? '(no message)';
        const key = `${level === '40' ? 'warn' : 'error'} ${msg.replace(/\d+/g, 'N').slice(0, 160)}`;
        this.messages.set(key, (this.messages.get(key) ?? 0) + 1);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => out.write(chunk));
    this.child = child;
  }

  async waitReady(timeoutMs: number): Promise<number | null> {
    const started = performance.now();
    while (performance.now() - started < timeoutMs) {
      try {
        if ((await fetch(`${this.url}/ready`, { signal: AbortSignal.timeout(2000) })).status === 200) return performance.now() - started;
      } catch { /* not yet */ }
      await new Promise((r) => setTimeout(r, 100));
    }
    return null;
  }

  kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((done) => {
      child.once('exit', () => done());
      child.kill('SIGKILL');
    });
  }

  /** The embedded database's process when this Vane started it (embedded.ts writes it beside the data). */
  databasePid(): number {
    return (JSON.parse(readFileSync(join(this.dataDir, 'embedded-db.pid'), 'utf8')) as { dbPid: number }).dbPid;
  }

  rssMb(): number {
    try {
      const status = readFileSync(`/proc/${this.child!.pid}/status`, 'utf8');
      return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
    } catch {
      return -1;
    }
  }
}

/** What an acknowledged write left to check after the restart. */
interface Acknowledged {
  kind: 'flag' | 'strategy' | 'enabled' | 'segment' | 'token';
  flag?: string;
  strategyId?: string;
  name?: string;
  /** The event type it must have recorded. */
  eventType: string;
}

/** Open handles of the database process on SQLite database files (one per SQLite connection and file). */
function sqliteHandles(pid: () => number): number {
  try {
    const dbPid = pid();
    let n = 0;
    for (const fd of readdirSync(`/proc/${dbPid}/fd`)) {
      try { if (/\.sqlite$/.test(readlinkSync(`/proc/${dbPid}/fd/${fd}`))) n++; } catch { /* closed meanwhile */ }
    }
    return n;
  } catch {
    return -1;
  }
}

/** The SDK read routes' duration buckets (2xx and 304), summed over the servers: all together under '', and per route. */
function sdkReadBuckets(text: string, into = new Map<string, Map<number, number>>()): Map<string, Map<number, number>> {
  for (const { labels, value } of durationSeries(text, 'bucket')) {
    const status = Number(labels.status_code);
    const route = `${labels.method} ${labels.route}`;
    if (!SDK_READS.has(route) || !((status >= 200 && status < 300) || status === 304)) continue;
    const le = labels.le === '+Inf' ? Infinity : Number(labels.le);
    for (const key of ['', route]) {
      const buckets = into.get(key) ?? into.set(key, new Map()).get(key)!;
      buckets.set(le, (buckets.get(le) ?? 0) + value);
    }
  }
  return into;
}

/** The series of the servers' request-duration histogram named `http_request_duration_seconds_<part>`, with their labels. */
function durationSeries(text: string, part: 'bucket' | 'count'): Array<{ labels: Record<string, string>; value: number }> {
  return series(text, `http_request_duration_seconds_${part}`);
}

/** The series of one metric in a Prometheus text, with their labels. */
function series(text: string, metric: string): Array<{ labels: Record<string, string>; value: number }> {
  const pattern = new RegExp(`^${metric}\\{([^}]*)\\} ([-+\\d.e]+)`);
  return text.split('\n').flatMap((line) => {
    const m = pattern.exec(line);
    if (!m) return [];
    const labels = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((x): [string, string] => [x[1]!, x[2]!]));
    return [{ labels, value: Number(m[2]) }];
  });
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/** CPU seconds (user + system) a process has used, or 0 when it is gone. */
function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of stat(5), the 12th and 13th after the state.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

type DatabaseTotals = Map<string, { count: number; busyS: number; waitS: number }>;

/** The servers' database operation totals (vane_db_operation*_total), summed over the servers, by "collection operation". */
function databaseTotals(text: string, into: DatabaseTotals = new Map()): DatabaseTotals {
  const add = (metric: string, field: 'count' | 'busyS' | 'waitS') => {
    for (const { labels, value } of series(text, metric)) {
      const key = `${labels.collection} ${labels.operation}`;
      const t = into.get(key) ?? into.set(key, { count: 0, busyS: 0, waitS: 0 }).get(key)!;
      t[field] += value;
    }
  };
  add('vane_db_operations_total', 'count');
  add('vane_db_operation_seconds_total', 'busyS');
  add('vane_db_slot_wait_seconds_total', 'waitS');
  return into;
}

/** The p99 (ms, a bucket's upper bound) of the requests counted between two cumulative histograms. */
function p99Between(before: Map<number, number>, after: Map<number, number>): number {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const total = (after.get(Infinity) ?? 0) - (before.get(Infinity) ?? 0);
  if (total <= 0) return 0;
  for (const le of bounds) {
    if ((after.get(le) ?? 0) - (before.get(le) ?? 0) >= 0.99 * total) return le === Infinity ? Infinity : Math.round(le * 1000);
  }
  return Infinity;
}

/** Adds the server's request counts of one instance (its Prometheus text) to `routes`. */
function parseServerRoutes(text: string, routes: Record<string, Record<string, number>> = {}): Record<string, Record<string, number>> {
  for (const { labels, value } of durationSeries(text, 'count')) {
    const key = `${labels.method} ${labels.route}`;
    const byStatus = (routes[key] ??= {});
    byStatus[labels.status_code ?? '?'] = (byStatus[labels.status_code ?? '?'] ?? 0) + value;
  }
  return routes;
}

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const { log } = options;
  const dataDir = mkdtempSync(join(tmpdir(), 'vane-soak-'));
  const quiet = { info: () => undefined, warn: (obj: unknown, msg?: string) => log(`database: ${msg ?? ''} ${JSON.stringify(obj)}`) };
  const database: EmbeddedServer | undefined = options.instances > 1 ? await startEmbeddedDatabase(join(dataDir, 'shared'), quiet) : undefined;
  const vanes: VaneProcess[] = [];
  for (let i = 0; i < options.instances; i++) {
    vanes.push(new VaneProcess(await freePort(), join(dataDir, `vane-${i}`), join(dataDir, `vane-${i}.log`), database?.url ?? ''));
  }
  const vane = vanes[0]!;
  const databasePid = () => database?.pid ?? vane.databasePid();
  const recorder = new Recorder(log);
  const failures: string[] = [];
  const samples: Sample[] = [];
  const random = new Random(options.seed);
  const admin = { authorization: ADMIN_TOKEN };
  const jsonAdmin = { ...admin, 'content-type': 'application/json' };
  // Each request to the next instance, as a round-robin load balancer sends them.
  let turn = 0;
  const base = () => vanes[turn++ % vanes.length]!.url;
  let phase = 'configure';
  let databaseDuringSoak: SoakReport['databaseDuringSoak'] | undefined;
  let cpuDuringSoak: SoakReport['cpuDuringSoak'] | undefined;
  const t0 = performance.now();
  let heapMb = -1;
  let loopP99Ms = -1;
  const sampler = setInterval(() => {
    void fetch(`${base()}/internal-backstage/prometheus`, { signal: AbortSignal.timeout(4000) })
      .then(async (res) => {
        const metrics = await res.text();
        const used = /^nodejs_heap_size_used_bytes (\S+)/m.exec(metrics);
        if (used) heapMb = Math.round(Number(used[1]) / 1048576);
        const lag = /^nodejs_eventloop_lag_p99_seconds (\S+)/m.exec(metrics);
        if (lag) loopP99Ms = Math.round(Number(lag[1]) * 1000);
      })
      .catch(() => undefined);
    samples.push({
      atS: Math.round((performance.now() - t0) / 1000), phase, sqliteHandles: sqliteHandles(databasePid), rssMb: Math.max(...vanes.map((v) => v.rssMb())), heapMb, loopP99Ms,
      writeP99Ms: Math.round(recorder.recentWriteP99()),
    });
  }, 5000);
  sampler.unref();
  let apps: ChildProcess | undefined;
  let sdkErrors = 0;
  /** Stops the applications; their SDK error count. */
  const stopApps = async () => {
    const child = apps;
    apps = undefined;
    if (!child?.connected) return;
    const stoppedApps = new Promise<number>((done) => {
      child.once('message', (m: AppsStopped) => done(m.sdkErrors));
      child.once('exit', () => done(0));
    });
    child.send({ type: 'stop' });
    sdkErrors += await stoppedApps;
  };
  let stopped = false;
  const loops: Array<Promise<void>> = [];
  try {
    for (const v of vanes) {
      // mkdtemp made the parent; each instance's DATA_DIR is its own.
      v.start();
      if ((await v.waitReady(120_000)) === null) throw new Error(`Vane did not become ready; see ${dataDir}`);
    }
    log(`Vane on ${vanes.map((v) => v.url).join(', ')}, data in ${dataDir}`);

    // 1. Configure.
    const requests = generateConfiguration(options.seed, { flags: options.flags });
    const configureStart = performance.now();
    const statuses = await applyConfiguration(base(), ADMIN_TOKEN, requests);
    const configureS = (performance.now() - configureStart) / 1000;
    const configureFailures = statuses.filter((s) => s >= 500 || s === 0).length;
    log(`configured ${options.flags} flags with ${requests.length} requests in ${configureS.toFixed(1)} s (${configureFailures} 5xx)`);
    const flagNames = requests.filter((r) => r.method === 'POST' && /\/features$/.test(r.path))
      .map((r) => ({ name: (r.body as { name: string }).name, project: r.path.split('/')[4]! }));
    const projects = [...new Set(flagNames.map((f) => f.project))];
    const token = async (type: string, environment = 'development') => {
      const res = await recorder.call('POST /api/admin/api-tokens', `${base()}/api/admin/api-tokens`, {
        method: 'POST', headers: jsonAdmin, body: JSON.stringify({ tokenName: `soak-${type}-${random.int(0, 1e9)}`, type, environment, projects }),
      });
      return (JSON.parse(res.text) as { secret: string }).secret;
    };
    const clientToken = await token('client');
    const frontendToken = await token('frontend');
    const segmentIds = (JSON.parse((await recorder.call('GET /api/admin/segments', `${base()}/api/admin/segments`, { headers: admin })).text) as {
      segments: Array<{ id: number; name: string; constraints: unknown[] }>;
    }).segments;

    // 2. Everyone at once.
    phase = 'soak';
    recorder.measuring = true;
    const scrape = async () => {
      const buckets = new Map<string, Map<number, number>>();
      const database: DatabaseTotals = new Map();
      for (const v of vanes) {
        const text = (await recorder.call('GET /internal-backstage/prometheus', `${v.url}/internal-backstage/prometheus`)).text;
        sdkReadBuckets(text, buckets);
        databaseTotals(text, database);
      }
      return { buckets, database };
    };
    const processes = () => ({
      ...Object.fromEntries(vanes.map((v, i) => [`vane ${i + 1}`, v.child?.pid])),
      database: databasePid(), applications: apps?.pid, soak: process.pid,
    });
    const cpuAt = () => ({ at: performance.now(), cpu: Object.fromEntries(Object.entries(processes()).map(([name, pid]) => [name, cpuSeconds(pid)])) });
    const before = await scrape();
    const sdkReadsBefore = before.buckets;
    const acknowledged: Acknowledged[] = [];
    const loop = (fn: () => Promise<void>, pauseMs: number) => {
      loops.push((async () => {
        while (!stopped) {
          await fn().catch((err: unknown) => log(`loop error: ${String(err)}`));
          if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
        }
      })());
    };
    // The applications run in a process of their own (tools/soak/apps.ts says why).
    apps = fork(resolve(dirname(fileURLToPath(import.meta.url)), 'apps.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    apps.send({
      type: 'start', urls: vanes.map((v) => v.url), clientToken, frontendToken, flagNames: flagNames.map((f) => f.name),
      serverSdks: options.serverSdks, browserSdks: options.browserSdks,
    } satisfies AppsStart);
    const cpuBefore = cpuAt();
    const contexts = Array.from({ length: 200 }, () => generateContext(random));
    let c = 0;
    const nextContext = () => contexts[c++ % contexts.length]!;
    for (let i = 0; i < 2; i++) {
      loop(async () => {
        await recorder.call('POST /api/frontend', `${base()}/api/frontend`, {
          method: 'POST', headers: { authorization: frontendToken, 'content-type': 'application/json' }, body: JSON.stringify({ context: nextContext() }),
        });
      }, 5);
    }
    loop(async () => {
      await recorder.call('POST /api/admin/playground', `${base()}/api/admin/playground`, {
        method: 'POST', headers: jsonAdmin, body: JSON.stringify({ environment: 'production', projects: '*', context: nextContext() }),
      });
    }, 20);
    loop(async () => {
      await recorder.call('POST /api/admin/playground/advanced', `${base()}/api/admin/playground/advanced`, {
        method: 'POST', headers: jsonAdmin, body: JSON.stringify({ environments: ['development', 'production'], projects: '*', context: { ...nextContext(), userId: '1,2,3' } }),
      });
    }, 50);
    loop(async () => {
      await recorder.call('POST /api/admin/playground/batch', `${base()}/api/admin/playground/batch`, {
        method: 'POST', headers: jsonAdmin,
        body: JSON.stringify({ environments: ['production'], projects: '*', contexts: Array.from({ length: 50 }, nextContext) }),
      });
    }, 200);
    const searches = ['type=IS:feature-created', 'feature=IS:' + (flagNames[0]?.name ?? 'x'), 'limit=50', 'project=IS:default&offset=10&limit=20', 'query=flag'];
    let q = 0;
    loop(async () => {
      await recorder.call('GET /api/admin/search/events', `${base()}/api/admin/search/events?${searches[q++ % searches.length]}`, { headers: admin });
    }, 20);

    // Admin writers: each acknowledged write is remembered, to be checked after the restart.
    let written = 0;
    const write = async (label: string, path: string, method: string, body: unknown) =>
      await recorder.call(label, `${base()}${path}`, { method, headers: jsonAdmin, body: body === undefined ? undefined : JSON.stringify(body), write: true });
    // Each writer cycles through five writes on a flag of its own, so the configuration grows by
    // one flag and one strategy per cycle (not by strategies piling onto the configured flags,
    // which measured the growth of a few flags rather than the service).
    for (let w = 0; w < options.writers; w++) {
      let own: { flag: string; strategyId?: string; rollout?: number } | undefined;
      loop(async () => {
        const n = written++;
        const step = n % 5;
        if (step === 0 || !own) {
          const name = `soak-w${w}-${n}`;
          const res = await write('POST .../features', '/api/admin/projects/default/features', 'POST', { name });
          if (res.status === 201) {
            own = { flag: name };
            acknowledged.push({ kind: 'flag', flag: name, eventType: 'feature-created' });
          }
        } else if (step === 1 || !own.strategyId) {
          const rollout = random.int(0, 100);
          const res = await write('POST .../strategies', `/api/admin/projects/default/features/${own.flag}/environments/development/strategies`, 'POST', {
            name: 'flexibleRollout', parameters: { rollout: String(rollout), stickiness: 'default', groupId: own.flag },
          });
          if (res.status === 200) {
            own.strategyId = (JSON.parse(res.text) as { id: string }).id;
            own.rollout = rollout;
            acknowledged.push({ kind: 'strategy', flag: own.flag, strategyId: own.strategyId, eventType: 'feature-strategy-add' });
          }
        } else if (step === 2) {
          // A different rollout every time: an update that changes nothing records no event (docs/rules.md §4.4).
          const rollout = ((own.rollout ?? 0) + random.int(1, 100)) % 101;
          const res = await write('PUT .../strategies/:id', `/api/admin/projects/default/features/${own.flag}/environments/development/strategies/${own.strategyId}`, 'PUT', {
            name: 'flexibleRollout', parameters: { rollout: String(rollout), stickiness: 'default', groupId: own.flag },
          });
          if (res.status === 200) {
            own.rollout = rollout;
            acknowledged.push({ kind: 'strategy', flag: own.flag, strategyId: own.strategyId, eventType: 'feature-strategy-update' });
          }
        } else if (step === 3) {
          const res = await write('POST .../on', `/api/admin/projects/default/features/${own.flag}/environments/production/on`, 'POST', undefined);
          if (res.status === 200) acknowledged.push({ kind: 'enabled', flag: own.flag, eventType: 'feature-environment-enabled' });
        } else if (segmentIds.length) {
          const segment = random.pick(segmentIds);
          const res = await write('PUT /api/admin/segments/:id', `/api/admin/segments/${segment.id}`, 'PUT', {
            name: segment.name, description: `soak ${n}`, constraints: segment.constraints,
          });
          if (res.status === 204 || res.status === 200) acknowledged.push({ kind: 'segment', name: segment.name, eventType: 'segment-updated' });
        }
      }, 100);
    }

    const soakEnd = performance.now() + options.durationS * 1000;
    while (performance.now() < soakEnd) {
      await new Promise((r) => setTimeout(r, 5000));
      const s = samples.at(-1);
      if (s) log(`t=${s.atS}s ${s.phase}: write p99 ${s.writeP99Ms} ms, acknowledged ${acknowledged.length}, SQLite handles ${s.sqliteHandles}, RSS ${s.rssMb} MB (main heap ${s.heapMb} MB), event loop p99 ${s.loopP99Ms} ms, hangs ${recorder.hangs}`);
    }

    // 3. Freeze the database under the same load.
    const after = await scrape();
    const cpuAfter = cpuAt();
    cpuDuringSoak = Object.fromEntries(Object.entries(cpuAfter.cpu).map(([name, seconds]) =>
      [name, Math.round(((seconds - (cpuBefore.cpu[name] ?? 0)) / ((cpuAfter.at - cpuBefore.at) / 1000)) * 100) / 100]));
    const sdkReadsAfter = after.buckets;
    databaseDuringSoak = [...after.database].map(([key, t]) => {
      const b = before.database.get(key) ?? { count: 0, busyS: 0, waitS: 0 };
      return { operation: key, count: t.count - b.count, busyS: round1(t.busyS - b.busyS), waitS: round1(t.waitS - b.waitS) };
    }).filter((t) => t.count > 0).sort((a, b) => b.busyS - a.busyS);
    const readP99 = (route: string) => p99Between(sdkReadsBefore.get(route) ?? new Map<number, number>(), sdkReadsAfter.get(route) ?? new Map<number, number>());
    const sdkReadP99Ms = readP99('');
    const sdkReadP99MsByRoute = Object.fromEntries([...sdkReadsAfter.keys()].filter((route) => route !== '').map((route) => [route, readP99(route)]));
    phase = 'freeze';
    recorder.measuring = false;
    const dbPid = databasePid();
    const freeze = {
      firstWrite503Ms: null as number | null, ready503Ms: null as number | null, readsDuringFreeze: { ok: 0, failed: 0 },
      writesOkAfterResumeMs: null as number | null,
    };
    log(`freezing the database (pid ${dbPid}) for ${options.freezeS} s`);
    process.kill(dbPid, 'SIGSTOP');
    const frozenAt = performance.now();
    // Every instance's /ready, polled on its own: between the reads below, one poll waited for
    // each of them and /ready's turn was seen seconds late.
    const readyTurned = Promise.all(vanes.map(async (v) => {
      while (performance.now() - frozenAt < options.freezeS * 1000) {
        if ((await recorder.call('GET /ready', `${v.url}/ready`)).status === 503) return performance.now() - frozenAt;
        await new Promise((r) => setTimeout(r, 100));
      }
      return null;
    }));
    // The probe below must find the database stopped: a flag create once answered 201 within 9 ms
    // of the signal on the loaded CI machine. Every thread is seen stopped first.
    const stoppedAfterMs = await everyThreadStopped(dbPid, 2000);
    log(stoppedAfterMs === null ? 'the database\'s threads were not all stopped 2 s after SIGSTOP' : `every database thread stopped ${stoppedAfterMs} ms after SIGSTOP`);
    const probeWrite = async () => (await write('POST .../features (probe)', '/api/admin/projects/default/features', 'POST', { name: `soak-probe-${random.int(0, 1e9)}` }));
    let first = await probeWrite();
    // Failed without an answer (status 0: a connection error or the abort; CI's counts once held one
    // such write while the freeze probe got no 503): sent again, with the error in the log.
    for (let retry = 0; first.status === 0 && retry < 2; retry++) {
      log(`the write while frozen failed without an answer after ${Math.round(first.ms)} ms (${first.text}); sent again`);
      first = await probeWrite();
    }
    if (first.status === 503) freeze.firstWrite503Ms = Math.round(first.ms);
    else log(`the write while frozen answered ${first.status} after ${Math.round(first.ms)} ms: ${first.text.slice(0, 200)}`);
    while (performance.now() - frozenAt < options.freezeS * 1000) {
      for (const [label, path, headers] of [
        ['GET /api/admin/projects/default/features', '/api/admin/projects/default/features', admin],
        ['GET /api/client/features', '/api/client/features', { authorization: clientToken }],
      ] as const) {
        const res = await recorder.call(label, `${base()}${path}`, { headers });
        if (res.status === 200) freeze.readsDuringFreeze.ok++;
        else freeze.readsDuringFreeze.failed++;
      }
      const pg = await recorder.call('POST /api/admin/playground', `${base()}/api/admin/playground`, {
        method: 'POST', headers: jsonAdmin, body: JSON.stringify({ environment: 'production', projects: '*', context: nextContext() }),
      });
      if (pg.status === 200) freeze.readsDuringFreeze.ok++;
      else freeze.readsDuringFreeze.failed++;
      await new Promise((r) => setTimeout(r, 200));
    }
    const turned = await readyTurned;
    // The slowest instance's: every one must turn.
    freeze.ready503Ms = turned.includes(null) ? null : Math.round(Math.max(...(turned as number[])));
    process.kill(dbPid, 'SIGCONT');
    const resumedAt = performance.now();
    log('database resumed');
    while (performance.now() - resumedAt < 30_000) {
      const res = await probeWrite();
      if (res.status === 201) {
        freeze.writesOkAfterResumeMs = Math.round(performance.now() - resumedAt);
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    phase = 'after-freeze';
    await new Promise((r) => setTimeout(r, Math.min(10_000, options.durationS * 200)));

    // 4. Kill Vane while the writers write, then start it again on the same data.
    const serverRoutes: Record<string, Record<string, number>> = {};
    for (const v of vanes) parseServerRoutes((await recorder.call('GET /internal-backstage/prometheus', `${v.url}/internal-backstage/prometheus`)).text, serverRoutes);
    phase = 'kill';
    // The SDKs stop first (their in-flight requests settle), the writers keep writing.
    await stopApps();
    await new Promise((r) => setTimeout(r, 1500));
    log('SIGKILL to every Vane in the middle of writes');
    await Promise.all(vanes.map((v) => v.kill()));
    stopped = true;
    await Promise.all(loops);
    const ackCount = acknowledged.length;
    let readyAfterMs: number | null = 0;
    for (const v of vanes) {
      v.start();
      const ms = await v.waitReady(120_000);
      readyAfterMs = ms === null || readyAfterMs === null ? null : Math.max(readyAfterMs, ms);
    }
    phase = 'verify';
    log(`restarted: ready after ${readyAfterMs === null ? 'never' : Math.round(readyAfterMs)} ms; checking ${ackCount} acknowledged writes`);
    const missing: string[] = [];
    const missingEvents: string[] = [];
    // Read from every instance: a flag missing on any of them is missing.
    const flagCache = new Map<string, Record<string, unknown> | null>();
    const getFlag = async (name: string) => {
      if (!flagCache.has(name)) {
        let flag: Record<string, unknown> | null = null;
        for (const [i, v] of vanes.entries()) {
          const res = await fetch(`${v.url}/api/admin/projects/${flagNames.find((f) => f.name === name)?.project ?? 'default'}/features/${name}`, { headers: admin });
          const found = res.status === 200 ? (await res.json()) as Record<string, unknown> : null;
          if (i === 0) flag = found;
          else if (JSON.stringify(found) !== JSON.stringify(flag)) flag = null;
        }
        flagCache.set(name, flag);
      }
      return flagCache.get(name)!;
    };
    const eventCounts = new Map<string, number>();
    const eventsOf = async (type: string, flag?: string) => {
      const key = `${type}\0${flag ?? ''}`;
      if (!eventCounts.has(key)) {
        const query = `type=IS:${type}${flag ? `&feature=IS:${encodeURIComponent(flag)}` : ''}&limit=1`;
        const res = await fetch(`${base()}/api/admin/search/events?${query}`, { headers: admin });
        eventCounts.set(key, res.status === 200 ? ((await res.json()) as { total: number }).total : -1);
      }
      return eventCounts.get(key)!;
    };
    const expected = new Map<string, number>();
    for (const a of acknowledged) {
      const key = `${a.eventType}\0${a.kind === 'segment' ? '' : a.flag}`;
      // Turning on an environment that is on already changes nothing and records no event (as Unleash).
      expected.set(key, a.kind === 'enabled' ? 1 : (expected.get(key) ?? 0) + 1);
      if (a.kind === 'flag' || a.kind === 'enabled') {
        if (!(await getFlag(a.flag!))) missing.push(`flag ${a.flag}`);
      } else if (a.kind === 'strategy') {
        const flag = await getFlag(a.flag!);
        const environments = (flag?.environments ?? []) as Array<{ name: string; strategies: Array<{ id: string }> }>;
        if (!environments.find((e) => e.name === 'development')?.strategies.some((s) => s.id === a.strategyId)) {
          missing.push(`strategy ${a.strategyId} of ${a.flag}`);
        }
      }
    }
    for (const [key, count] of expected) {
      const [type, flag] = key.split('\0') as [string, string];
      const found = await eventsOf(type, flag || undefined);
      if (found < count) missingEvents.push(`${type}${flag ? ` of ${flag}` : ''}: ${found} of ${count}`);
    }

    const latencies = [...recorder.writeLatencies].sort((a, b) => a - b);
    const clientRoutes: Record<string, Record<string, number>> = {};
    for (const [label, byStatus] of recorder.routes) clientRoutes[label] = Object.fromEntries(byStatus);
    const refusedByRoute = Object.fromEntries([...recorder.routes].flatMap(([label, byStatus]) => (byStatus.get(503) ? [[label, byStatus.get(503)!]] : [])));
    const latencyByRoute = Object.fromEntries([...recorder.latencies].map(([label, list]) => {
      const sorted = [...list].sort((a, b) => a - b);
      return [label, { count: sorted.length, p50Ms: Math.round(percentile(sorted, 50)), p99Ms: Math.round(percentile(sorted, 99)), maxMs: Math.round(sorted.at(-1) ?? 0) }];
    }));
    const serverMessages = new Map<string, number>();
    for (const v of vanes) for (const [key, n] of v.messages) serverMessages.set(key, (serverMessages.get(key) ?? 0) + n);
    const report: SoakReport = {
      options: {
        durationS: options.durationS, flags: options.flags, instances: options.instances, freezeS: options.freezeS, seed: options.seed,
        writers: options.writers, serverSdks: options.serverSdks, browserSdks: options.browserSdks,
      },
      configureS: Math.round(configureS * 10) / 10,
      configureFailures,
      serverRoutes,
      clientRoutes,
      writes: {
        acknowledged: ackCount, p50Ms: Math.round(percentile(latencies, 50)), p99Ms: Math.round(percentile(latencies, 99)),
        maxMs: Math.round(latencies.at(-1) ?? 0), statuses: Object.fromEntries(recorder.writeStatuses),
      },
      hangs: recorder.hangs,
      hangsByRoute: Object.fromEntries(recorder.hangsByLabel),
      refusedByRoute,
      latencyByRoute,
      sdkReadP99Ms,
      sdkReadP99MsByRoute,
      databaseDuringSoak: databaseDuringSoak ?? [],
      cpuDuringSoak: cpuDuringSoak ?? {},
      unexpected5xx: recorder.unexpected5xx,
      sdkErrors,
      samples,
      freeze,
      restart: { readyAfterMs: readyAfterMs === null ? null : Math.round(readyAfterMs), checked: ackCount, missing, missingEvents },
      serverWarnings: vanes.reduce((n, v) => n + v.warnings, 0),
      serverErrors: vanes.reduce((n, v) => n + v.errors, 0),
      serverMessages: [...serverMessages].sort((a, b) => b[1] - a[1]).map(([key, count]) => {
        const [level, ...msg] = key.split(' ');
        return { level: level as 'warn' | 'error', msg: msg.join(' '), count };
      }),
      failures,
    };
    // The bar the soak must clear.
    if (report.hangs > 0) failures.push(`${report.hangs} requests hung (no answer after ${HANG_MS / 1000} s): ${JSON.stringify(report.hangsByRoute)}`);
    if (report.sdkReadP99Ms > SDK_READ_P99_MS) failures.push(`SDK reads p99 ${report.sdkReadP99Ms} ms during the soak (bar: ${SDK_READ_P99_MS} ms)`);
    if (report.unexpected5xx > 0) failures.push(`${report.unexpected5xx} answers 5xx other than 503`);
    if (report.configureFailures > 0) failures.push(`${report.configureFailures} configuration requests failed`);
    const soakP99 = percentile(samples.filter((s) => s.phase === 'soak').map((s) => s.writeP99Ms).sort((a, b) => a - b), 100);
    if (soakP99 > 1000) failures.push(`write p99 over a 5 s window reached ${soakP99} ms during the soak (bar: 1 000 ms)`);
    if (freeze.firstWrite503Ms === null) failures.push('the first write while frozen did not answer 503');
    else if (freeze.firstWrite503Ms > 2000 + 1000) failures.push(`the first write while frozen took ${freeze.firstWrite503Ms} ms (bar: DB_TIMEOUT_MS + 1 s)`);
    if (freeze.ready503Ms === null || freeze.ready503Ms > 5000) failures.push(`/ready did not turn 503 within 5 s (${freeze.ready503Ms} ms)`);
    if (freeze.readsDuringFreeze.failed > 0) failures.push(`${freeze.readsDuringFreeze.failed} reads failed while frozen`);
    if (freeze.writesOkAfterResumeMs === null || freeze.writesOkAfterResumeMs > 10_000) failures.push(`writes did not succeed within 10 s of resuming (${freeze.writesOkAfterResumeMs} ms)`);
    if (readyAfterMs === null) failures.push('Vane did not become ready after the restart');
    if (missing.length) failures.push(`${missing.length} acknowledged writes missing after the restart`);
    if (missingEvents.length) failures.push(`${missingEvents.length} acknowledged writes without their events after the restart`);
    const handles = samples.filter((s) => s.phase === 'soak' && s.sqliteHandles >= 0).map((s) => s.sqliteHandles);
    if (handles.length > 2 && Math.max(...handles) >= 90) failures.push(`the database held ${Math.max(...handles)} SQLite handles`);
    return report;
  } finally {
    stopped = true;
    clearInterval(sampler);
    recorder.stop();
    await stopApps();
    await Promise.all(vanes.map((v) => v.kill()));
    if (database) await database.stop().catch(() => undefined);
    else try { process.kill(vane.databasePid(), 'SIGKILL'); } catch { /* gone */ }
    if (!process.env.SOAK_KEEP) rmSync(dataDir, { recursive: true, force: true });
  }
}

function printReport(report: SoakReport, log: (line: string) => void): void {
  log('\nrequests by route and status (server counts, before the kill):');
  for (const [route, byStatus] of Object.entries(report.serverRoutes).sort()) {
    log(`  ${route.padEnd(72)} ${Object.entries(byStatus).map(([s, n]) => `${s}: ${n}`).join(', ')}`);
  }
  log(`writes acknowledged: ${report.writes.acknowledged}, p50 ${report.writes.p50Ms} ms, p99 ${report.writes.p99Ms} ms, max ${report.writes.maxMs} ms; statuses ${JSON.stringify(report.writes.statuses)}`);
  log('latency of answered requests during the soak (this tool\'s callers):');
  for (const [label, l] of Object.entries(report.latencyByRoute).sort()) log(`  ${label.padEnd(48)} n ${l.count}, p50 ${l.p50Ms} ms, p99 ${l.p99Ms} ms, max ${l.maxMs} ms`);
  log(`SDK reads p99 (server-timed, bucket bound): ${report.sdkReadP99Ms} ms, by route ${JSON.stringify(report.sdkReadP99MsByRoute)}; refused (503) by route: ${JSON.stringify(report.refusedByRoute)}; hangs by route: ${JSON.stringify(report.hangsByRoute)}`);
  log(`CPU during the soak, in cores: ${Object.entries(report.cpuDuringSoak).map(([name, cores]) => `${name} ${cores}`).join(', ')}`);
  log('database work during the soak (count, seconds sent, seconds waiting for a slot; every instance):');
  for (const t of report.databaseDuringSoak.slice(0, 15)) log(`  ${String(t.count).padStart(7)} ${t.busyS.toFixed(1).padStart(8)} s ${t.waitS.toFixed(1).padStart(8)} s  ${t.operation}`);
  log('server warnings and errors by message:');
  for (const m of report.serverMessages.slice(0, 20)) log(`  ${String(m.count).padStart(6)} ${m.level.padEnd(5)} ${m.msg}`);
  log(`hangs: ${report.hangs}; 5xx other than 503: ${report.unexpected5xx}; SDK errors: ${report.sdkErrors}; server log warnings ${report.serverWarnings}, errors ${report.serverErrors}`);
  log('samples (t s, phase, SQLite handles, RSS MB, main heap MB, main event loop delay p99 ms, write p99 over 5 s):');
  for (const s of report.samples) log(`  ${String(s.atS).padStart(5)} ${s.phase.padEnd(12)} ${String(s.sqliteHandles).padStart(4)} ${String(s.rssMb).padStart(6)} ${String(s.heapMb).padStart(6)} ${String(s.loopP99Ms).padStart(6)} ${String(s.writeP99Ms).padStart(6)}`);
  log(`freeze: first write 503 after ${report.freeze.firstWrite503Ms} ms, /ready 503 after ${report.freeze.ready503Ms} ms, reads ${JSON.stringify(report.freeze.readsDuringFreeze)}, writes OK ${report.freeze.writesOkAfterResumeMs} ms after resuming`);
  log(`restart: ready after ${report.restart.readyAfterMs} ms; ${report.restart.checked} acknowledged writes checked, ${report.restart.missing.length} missing, ${report.restart.missingEvents.length} without events`);
  for (const m of [...report.restart.missing, ...report.restart.missingEvents].slice(0, 20)) log(`  ${m}`);
  log(report.failures.length ? `FAILED:\n  ${report.failures.join('\n  ')}` : 'PASSED');
}

const USAGE = `
Usage: node dist/tools/soak/run.js [options]   (npm run soak -- …)

Every kind of client at once against Vane instances of its own sharing one embedded database (one
instance alone starts its own), then the database frozen and resumed, then every instance
SIGKILLed mid-write and restarted; exits 1 when a bar is missed (docs/operations.md lists them).

  --duration S       seconds of the soak phase (default 600)
  --flags N          flags in the random configuration (default 2000)
  --instances N      Vane processes behind the clients, one request to each in turn (default 2)
  --freeze S         seconds the database is frozen (default 30)
  --seed N           the configuration's seed (default 1)
  --writers N        admin writers (default 2)
  --server-sdks N    unleash-client SDKs (default 2)
  --browser-sdks N   unleash-proxy-client SDKs (default 2)
  --json FILE        also write the whole report as JSON

Environment: SOAK_KEEP=1 keeps its data folder and Vane's log.
`;

async function main(): Promise<void> {
  const { values } = commandLine(USAGE, {
    options: {
      duration: { type: 'string', default: '600' },
      flags: { type: 'string', default: '2000' },
      instances: { type: 'string', default: '2' },
      freeze: { type: 'string', default: '30' },
      seed: { type: 'string', default: '1' },
      writers: { type: 'string', default: '2' },
      'server-sdks': { type: 'string', default: '2' },
      'browser-sdks': { type: 'string', default: '2' },
      json: { type: 'string' },
    },
  });
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const report = await runSoak({
    durationS: Number(values.duration), flags: Number(values.flags), instances: Number(values.instances), freezeS: Number(values.freeze), seed: Number(values.seed),
    writers: Number(values.writers), serverSdks: Number(values['server-sdks']), browserSdks: Number(values['browser-sdks']), log,
  });
  printReport(report, log);
  if (values.json) writeFileSync(values.json, JSON.stringify(report, null, 2));
  process.exit(report.failures.length ? 1 : 0);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
