/**
 * `npm test`: brings up what the tests need, runs the whole tap suite, and fails loudly.
 *
 * With MONGODB_URL set the tests use that server; otherwise one embedded MongoDB-compatible
 * server (FerretDB, built on first use, or a mongod on PATH) is started for the whole run and
 * stopped afterwards. Every test file works in its own throwaway database on it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { withLock } from '../src/cache.js';
import { startEmbeddedDatabase, type EmbeddedServer } from '../src/db/embedded.js';

const log = {
  info: (obj: unknown, msg?: string) => process.stderr.write(`[test] ${msg ?? ''} ${JSON.stringify(obj)}\n`),
  warn: (obj: unknown, msg?: string) => process.stderr.write(`[test] WARN ${msg ?? ''} ${JSON.stringify(obj)}\n`),
};

/** Failing checks listed again at the end of the run. */
const MAX_LISTED_CHECKS = 30;

/**
 * What Node 20.20 prints when its module loader aborts the process (see main): the IsGraphAsync
 * check, and the assertion in CreateRequiredModuleFacade that a pool thread loading a worker
 * module hits now and then (ofrep/routes.test.ts, outbox.test.ts).
 */
const LOADER_CRASHES = ['FATAL ERROR: v8::Module::IsGraphAsync', 'CreateRequiredModuleFacade'];

interface TapRun {
  code: number;
  pass: number;
  fail: number;
  skip: number;
  /** Top-level files reported `not ok`. */
  failedFiles: string[];
  /** The nested `not ok` lines (the failing checks and subtests), the first MAX_LISTED_CHECKS. */
  failedChecks: string[];
  /** Failed files none of whose checks failed: their process ended early (a crash, a signal). */
  endedEarly: string[];
  /** Processes killed by the loader crash (counted on stderr). */
  crashes: number;
}

/** One tap run over `files`, its output passed through; tap's summary read back. */
async function tap(files: string[], env: NodeJS.ProcessEnv): Promise<TapRun> {
  const bin = resolve('node_modules/.bin/tap');
  let tail = '';
  let crashes = 0;
  const failedFiles: string[] = [];
  const failedChecks: string[] = [];
  let file = '';
  const filesWithFailedChecks = new Set<string>();
  const child = spawn(bin, [...files], { stdio: ['ignore', 'pipe', 'pipe'], env });
  const exit = exitCode(child);
  let line = '';
  child.stdout.on('data', (chunk: Buffer) => {
    process.stdout.write(chunk);
    const text = chunk.toString();
    tail = (tail + text).slice(-2000);
    const lines = (line + text).split('\n');
    line = lines.pop() ?? '';
    for (const l of lines) {
      const failed = /^not ok \d+ - (\S+\.test\.js)/.exec(l);
      const subtest = /^# Subtest: (\S+\.test\.js)/.exec(l);
      if (subtest) file = subtest[1]!;
      if (failed) failedFiles.push(failed[1]!);
      else if (/^\s+not ok \d+ - /.test(l)) {
        filesWithFailedChecks.add(file);
        if (failedChecks.length < MAX_LISTED_CHECKS) failedChecks.push(`${file}: ${l.trim().slice(0, 200)}`);
      }
    }
  });
  child.stderr.on('data', (chunk: Buffer) => {
    process.stderr.write(chunk);
    const text = chunk.toString();
    for (const crash of LOADER_CRASHES) crashes += text.split(crash).length - 1;
  });
  const code = await exit;
  // tap's summary is `# { total: N, pass: P, fail: F, … }`.
  const summary = /#\s*\{([^}]*)\}/.exec(tail.split('\n').reverse().find((l) => /#\s*\{.*total/.test(l)) ?? '');
  const count = (key: string) => Number(new RegExp(`${key}:\\s*(\\d+)`).exec(summary?.[1] ?? '')?.[1] ?? 0);
  const endedEarly = failedFiles.filter((f) => !filesWithFailedChecks.has(f));
  // tap's count leaves out a file whose process was killed (a signal is no failing check): each
  // counts as one failure here, and a run that exited non-zero for no reason seen as one more.
  const fail = count('fail') + endedEarly.length + (code !== 0 && count('fail') === 0 && endedEarly.length === 0 ? 1 : 0);
  return { code, pass: count('pass'), fail, skip: count('skip'), failedFiles, failedChecks, endedEarly, crashes };
}

/**
 * `tap build`: tap's Test class rebuilt with the plugins package.json configures, before any test
 * runs. tap ships built with its default plugins, @tapjs/typescript among them; it rebuilds on its
 * own when the configured set differs, but the run that notices still starts every test process
 * with the old set's loaders (a clean clone's first `npm test` ran each file under
 * @tapjs/typescript's import hook). Those hooks are where Node 20.20's loader crash happens (main).
 * About 6 s. Under a lock: two runs building at once in one checkout left @tapjs/test without its
 * ESM build, and every later `tap` failed to start.
 */
async function buildTap(): Promise<void> {
  mkdirSync(resolve('node_modules/.cache'), { recursive: true });
  await withLock(resolve('node_modules/.cache/vane-tap-build.lock'), async () => {
    const code = await exitCode(spawn(resolve('node_modules/.bin/tap'), ['build'], { stdio: ['ignore', 'ignore', 'inherit'] }));
    if (code !== 0) throw new Error(`tap build exited with ${code}`);
  });
}

/** A child process's exit code once it exits; 1 when a signal ended it. */
function exitCode(child: ChildProcess): Promise<number> {
  return new Promise((done) => child.on('exit', (code, signal) => done(code ?? (signal ? 1 : 0))));
}

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
  try {
    await buildTap();
    const first = await tap(files, env);
    let { pass, fail, skip, code } = first;
    // A file killed by Node's module loader (not by a test) is run once more, and said so: Node
    // 20.20's require(esm) can abort the process while another load of the same module is in
    // flight under the test loaders' hooks ("FATAL ERROR: v8::Module::IsGraphAsync …": once in
    // five clean-clone runs, killing test/db/instances.test.ts after 9 passing checks).
    // Only files whose process died that way are re-run — those that failed with no failing check
    // of their own, at most as many as crashes were printed; any other failure stands. (Counting
    // every failed file dropped the re-run when another file failed a check in the same run: a CI
    // run lost instances.test.ts to the crash beside a failing mirror.test.ts.)
    const crashed = first.crashes > 0 ? first.endedEarly : [];
    let again: TapRun | undefined;
    if (crashed.length > 0 && crashed.length <= first.crashes) {
      process.stderr.write(`\n[test] ${crashed.length} test file(s) killed by the Node loader crash; running them once more: ${crashed.join(' ')}\n`);
      again = await tap(crashed, env);
      pass += again.pass;
      fail = fail - crashed.length + again.fail;
      skip += again.skip;
      code = fail > 0 || again.code !== 0 ? 1 : 0;
    }
    // Repeated at the very end, where a CI log cut to its last lines still shows them.
    if (fail > 0) {
      const failedFiles = first.failedFiles.filter((file) => !again || !crashed.includes(file) || again.failedFiles.includes(file));
      process.stdout.write(`\nfailed files: ${failedFiles.join(' ')}\n${[...first.failedChecks, ...(again?.failedChecks ?? [])].map((l) => `  ${l}`).join('\n')}\n`);
    }
    process.stdout.write(`\ntests: ${pass} passed, ${fail} failed${skip ? `, ${skip} skipped` : ''}\n`);
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
