import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import {
  MongoClient, MongoClientClosedError, MongoNetworkError, MongoNotConnectedError, MongoServerSelectionError, MongoTopologyClosedError,
  type Db,
} from 'mongodb';
import type { Config } from '../config.js';
import { startEmbeddedDatabase, type EmbeddedServer } from '../db/embedded.js';
import { DEFAULT_MAX_STATEMENTS, DatabaseGuard, DatabaseTimeoutError, DatabaseUnavailableError, type GuardLimits } from '../db/guard.js';
import { DatabaseHealth } from '../db/health.js';
import { Outbox } from '../db/outbox/index.js';

/** Errors that mean "the database is not reachable right now" (answered 503, never 500). */
export function isDatabaseUnavailable(err: unknown): boolean {
  return (
    err instanceof DatabaseTimeoutError ||
    err instanceof DatabaseUnavailableError ||
    err instanceof MongoServerSelectionError ||
    err instanceof MongoNetworkError ||
    err instanceof MongoNotConnectedError ||
    err instanceof MongoTopologyClosedError ||
    err instanceof MongoClientClosedError ||
    (err instanceof Error && /connection (pool )?(closed|refused)|ECONNREFUSED/i.test(err.message))
  );
}

export interface Database {
  client: MongoClient;
  db: Db;
  outbox: Outbox;
  /**
   * Whether the database answered the last health probe (a small write and a read, each within
   * DB_TIMEOUT_MS, every DB_HEALTH_INTERVAL_MS: src/db/health.ts) and the driver has the server.
   * While it does not, database operations are refused at once (503); reads served from memory go on.
   */
  isAvailable(): boolean;
  /** Runs `fn` whenever the database answers again after an outage. */
  onRecovered(fn: () => Promise<void> | void): void;
  guard: DatabaseGuard;
  health: DatabaseHealth;
  embedded?: EmbeddedServer;
}

/** The concurrency the server can take (DB_MAX_CONCURRENT_*; src/db/guard.ts, docs/operations.md). */
export function guardLimits(config: Config, ferretdb: boolean): GuardLimits {
  return {
    maxWrites: config.DB_MAX_CONCURRENT_WRITES || (ferretdb ? 1 : 16),
    maxReads: config.DB_MAX_CONCURRENT_READS || (ferretdb ? 4 : 32),
    // FerretDB holds one SQLite connection per statement of an update command until it ends (of 100).
    maxStatements: ferretdb ? DEFAULT_MAX_STATEMENTS : 1000,
  };
}

