import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { existsSync, mkdirSync, readFileSync, writeFileSync, rmSync, cpSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cacheDir, isAlive, withLock } from '../cache.js';

/**
 * The embedded database: when no MONGODB_URL is configured, Vane runs a local MongoDB-compatible
 * server itself. A `mongod` on PATH wins; otherwise FerretDB with its SQLite backend, built from the
 * Go module proxy on first use and cached (see `ensureFerretDB`).
 */

export const FERRETDB_VERSION = 'v1.24.2';
const FERRETDB_MODULE = 'github.com/FerretDB/FerretDB';

/**
 * The changes Vane makes to FerretDB's source before building it, and the name of the build that
 * carries them (the cache folder, so that a build without them is never reused). Both only change
 * which rows SQLite is asked for; what FerretDB answers is the same (docs/operations.md).
 *
 * 1. The `_id` index is used. FerretDB 1.24's SQLite backend creates each collection's unique
 *    `_id` index on the expression `_ferretdb_sjson->"_id"`, but looks documents up by
 *    `_ferretdb_sjson->'$._id'` (`IDColumn`, in `find` by `_id`, and in every update and delete).
 *    SQLite uses an expression index only for the same expression, so every one of those
 *    statements scanned the whole table, evaluating the JSON of every document: the cost of
 *    reading, replacing or deleting one document by `_id` grew with the collection. `->'_id'` is
 *    the same JSON path (SQLite reads a bare label as `$.label`) and is the index's expression, so
 *    the planner takes the index (`EXPLAIN QUERY PLAN`: `SCAN` before, `SEARCH … USING INDEX
 *    …__id_` after). Existing databases already have that index; nothing is migrated. Measured
 *    with the mongodb driver, 40 operations each on 2 000 documents of 4 KB (the machine busy with
 *    other work, so the figures are rough): replaceOne by `_id` 86.5 → 5.8 ms, deleteOne 74.6 →
 *    1.3 ms, findOne of a document near the end of the table 25.3 → 5.1 ms, of a missing `_id`
 *    14.8 → 1.8 ms; on 100 documents both builds take 1–5 ms.
 * 2. An `_id` equality is pushed down beside other fields. FerretDB asks SQLite for one `_id`
 *    only when `_id` is the filter's one field (`if params.Filter.Len() == 1`), and reads every
 *    document for `{_id, _rev}`: 44 ms for one conditional replace at 100 flags. Its handlers
 *    (find, update, delete, findAndModify) filter every row a query returns by the whole filter
 *    again, so narrowing the query to the rows of that `_id` changes no answer: the patched
 *    check takes the filter's top-level `_id` whatever else it holds (`vaneFilterID`, a file
 *    added to the package). Vane's conditional writes then take one command instead of an `_id`
 *    read and a write (Outbox.conditionally; the build is recognised by `explain`, which reports
 *    `filterPushdown` for such a filter only when patched).
 *
 * test/db/embedded.test.ts checks both plans.
 */
export const FERRETDB_PATCH = {
  edits: [
    {
      file: 'internal/backends/sqlite/metadata/metadata.go',
      from: 'IDColumn = DefaultColumn + "->\'$._id\'"',
      to: 'IDColumn = DefaultColumn + "->\'_id\'"',
      count: 1,
    },
    {
      // Query and Explain both.
      file: 'internal/backends/sqlite/collection.go',
      from: 'if params.Filter.Len() == 1 {\n\t\tv, _ := params.Filter.Get("_id")\n',
      to: '{\n\t\tv := vaneFilterID(params.Filter)\n',
      count: 2,
    },
  ],
  added: {
    file: 'internal/backends/sqlite/vane_filter_id.go',
    source: `// Added by Vane (src/db/embedded.ts, FERRETDB_PATCH).

package sqlite

import "github.com/FerretDB/FerretDB/internal/types"

// vaneFilterID returns the value the filter's top-level _id field must equal (nil when the
// filter has no _id, or more than one). Callers push it down only when it is a string or an
// ObjectID; the handler filters the rows by the whole filter afterwards.
func vaneFilterID(filter *types.Document) any {
\tvar id any
\tvalues := filter.Values()
\tfor i, key := range filter.Keys() {
\t\tif key != "_id" {
\t\t\tcontinue
\t\t}
\t\tif id != nil {
\t\t\treturn nil
\t\t}
\t\tid = values[i]
\t}
\treturn id
}
`,
  },
  build: 'idindex2',
} as const;

export interface EmbeddedServer {
  url: string;
  kind: 'mongod' | 'ferretdb';
  pid: number;
  dataDir: string;
  stop(): Promise<void>;
  /** Kills the server process (wedged or stopped) and starts it again on the same port and files. */
  restart(): Promise<void>;
}

export interface Logger {
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
}

export class EmbeddedDatabaseError extends Error {
  override name = 'EmbeddedDatabaseError';
}

