/**
 * The two servers every side-by-side benchmark runs: a Vane built from this checkout on its own
 * embedded database, and the Unleash reference started fresh by its start script. One place, so
 * that every benchmark measures the same kind of server started the same way.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Target } from './seed.js';

export const BENCH_ADMIN_TOKEN = '*:*.bench-admin-token';

export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const srv = createServer();
    srv.on('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Waits for `/health`, then for `/ready` to stop answering 503 (the state has loaded). */
export async function waitHealthy(url: string, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const status = async (path: string) => (await fetch(url + path).catch(() => undefined))?.status;
  while ((await status('/health')) !== 200) {
    if (Date.now() > deadline) throw new Error(`${url} did not become healthy`);
    await new Promise((r) => setTimeout(r, 250));
  }
  while ((await status('/ready')) === 503) {
    if (Date.now() > deadline) throw new Error(`${url} did not become ready`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface StartedVane {
  target: Target;
  child: ChildProcess;
  /** Where its embedded database keeps its files, and the database's name (to start on them again: `reuse`). */
  dataDir: string;
  database: string;
  /** Stops it; removes its data directory unless it was reused or `keep` is set. */
  cleanup(options?: { keep?: boolean }): Promise<void>;
}

export interface VaneOptions {
  name: string;
  port?: number;
  env?: Record<string, string>;
  nodeArgs?: string[];
  /**
   * An embedded database's data directory and database name to start on (a restart on what an
   * earlier start wrote), kept by cleanup; by default a fresh directory, removed by cleanup.
   */
  reuse?: { dataDir: string; database: string };
}

/** A Vane from `dist/` on a fresh embedded database; `env` adds or overrides settings. */
export async function startVane(options: VaneOptions): Promise<StartedVane> {
  const port = options.port || (await freePort());
  const dataDir = options.reuse?.dataDir ?? mkdtempSync(join(tmpdir(), `vane-bench-${options.name}-`));
  const database = options.reuse?.database ?? `vane_bench_${options.name}_${Date.now()}`;
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), resolve('dist/src/server.js')], {
    env: {
      ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, INIT_ADMIN_API_TOKENS: BENCH_ADMIN_TOKEN,
      MONGODB_DB: database, LOG_LEVEL: 'warn', UNLEASH_UI: 'off', ...options.env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(url);
  return {
    target: { name: 'vane', url, token: BENCH_ADMIN_TOKEN },
    child,
    dataDir,
    database,
    async cleanup(cleanupOptions = {}) {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      if (!options.reuse && !cleanupOptions.keep) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The environment the reference's start and stop read, for the usage of every `--with-reference` bench. */
export const REFERENCE_ENVIRONMENT = `The Unleash reference (--with-reference) is started fresh by its script, read from the environment:
  PEER_SCRIPT       start-unleash.sh (default: ../shared/unleash-reference/, then /work/shared/unleash-reference/)
  PEER_DIR, PEER_PORT, PEER_DB, PEER_ADMIN_TOKEN   as the script reads them (port 4242, token *:*.peer-admin-token)`;

/** The reference's start script: `PEER_SCRIPT`, beside the checkout (`../shared`), or the workplace's copy. */
export function referenceScript(): string {
  const candidates = [process.env.PEER_SCRIPT, resolve('../shared/unleash-reference/start-unleash.sh'), '/work/shared/unleash-reference/start-unleash.sh'];
  const script = candidates.find((c): c is string => typeof c === 'string' && existsSync(c));
  if (!script) throw new Error('start-unleash.sh not found (../shared/unleash-reference)');
  return script;
}

/**
 * Unleash 8 rate-limits the SDK APIs and token authentication to 20 000 requests a minute per
 * process by default (create-config.js; `RateLimit-Policy: 20000;w=60`): a 10 s run above
 * ~2 000 req/s is then mostly 429s, which answer fast and flatter the reference's req/s (seen in
 * bench:sdk: every F1/F2 answer of the reference's was an error). Vane has no such
 * limit, so the reference runs without one too.
 */
const REFERENCE_UNLIMITED = {
  SDK_API_RATE_LIMIT_PER_MINUTE: '100000000',
  TOKEN_AUTHENTICATION_RATE_LIMIT_PER_MINUTE: '100000000',
  REGISTER_CLIENT_RATE_LIMIT_PER_MINUTE: '100000000',
  CLIENT_METRICS_RATE_LIMIT_PER_MINUTE: '100000000',
  REGISTER_FRONTEND_RATE_LIMIT_PER_MINUTE: '100000000',
  FRONTEND_METRICS_RATE_LIMIT_PER_MINUTE: '100000000',
  // The feature search allows 15 a minute by default: a 10 s run at 5 000 flags was 3 971 429s.
  SEARCH_FEATURES_RATE_LIMIT_PER_MINUTE: '100000000',
};

/**
 * Stops the reference started by startReference. Every `--with-reference` bench calls it before
 * measuring Vane as well: a reference left running by an earlier run keeps working for a while
 * after its load ends (seen at 82 % of a core a minute after bench:sdk), and Vane, measured
 * first, would share the two cores with it.
 */
export function stopReference(): void {
  const script = referenceScript().replace(/start-unleash\.sh$/, 'stop-unleash.sh');
  spawnSync('bash', [script], { stdio: 'inherit' });
}

/**
 * Starts the Unleash reference on a fresh database (PEER_* variables as its script reads them);
 * `fresh: false` starts it on the database it had (a restart, after stopReference).
 */
export function startReference(options: { fresh?: boolean } = {}): { target: Target; pid: number } {
  const args = options.fresh === false ? [] : ['--fresh'];
  const run = spawnSync('bash', [referenceScript(), ...args], { stdio: 'inherit', env: { ...process.env, ...REFERENCE_UNLIMITED } });
  if (run.status !== 0) throw new Error('could not start the reference server');
  const port = process.env.PEER_PORT ?? '4242';
  const pid = Number(readFileSync(join(process.env.PEER_DIR ?? join(process.env.HOME ?? '/root', 'unleash-peer'), 'unleash.pid'), 'utf8').trim());
  return { target: { name: 'unleash', url: `http://127.0.0.1:${port}`, token: process.env.PEER_ADMIN_TOKEN ?? '*:*.peer-admin-token' }, pid };
}
