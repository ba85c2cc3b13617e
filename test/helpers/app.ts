import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import type { FastifyInstance } from 'fastify';
import { buildApp, type BuildOptions } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { startEmbeddedDatabase, type EmbeddedServer } from '../../src/db/embedded.js';
import { CommitLog, foldCommit, type HeldByCollection } from '../../src/db/outbox/commit-log.js';
import type { StoredDocument } from '../../src/db/outbox/documents.js';

export const ADMIN_TOKEN = '*:*.test-admin-token';
export const ADMIN = { authorization: ADMIN_TOKEN };
export const JSON_ADMIN = { authorization: ADMIN_TOKEN, 'content-type': 'application/json' };

interface Teardown {
  teardown(fn: () => unknown): void;
}

const quietLog = { info: () => undefined, warn: () => undefined };
let sharedServer: Promise<EmbeddedServer> | undefined;

/**
 * The MongoDB URL for tests: MONGODB_URL (set by `npm test`), or, when a file is run on its own,
 * an embedded server started for this process.
 */
export async function mongoUrl(t: Teardown): Promise<string> {
  if (process.env.MONGODB_URL) return process.env.MONGODB_URL;
  if (!sharedServer) {
    const dir = mkdtempSync(join(tmpdir(), 'vane-test-db-'));
    sharedServer = startEmbeddedDatabase(dir, quietLog);
    const server = await sharedServer;
    process.once('exit', () => {
      process.kill(server.pid, 'SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    });
  }
  void t;
  return (await sharedServer).url;
}

export function uniqueDbName(): string {
  return `vane_test_${randomBytes(6).toString('hex')}`;
}

export async function testConfig(t: Teardown, env: Record<string, string> = {}): Promise<Config> {
  return loadConfig({
    MONGODB_URL: await mongoUrl(t),
    MONGODB_DB: uniqueDbName(),
    INIT_ADMIN_API_TOKENS: ADMIN_TOKEN,
    LOG_LEVEL: 'silent',
    // Generous: these tests check behaviour on a machine shared with the rest of the suite; the
    // deadline's own tests (test/db/guard, frozen, availability) set theirs.
    DB_TIMEOUT_MS: '10000',
    // The profiling aid works for tests too, as when the database plugin read it from the environment.
    VANE_MONITOR_COMMANDS: process.env.VANE_MONITOR_COMMANDS,
    // The official UI is fetched and served only where a test asks for it (test/features/admin-ui).
    UNLEASH_UI: 'off',
    // Every test calls from one address: 20 user-admin POSTs a minute (Unleash's limit) would refuse
    // the permission test's; test/features/users/limits.test.ts sets its own.
    USER_ADMIN_RATE_LIMIT: '10000',
    // A timed job's events would land in the middle of tests that count events (announcer.test.ts sets its own).
    APPLICATION_ANNOUNCE_MS: '0',
    ...env,
  });
}

/** A fresh app on a throwaway database, closed and dropped when the test ends. */
export async function buildTestApp(
  t: Teardown,
  env: Record<string, string> = {},
  options: BuildOptions = {},
): Promise<FastifyInstance> {
  const config = await testConfig(t, env);
  const app = await buildApp(config, { logger: false, ...options });
  t.teardown(async () => {
    await app.close();
    await dropDatabase(config);
  });
  return app;
}

export async function dropDatabase(config: Config): Promise<void> {
  const client = new MongoClient(config.MONGODB_URL!, { serverSelectionTimeoutMS: 2000 });
  try {
    await client.connect();
    await client.db(config.MONGODB_DB).dropDatabase();
  } catch {
    // the server may be gone already (fault tests); nothing to clean then
  } finally {
    await client.close();
  }
}

/** An admin request; JSON when it has a body. */
export async function send(app: FastifyInstance, method: string, url: string, payload?: unknown) {
  return await app.inject({
    method: method as never, url, headers: payload === undefined ? ADMIN : JSON_ADMIN,
    ...(payload === undefined ? {} : { payload: payload as never }),
  });
}

/** The events after `id`, in id order, once this instance's appends are done. */
export async function eventsAfter(app: FastifyInstance, id: number) {
  await app.database.outbox.flushed(); // events are appended after the response
  return await app.database.db.collection('events').find({ id: { $gt: id } }).sort({ id: 1 }).toArray();
}

export async function lastEventId(app: FastifyInstance): Promise<number> {
  await app.database.outbox.flushed(); // events are appended after the response
  const last = await app.database.db.collection('events').find({}).sort({ id: -1 }).limit(1).next();
  return (last?.id as number | undefined) ?? 0;
}

/**
 * Every document of `coll` as the database holds it: the commit log folded (what a fresh start
 * would load), read from the database, not from the app's memory.
 */
export async function committed(app: FastifyInstance, coll: string): Promise<Map<unknown, StoredDocument>> {
  const docs: HeldByCollection = new Map();
  await new CommitLog(app.database.db).readAll((commit) => foldCommit(docs, commit));
  return docs.get(coll) ?? new Map<unknown, StoredDocument>();
}
