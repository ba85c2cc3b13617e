import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { startEmbeddedDatabase } from '../../src/db/embedded.js';
export const ADMIN_TOKEN = '*:*.test-admin-token';
export const ADMIN = { authorization: ADMIN_TOKEN };
export const JSON_ADMIN = { authorization: ADMIN_TOKEN, 'content-type': 'application/json' };
const quietLog = { info: () => undefined, warn: () => undefined };
let sharedServer;
/**
 * The MongoDB URL for tests: MONGODB_URL (set by `npm test`), or, when a file is run on its own,
 * an embedded server started for this process.
 */
export async function mongoUrl(t) {
    if (process.env.MONGODB_URL)
        return process.env.MONGODB_URL;
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
export function uniqueDbName() {
    return `vane_test_${randomBytes(6).toString('hex')}`;
}
export async function testConfig(t, env = {}) {
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
        ...env,
    });
}
/** A fresh app on a throwaway database, closed and dropped when the test ends. */
export async function buildTestApp(t, env = {}, options = {}) {
    const config = await testConfig(t, env);
    const app = await buildApp(config, { logger: false, ...options });
    t.teardown(async () => {
        await app.close();
        await dropDatabase(config);
    });
    return app;
}
export async function dropDatabase(config) {
    const client = new MongoClient(config.MONGODB_URL, { serverSelectionTimeoutMS: 2000 });
    try {
        await client.connect();
        await client.db(config.MONGODB_DB).dropDatabase();
    }
    catch {
        // the server may be gone already (fault tests); nothing to clean then
    }
    finally {
        await client.close();
    }
}
//# sourceMappingURL=app.js.map