/**
 * `npm test`: brings up what the tests need, runs the whole tap suite, and fails loudly.
 *
 * With MONGODB_URL set the tests use that server; otherwise one embedded MongoDB-compatible
 * server (FerretDB, built on first use, or a mongod on PATH) is started for the whole run and
 * stopped afterwards. Every test file works in its own throwaway database on it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startEmbeddedDatabase, type EmbeddedServer } from '../src/db/embedded.js';

const log = {
  info: (obj: unknown, msg?: string) => process.stderr.write(`[test] ${msg ?? ''} ${JSON.stringify(obj)}\n`),
  warn: (obj: unknown, msg?: string) => process.stderr.write(`[test] WARN ${msg ?? ''} ${JSON.stringify(obj)}\n`),
};

async function main(): Promise<number> {
  let server: EmbeddedServer | undefined;
  let dataDir: string | undefined;
  const env = { ...process.env };
  if (!env.MONGODB_URL) {
    dataDir = mkdtempSync(join(tmpdir(), 'vane-test-db-'));
    server = await startEmbeddedDatabase(dataDir, log);
    env.MONGODB_URL = server.url;
  }
  const args = process.argv.slice(2);
  const files = args.length ? args : ['dist/test/**/*.test.js'];
  const tap = resolve('node_modules/.bin/tap');
  try {
    let tail = '';
    const code = await new Promise<number>((done) => {
      const child = spawn(tap, [...files], { stdio: ['ignore', 'pipe', 'inherit'], env });
      child.stdout.on('data', (chunk: Buffer) => {
        process.stdout.write(chunk);
        tail = (tail + chunk.toString()).slice(-2000);
      });
      child.on('exit', (exitCode, signal) => done(exitCode ?? (signal ? 1 : 0)));
    });
    // tap's summary is `# { total: N, pass: P, fail: F, … }`; restate it in the plain form CI reads.
    const summary = /#\s*\{([^}]*)\}/.exec(tail.split('\n').reverse().find((l) => /#\s*\{.*total/.test(l)) ?? '');
    const count = (key: string) => Number(new RegExp(`${key}:\\s*(\\d+)`).exec(summary?.[1] ?? '')?.[1] ?? 0);
    const failed = count('fail') + (code !== 0 && count('fail') === 0 ? 1 : 0);
    process.stdout.write(`\ntests: ${count('pass')} passed, ${failed} failed${count('skip') ? `, ${count('skip')} skipped` : ''}\n`);
    return code;
  } finally {
    await server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`test run failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
