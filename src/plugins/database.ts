import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import {
  MongoClient, MongoNetworkError, MongoNotConnectedError, MongoServerSelectionError, MongoTopologyClosedError,
  type Db,
} from 'mongodb';
import type { Config } from '../config.js';
import { startEmbeddedDatabase, type EmbeddedServer } from '../db/embedded.js';
import { Outbox } from '../db/outbox.js';
import { serviceUnavailable } from '../errors.js';

/** Errors that mean "the database is not reachable right now" (answered 503, never 500). */
export function isDatabaseUnavailable(err: unknown): boolean {
  return (
    err instanceof MongoServerSelectionError ||
    err instanceof MongoNetworkError ||
    err instanceof MongoNotConnectedError ||
    err instanceof MongoTopologyClosedError ||
    (err instanceof Error && /connection (pool )?(closed|refused)|ECONNREFUSED/i.test(err.message))
  );
}

export interface Database {
  client: MongoClient;
  db: Db;
  outbox: Outbox;
  /** False as soon as the driver loses the server; requests then fail fast with 503. */
  isAvailable(): boolean;
  /** Runs `fn` whenever the database becomes reachable again after an outage. */
  onRecovered(fn: () => Promise<void> | void): void;
  ping(timeoutMs?: number): Promise<boolean>;
  embedded?: EmbeddedServer;
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
 * request was sent (ms since start), its collection and its duration, so a write's round trips
 * can be read in order.
 */
function logCommands(client: MongoClient): void {
  const started = new Map<number, { at: number; what: string }>();
  const t0 = performance.now();
  client.on('commandStarted', (e) => {
    const target: unknown = e.command[e.commandName];
    started.set(e.requestId, { at: performance.now(), what: `${e.commandName} ${typeof target === 'string' ? target : ''}` });
  });
  const done = (e: { requestId: number }, outcome: string) => {
    const s = started.get(e.requestId);
    if (!s) return;
    started.delete(e.requestId);
    process.stderr.write(`[db] ${(s.at - t0).toFixed(1)} ${s.what} ${(performance.now() - s.at).toFixed(2)} ms${outcome}\n`);
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
  const client = new MongoClient(url, {
    serverSelectionTimeoutMS: config.DB_TIMEOUT_MS,
    connectTimeoutMS: config.DB_TIMEOUT_MS,
    // A 1 s heartbeat notices a returning database within about a second.
    heartbeatFrequencyMS: 1000,
    maxPoolSize: 50,
    ignoreUndefined: true,
    writeConcern: {
      w: config.MONGODB_WRITE_CONCERN === 'majority' ? 'majority' : Number(config.MONGODB_WRITE_CONCERN),
      journal: config.MONGODB_JOURNAL === 'true',
    },
    monitorCommands: config.monitorCommands,
  });
  if (config.monitorCommands) logCommands(client);
  let available = false;
  let connectedOnce = false;
  const recoveryHooks: Array<() => Promise<void> | void> = [];
  client.on('topologyDescriptionChanged', (event) => {
    const nowAvailable = event.newDescription.hasDataBearingServers;
    if (nowAvailable === available) return;
    available = nowAvailable;
    if (nowAvailable) {
      if (!connectedOnce) {
        connectedOnce = true;
        return;
      }
      app.log.info('database reachable again');
      for (const hook of recoveryHooks) {
        Promise.resolve()
          .then(hook)
          .catch((err: unknown) => app.log.error({ err }, 'recovery hook failed'));
      }
    } else {
      app.log.warn('database unreachable');
    }
  });
  try {
    await connectWithRetry(client, app.log, 30_000);
  } catch (err) {
    await embedded?.stop();
    throw err;
  }
  const db = client.db(config.MONGODB_DB);
  const outbox = new Outbox(db);
  await outbox.createIndexes();

  const database: Database = {
    client,
    db,
    outbox,
    embedded,
    isAvailable: () => available,
    onRecovered: (fn) => recoveryHooks.push(fn),
    async ping(timeoutMs = config.DB_TIMEOUT_MS) {
      let timer: NodeJS.Timeout | undefined;
      try {
        return await Promise.race([
          db.command({ ping: 1 }).then(() => true),
          new Promise<boolean>((r) => (timer = setTimeout(() => r(false), timeoutMs))),
        ]);
      } catch {
        return false;
      } finally {
        clearTimeout(timer);
      }
    },
  };
  app.decorate('database', database);
  database.onRecovered(async () => {
    const repaired = await outbox.repair();
    if (repaired) app.log.warn({ repaired }, 'flushed events left pending by the outage');
  });

  // Fail fast while the database is known to be gone, instead of holding the request for the
  // server-selection timeout.
  app.addHook('onRequest', (request, _reply, done) => {
    if (!available && request.url.startsWith('/api/')) done(serviceUnavailable());
    else done();
  });

  app.addHook('onClose', async () => {
    outbox.stopWatching();
    await outbox.settle().catch((err: unknown) => app.log.warn({ err }, 'clearing flushed events failed; the next start repairs it'));
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
