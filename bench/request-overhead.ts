/**
 * What each per-request layer costs on a bare Fastify route answering 304, as `src/app.ts` would
 * add it: `npm run build && node dist/bench/request-overhead.js`.
 *
 * Each variant is a fresh server process (this file, with the variant's name) loaded by autocannon
 * for 4 s at 16 connections; the variants are interleaved over four rounds so that a noisy stretch
 * of the machine hits all of them, and the median server CPU per request (from /proc) is printed.
 * The figures quoted in src/plugins/metrics.ts and request-logger.ts come from here.
 */
import autocannon from 'autocannon';
import Fastify from 'fastify';
import cookie from '@fastify/cookie';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Histogram, Registry } from 'prom-client';
import { commandLine, usageError } from '../tools/cli.js';
import { freePort } from './servers.js';

const VARIANTS = ['bare', 'logger', 'request ids', 'prom-client histogram', 'async hook and handler', 'cookie plugin'] as const;
type Variant = (typeof VARIANTS)[number];

async function serve(variant: Variant, port: number): Promise<void> {
  const app = Fastify({ logger: variant === 'logger' ? { level: 'warn' } : false, ...(variant === 'request ids' ? { genReqId: () => randomUUID() } : {}) });
  if (variant === 'cookie plugin') await app.register(cookie);
  if (variant === 'prom-client histogram') {
    const duration = new Histogram({ name: 'd', help: 'd', labelNames: ['method', 'route', 'status_code'], buckets: [0.001, 0.01, 0.1, 1], registers: [new Registry()] });
    app.addHook('onResponse', (request, reply, done) => {
      duration.observe({ method: request.method, route: request.routeOptions.url ?? '', status_code: String(reply.statusCode) }, reply.elapsedTime / 1000);
      done();
    });
  }
  if (variant === 'async hook and handler') {
    app.addHook('preValidation', async (request) => {
      if (request.headers.authorization === undefined) throw new Error('no token');
    });
    app.get('/features', async (_request, reply) => reply.header('etag', '"e"').code(304).send());
  } else {
    app.get('/features', (_request, reply) => {
      reply.header('etag', '"e"').code(304).send();
    });
  }
  await app.listen({ port, host: '127.0.0.1' });
}

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function measure(variant: Variant): Promise<number> {
  const port = await freePort();
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), variant, String(port)], { stdio: 'inherit' });
  const url = `http://127.0.0.1:${port}/features`;
  while (!(await fetch(url, { headers: { authorization: 't' } }).then(() => true, () => false))) await new Promise((r) => setTimeout(r, 100));
  const before = cpuMs(child.pid!);
  const result = await autocannon({ url, connections: 16, duration: 4, headers: { authorization: 't', 'if-none-match': '"e"' } });
  const perRequest = ((cpuMs(child.pid!) - before) * 1000) / result.requests.total;
  child.kill();
  await new Promise((r) => child.once('exit', r));
  return perRequest;
}

const USAGE = `
Usage: node dist/bench/request-overhead.js   (npm run bench:request-overhead)

What each per-request layer costs a bare Fastify route answering 304: the server CPU per request,
median of four interleaved rounds, for the variants ${VARIANTS.map((v) => `"${v}"`).join(', ')}.
Each variant runs as its own process, this program with two arguments: <variant> <port>.
`;
const { positionals } = commandLine(USAGE, { allowPositionals: true });
const [name, port] = positionals;
const variant = VARIANTS.find((v) => v === name);
if (name !== undefined) {
  if (variant === undefined || positionals.length !== 2) usageError(USAGE, `expected a variant and a port, got: ${positionals.join(' ')}`);
  await serve(variant, Number(port));
} else {
  const runs = new Map<Variant, number[]>(VARIANTS.map((v) => [v, []]));
  for (let round = 0; round < 4; round++) for (const v of VARIANTS) runs.get(v)!.push(await measure(v));
  for (const [v, values] of runs) {
    const sorted = [...values].sort((a, b) => a - b);
    const median = (sorted[1]! + sorted[2]!) / 2;
    console.log(`${v.padEnd(24)} median ${median.toFixed(1)} µs of server CPU per 304 (runs: ${values.map((x) => x.toFixed(1)).join(', ')})`);
  }
}
