import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { startEmbeddedDatabase } from '../../src/db/embedded.js';
import { ADMIN, ADMIN_TOKEN } from '../helpers/app.js';
import { eventually } from '../helpers/wait.js';

const quiet = { info: () => undefined, warn: () => undefined };

t.test('database down: /ready 503, API 503 fast; back: recovers by itself', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'vane-outage-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  let db = await startEmbeddedDatabase(dir, quiet);
  const port = Number(new URL(db.url).port);
  const config = loadConfig({
    MONGODB_URL: db.url, MONGODB_DB: 'outage', INIT_ADMIN_API_TOKENS: ADMIN_TOKEN, LOG_LEVEL: 'silent', DB_TIMEOUT_MS: '2000', UNLEASH_UI: 'off',
  });
  const app = await buildApp(config, { logger: false });
  t.teardown(async () => { await app.close(); await db.stop(); });

  t.equal((await app.inject({ url: '/ready' })).statusCode, 200);
  t.equal((await app.inject({ url: '/api/admin/api-tokens', headers: ADMIN })).statusCode, 200);

  await db.stop();
  const started = Date.now();
  // A write: reads are answered from the configuration state (src/db/state.ts) until the outage is known.
  const during = await app.inject({
    method: 'POST', url: '/api/admin/api-tokens', headers: { ...ADMIN, 'content-type': 'application/json' },
    payload: { tokenName: 'during-outage', type: 'client', environment: 'development' },
  });
  t.equal(during.statusCode, 503, 'an API call while the database is gone');
  t.equal(during.json().name, 'ServiceUnavailable');
  t.ok(during.headers['retry-after'], 'with Retry-After');
  t.ok(Date.now() - started < 3000, `answered within DB_TIMEOUT_MS + 1 s (${Date.now() - started} ms)`);
  t.equal((await app.inject({ url: '/ready' })).statusCode, 503);
  t.equal((await app.inject({ url: '/health' })).statusCode, 200, 'the process itself is alive');
  t.equal((await app.inject({ url: '/api/admin/api-tokens', headers: ADMIN })).statusCode, 200, 'reads answer from memory');
  const fast = Date.now();
  const write = await app.inject({
    method: 'POST', url: '/api/admin/api-tokens', headers: { ...ADMIN, 'content-type': 'application/json' },
    payload: { tokenName: 'during-outage-2', type: 'client', environment: 'development' },
  });
  t.equal(write.statusCode, 503);
  t.ok(Date.now() - fast < 200, `once the outage is known, writes fail at once (${Date.now() - fast} ms)`);

  db = await startEmbeddedDatabase(dir, quiet, { port });
  t.ok(await eventually(async () => (await app.inject({ url: '/ready' })).statusCode === 200, 20_000),
    `ready again (health: ${JSON.stringify(app.database.health.status())})`);
  t.equal((await app.inject({ url: '/api/admin/api-tokens', headers: ADMIN })).statusCode, 200, 'API works again');
});