async function connectWithRetry(client: MongoClient, log: FastifyInstance['log'], deadlineMs: number): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (let attempt = 1; ; attempt++) {
    try {
      await client.connect();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      log.warn({ err, attempt }, 'database not reachable yet; retrying');
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/**
 * Profiling aid (VANE_MONITOR_COMMANDS=1): one stderr line per driver command, with the time the
 * request was sent (ms since the epoch, so a client's own timings can be laid beside it), its
 * collection and its duration, so a write's round trips can be read in order.
 */
function logCommands(client: MongoClient): void {
  const started = new Map<number, { at: number; what: string }>();
  client.on('commandStarted', (e) => {
    const target: unknown = e.command[e.commandName];
    started.set(e.requestId, { at: performance.now(), what: `${e.commandName} ${typeof target === 'string' ? target : ''}` });
  });
  const done = (e: { requestId: number }, outcome: string) => {
    const s = started.get(e.requestId);
    if (!s) return;
    started.delete(e.requestId);
    process.stderr.write(`[db] ${(performance.timeOrigin + s.at).toFixed(1)} ${s.what} ${(performance.now() - s.at).toFixed(2)} ms${outcome}\n`);
  };
  client.on('commandSucceeded', (e) => done(e, ''));
  client.on('commandFailed', (e) => done(e, ' FAILED'));
}

async function databasePlugin(app: FastifyInstance, opts: { config: Config }): Promise<void> {
  const { config } = opts;
  let embedded: EmbeddedServer | undefined;
  let url = config.MONGODB_URL;
  if (!url) {
    embedded = await startEmbeddedDatabase(config.DATA_DIR, app.log);
    url = embedded.url;
  }
  // Before the server's kind is known, the limits of the strictest server (FerretDB); the pool is
  // sized for the larger limits of MongoDB.
  const guard = new DatabaseGuard(config.DB_TIMEOUT_MS, guardLimits(config, true), app.log);
  const largest = guardLimits(config, false);
  const client = new MongoClient(url, {
    serverSelectionTimeoutMS: config.DB_TIMEOUT_MS,
    connectTimeoutMS: config.DB_TIMEOUT_MS,
    // The driver's own backstop behind the guard's deadline: a connection silent for this long is
    // closed, which fails the operation on it and frees its slot (src/db/guard.ts).
    socketTimeoutMS: config.DB_TIMEOUT_MS * 3,
    // A 1 s heartbeat notices a returning database within about a second.
    heartbeatFrequencyMS: 1000,
    // The guard bounds what is in flight; the pool only needs room for it and the health probe.
    maxPoolSize: largest.maxWrites + largest.maxReads + 2,
    ignoreUndefined: true,
    writeConcern: {
      w: config.MONGODB_WRITE_CONCERN === 'majority' ? 'majority' : Number(config.MONGODB_WRITE_CONCERN),
      journal: config.MONGODB_JOURNAL === 'true',
    },
    monitorCommands: config.monitorCommands,
  });
  if (config.monitorCommands) logCommands(client);
  let health: DatabaseHealth | undefined;
  let driverAvailable = false;
  client.on('topologyDescriptionChanged', (event) => {
    driverAvailable = event.newDescription.hasDataBearingServers;
    health?.driverReachable(driverAvailable);
  });
  try {
    await connectWithRetry(client, app.log, 30_000);
  } catch (err) {
    await embedded?.stop();
    throw err;
  }
  const unguarded = client.db(config.MONGODB_DB);
  const db = guard.wrapDb(unguarded);
  const outbox = new Outbox(db, app.log);
  await outbox.createIndexes();
  guard.configure(guardLimits(config, outbox.isFerretDB));
  app.log.info({ ...guard.limits, server: outbox.isFerretDB ? 'ferretdb' : 'mongodb' }, 'database concurrency limits');

  // The probe runs its operations through the guard itself (as probes, while the gate is closed).
  health = new DatabaseHealth(unguarded, guard, outbox.instance, {
    intervalMs: config.DB_HEALTH_INTERVAL_MS,
    restartAfterMs: config.DB_RESTART_AFTER_MS,
    ...(embedded ? { restart: () => embedded.restart() } : {}),
  }, app.log);
  health.driverReachable(driverAvailable);
  guard.onTimeout(() => health?.probeSoon());
  // A connection refused or reset: the driver does not always mark the server lost before the
  // operation fails (a write answered 503 in 130 ms with /ready still 200), and a probe
  // of a server it has lost waits for server selection (DB_TIMEOUT_MS); the gate closes now and
  // a probe reopens it at once if the server answers.
  guard.onFailure((err) => {
    if (isDatabaseUnavailable(err) && !(err instanceof DatabaseUnavailableError)) health?.unreachable(err instanceof Error ? err.message : String(err));
  });
  const database: Database = {
    client,
    db,
    outbox,
    embedded,
    guard,
    health,
    isAvailable: () => health.isHealthy,
    onRecovered: (fn) => health.onRecovered(fn),
  };
  app.decorate('database', database);
  // Commits of unknown outcome are read like any other, and failed appends of events are retried.
  database.onRecovered(async () => {
    await outbox.reconcile();
  });
  health.start();

  app.addHook('onClose', async () => {
    health.stop();
    await outbox.close().catch((err: unknown) => app.log.warn({ err }, 'appending committed events or the last snapshot failed; the next start reads more of the log'));
    await client.close(true);
    await embedded?.stop();
  });
}

declare module 'fastify' {
  interface FastifyInstance {
    database: Database;
  }
}

export default fp(databasePlugin, { name: 'database' });