const HOW_TO_PROVIDE =
  'Provide a MongoDB-compatible server with MONGODB_URL (e.g. MONGODB_URL=mongodb://127.0.0.1:27017), ' +
  'or run `docker compose up` to start Vane with MongoDB 7, or install Go (to build FerretDB) or mongod.';

function which(cmd: string): string | undefined {
  const result = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  const path = result.stdout.trim();
  return result.status === 0 && path ? path : undefined;
}

/** A TCP port free on 127.0.0.1 right now (the embedded database's, the soak's Vane). */
export async function freePort(): Promise<number> {
  return await new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolvePort(port));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new EmbeddedDatabaseError(`database process exited with code ${child.exitCode}`);
    const ok = await new Promise<boolean>((done) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => { socket.destroy(); done(true); });
      socket.once('error', () => done(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new EmbeddedDatabaseError(`database did not listen on 127.0.0.1:${port} within ${timeoutMs} ms`);
}

/**
 * Returns the path of a FerretDB binary, building it once if needed.
 *
 * Why not plain `go install …@v1.24.2`: the module proxy here refuses the version list that
 * `go install` reads for its deprecation check (403), and a binary built from the module cache
 * panics at start because the release's build/version/version.txt is not in the module zip. So:
 * `go mod download` the exact version, copy it to a writable folder, write version.txt, `go build`.
 */
export async function ensureFerretDB(log: Logger): Promise<string | undefined> {
  const binDir = join(cacheDir(), `ferretdb-${FERRETDB_VERSION}-${FERRETDB_PATCH.build}`);
  const bin = join(binDir, 'ferretdb');
  if (existsSync(bin)) return bin;
  const go = which('go') ?? (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
  if (!go) return undefined;
  mkdirSync(binDir, { recursive: true });
  return await withLock(join(cacheDir(), 'ferretdb-build.lock'), () => {
    if (existsSync(bin)) return bin;
    log.info({ version: FERRETDB_VERSION }, 'building FerretDB from the Go module proxy (first run only, about a minute)');
    const env = { ...process.env, GOFLAGS: '-buildvcs=false', CGO_ENABLED: '0' };
    const download = spawnSync(go, ['mod', 'download', '-json', `${FERRETDB_MODULE}@${FERRETDB_VERSION}`], {
      encoding: 'utf8', env, cwd: tmpdir(),
    });
    if (download.status !== 0) {
      // The checksum database may be out of reach through the proxy; the module's go.sum still pins deps.
      const retry = spawnSync(go, ['mod', 'download', '-json', `${FERRETDB_MODULE}@${FERRETDB_VERSION}`], {
        encoding: 'utf8', env: { ...env, GOSUMDB: 'off' }, cwd: tmpdir(),
      });
      if (retry.status !== 0) throw new EmbeddedDatabaseError(`go mod download failed: ${download.stderr || download.stdout}`);
      download.stdout = retry.stdout;
    }
    const moduleDir = (JSON.parse(download.stdout) as { Dir: string }).Dir;
    const srcDir = join(binDir, 'src');
    rmSync(srcDir, { recursive: true, force: true });
    cpSync(moduleDir, srcDir, { recursive: true });
    spawnSync('chmod', ['-R', 'u+w', srcDir]);
    writeFileSync(join(srcDir, 'build', 'version', 'version.txt'), `${FERRETDB_VERSION}\n`);
    patchSource(srcDir);
    const build = spawnSync(go, ['build', '-o', bin + '.tmp', './cmd/ferretdb'], { encoding: 'utf8', env, cwd: srcDir });
    if (build.status !== 0) {
      // Newer Go toolchains reject some linkname uses in older dependencies.
      const retry = spawnSync(go, ['build', '-ldflags=-checklinkname=0', '-o', bin + '.tmp', './cmd/ferretdb'], {
        encoding: 'utf8', env, cwd: srcDir,
      });
      if (retry.status !== 0) throw new EmbeddedDatabaseError(`go build of FerretDB failed: ${build.stderr}\n${retry.stderr}`);
    }
    chmodSync(bin + '.tmp', 0o755);
    cpSync(bin + '.tmp', bin);
    rmSync(bin + '.tmp', { force: true });
    rmSync(srcDir, { recursive: true, force: true });
    log.info({ bin }, 'FerretDB built');
    return bin;
  });
}

/** Applies FERRETDB_PATCH to a writable copy of FerretDB's source; refuses a source that no longer has the lines it changes. */
function patchSource(srcDir: string): void {
  for (const edit of FERRETDB_PATCH.edits) {
    const file = join(srcDir, edit.file);
    const pieces = readFileSync(file, 'utf8').split(edit.from);
    if (pieces.length - 1 !== edit.count) {
      throw new EmbeddedDatabaseError(`FerretDB's ${edit.file} has ${pieces.length - 1} of the ${edit.count} places Vane patches: ${edit.from}`);
    }
    writeFileSync(file, pieces.join(edit.to));
  }
  writeFileSync(join(srcDir, FERRETDB_PATCH.added.file), FERRETDB_PATCH.added.source);
}

interface PidRecord { dbPid: number; ownerPid: number }

/** A database left running by a Vane process that died is stopped; one owned by a live Vane is refused. */
function reclaimDataDir(pidFile: string): void {
  if (!existsSync(pidFile)) return;
  let record: PidRecord | undefined;
  try { record = JSON.parse(readFileSync(pidFile, 'utf8')) as PidRecord; } catch { record = undefined; }
  if (record && isAlive(record.dbPid)) {
    if (isAlive(record.ownerPid) && record.ownerPid !== process.pid) {
      throw new EmbeddedDatabaseError(
        `the data directory is in use by another Vane process (pid ${record.ownerPid}); set a different DATA_DIR`,
      );
    }
    try { process.kill(record.dbPid, 'SIGKILL'); } catch { /* already gone */ }
  }
  rmSync(pidFile, { force: true });
}

export async function startEmbeddedDatabase(
  dataDirInput: string,
  log: Logger,
  options: { port?: number } = {},
): Promise<EmbeddedServer> {
  const dataDir = resolve(dataDirInput);
  mkdirSync(dataDir, { recursive: true });
  const pidFile = join(dataDir, 'embedded-db.pid');
  reclaimDataDir(pidFile);
  const port = options.port ?? (await freePort());
  const mongod = which('mongod');
  const ferret = mongod ? undefined : await ensureFerretDB(log);
  if (!mongod && !ferret) {
    throw new EmbeddedDatabaseError(`MONGODB_URL is not set and no embedded database can be started (no mongod on PATH, no Go to build FerretDB). ${HOW_TO_PROVIDE}`);
  }
  const kind: EmbeddedServer['kind'] = mongod ? 'mongod' : 'ferretdb';
  const dbDir = join(dataDir, kind);
  mkdirSync(dbDir, { recursive: true });

  /** Starts the server process on `port` and waits until it listens. */
  const launch = async (): Promise<{ child: ChildProcess; stderr: () => string }> => {
    const child = mongod
      ? spawn(mongod, ['--dbpath', dbDir, '--bind_ip', '127.0.0.1', '--port', String(port), '--quiet'], { stdio: ['ignore', 'ignore', 'pipe'] })
      : spawn(ferret!, [
          '--handler=sqlite', `--sqlite-url=file:${dbDir}/`, `--state-dir=${dbDir}`,
        `--listen-addr=127.0.0.1:${port}`, '--debug-addr=-', '--telemetry=disable', '--log-level=ERROR',
        ], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-4000); });
    // Whoever started the server stops it (`stop`, or the test helper's exit hook); it does not keep
    // Node running by itself: a test file run on its own hung after its last test until tap's timeout.
    child.unref();
    (child.stderr as (NodeJS.ReadableStream & { unref?: () => void }) | null)?.unref?.();
    writeFileSync(pidFile, JSON.stringify({ dbPid: child.pid ?? 0, ownerPid: process.pid } satisfies PidRecord));
    try {
      await waitForPort(port, child, 30_000);
    } catch (err) {
      child.kill('SIGKILL');
      rmSync(pidFile, { force: true });
      throw new EmbeddedDatabaseError(`${(err as Error).message}\n${stderr}\n${HOW_TO_PROVIDE}`);
    }
    return { child, stderr: () => stderr };
  };

  let { child } = await launch();
  const url = `mongodb://127.0.0.1:${port}/`;
  log.info({ kind, url, pid: child.pid, dataDir: dbDir }, `embedded database started (${kind})`);

  const exited = (c: ChildProcess) => c.exitCode !== null || c.signalCode !== null;
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= new Promise<void>((done) => {
      if (exited(child)) { rmSync(pidFile, { force: true }); done(); return; }
      const killTimer = setTimeout(() => child.kill('SIGKILL'), 5000);
      child.once('exit', () => { clearTimeout(killTimer); rmSync(pidFile, { force: true }); done(); });
      child.kill('SIGTERM');
    });
    return stopping;
  };
  const server: EmbeddedServer = {
    url, kind, pid: child.pid ?? 0, dataDir: dbDir, stop,
    async restart() {
      if (stopping) return;
      const old = child;
      if (!exited(old)) {
        // SIGKILL, not SIGTERM: the process is wedged (or stopped), and SQLite's journal makes a
        // killed FerretDB safe to start again on the same files.
        await new Promise<void>((done) => {
          old.once('exit', () => done());
          old.kill('SIGKILL');
        });
      }
      ({ child } = await launch());
      server.pid = child.pid ?? 0;
      log.warn({ kind, pid: child.pid, url }, `embedded database restarted (${kind})`);
    },
  };
  return server;
}
