/**
 * What the SDK-API benchmarks share (bench/sdk.ts, bench/ofrep.ts): autocannon runs with the
 * server's CPU per request beside them, their figures, and prebuilt rotating requests.
 */
import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';

/** The server process's CPU time so far (user + system, ms), from /proc (Linux); NaN elsewhere. */
export function cpuMs(pid: number): number {
  try {
    // Fields after the parenthesised command name: state is the 1st, utime the 12th, stime the 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}

/** USER_HZ: 100 on Linux (getconf CLK_TCK); /proc/<pid>/stat counts CPU time in these ticks. */
const CLOCK_TICKS = 100;

/** The server's CPU per request, and the load generator's own (this process: autocannon shares the cores). */
export interface Run { result: autocannon.Result; cpuPerRequest: number; clientCpuPerRequest: number; steal: number }

/**
 * The machine's CPU ticks so far, and those stolen by the hypervisor (/proc/stat): on this virtual
 * machine a busy neighbour once made every figure 3–5× slower for both servers (steal over the
 * run), so each run reports the share stolen while it ran.
 */
function ticks(): { all: number; steal: number } {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    return { all: fields.reduce((a, b) => a + b, 0), steal: fields[7]! };
  } catch {
    return { all: NaN, steal: NaN };
  }
}

/**
 * One autocannon run, with the server's CPU time per request over it: on a machine shared with
 * other work, latency says how long a request waited, CPU per request what it cost.
 */
export async function cannon(options: autocannon.Options, pid?: number): Promise<Run> {
  const before = pid === undefined ? NaN : cpuMs(pid);
  const ownBefore = process.cpuUsage();
  const ticksBefore = ticks();
  const result = await autocannon(options);
  const after = pid === undefined ? NaN : cpuMs(pid);
  const own = process.cpuUsage(ownBefore);
  const ticksAfter = ticks();
  const steal = (ticksAfter.steal - ticksBefore.steal) / (ticksAfter.all - ticksBefore.all);
  return { result, cpuPerRequest: (after - before) / result.requests.total, clientCpuPerRequest: (own.user + own.system) / 1000 / result.requests.total, steal };
}

export interface Figure { rps: number; p50: number; p99: number; errors: number; text: string }

export function figure({ result, cpuPerRequest, clientCpuPerRequest, steal }: Run, extra = ''): Figure {
  const errors = result.non2xx + result.errors + result.timeouts;
  const stolen = Number.isFinite(steal) ? `, steal ${(steal * 100).toFixed(0)} %` : '';
  const cpu = Number.isFinite(cpuPerRequest) ? `, CPU ${(cpuPerRequest * 1000).toFixed(0)} µs/req (load generator ${(clientCpuPerRequest * 1000).toFixed(0)})${stolen}` : '';
  return {
    rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors,
    text: `${result.requests.average.toFixed(0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms${cpu}${errors ? `, ${errors} errors/non-2xx` : ''}${extra}`,
  };
}

/**
 * Rotating requests built once: every connection cycles through all of them, each from its own
 * starting point (so the 16 connections do not send the same context at the same moment).
 * Performance: rebuilding each request in autocannon's setupRequest cost the load generator, on
 * the same two cores as the server, ≈ 14 % of its CPU (bench profile); prebuilt, the
 * inputs rotate just the same.
 */
export function rotating(requests: autocannon.Request[]): Pick<autocannon.Options, 'requests' | 'setupClient'> {
  let clients = 0;
  const stride = Math.max(1, Math.floor(requests.length / 16));
  const from = (start: number) => requests.map((_, i) => ({ ...requests[(start + i) % requests.length]! }));
  return {
    requests: from(0),
    setupClient: (client) => client.setRequests(from(stride * clients++)),
  };
}

/** The median run by req/s. */
export function median(figures: Figure[]): Figure {
  return [...figures].sort((a, b) => a.rps - b.rps)[Math.floor((figures.length - 1) / 2)]!;
}
