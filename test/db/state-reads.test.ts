/**
 * Admin reads of what the configuration state holds make no database round trip:
 * the driver's command monitoring (VANE_MONITOR_COMMANDS, config.monitorCommands) records every
 * command the app sends while the reads run.
 */
import t from 'tap';
import type { CommandStartedEvent } from 'mongodb';
import { buildApp } from '../../src/app.js';
import { JSON_ADMIN, ADMIN, dropDatabase, testConfig } from '../helpers/app.js';

const STRONG = 'Correct-Horse-9';
const JSON_ONLY = { 'content-type': 'application/json' };
/** Commands that read documents. */
const READS = new Set(['find', 'aggregate', 'count', 'distinct', 'getMore']);

t.test('tags, tag types, invite links, users, change requests and the session user are read from the state', async (t) => {
  const config = await testConfig(t, { REVISION_POLL_MS: '60000', VANE_MONITOR_COMMANDS: '1' });
  const app = await buildApp(config, { logger: false });
  t.teardown(async () => {
    await app.close();
    await dropDatabase(config);
  });
  const post = async (url: string, payload: unknown, headers: Record<string, string> = JSON_ADMIN) => {
    const res = await app.inject({ method: 'POST', url, headers, payload: payload as never });
    if (res.statusCode >= 300) throw new Error(`${url} → ${res.statusCode} ${res.body}`);
    return res;
  };
  await post('/api/admin/tag-types', { name: 'team' });
  await post('/api/admin/tags', { type: 'team', value: 'core' });
  const secret = (await post('/api/admin/invite-link/tokens', {
    name: 'link', expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
  })).json().secret as string;
  await post(`/invite/${secret}/signup`, { name: 'Ada', email: 'ada@example.com', username: 'ada', password: STRONG }, JSON_ONLY);
  await post('/api/admin/projects/default/features', { name: 'watched' });
  const cr = (await post('/api/admin/projects/default/environments/development/change-requests', {
    feature: 'watched', action: 'updateEnabled', payload: { enabled: true },
  })).json().id as number;
  const login = await post('/auth/simple/login', { username: 'ada', password: STRONG }, JSON_ONLY);
  const cookie = String(login.headers['set-cookie']).split(';')[0]!;
  await app.database.outbox.settle();

  const commands: Array<{ name: string; collection: unknown }> = [];
  const record = (event: CommandStartedEvent) => commands.push({ name: event.commandName, collection: event.command[event.commandName] });
  app.database.client.on('commandStarted', record);
  t.teardown(() => app.database.client.off('commandStarted', record));

  const urls = [
    '/api/admin/tags', '/api/admin/tag-types', '/api/admin/invite-link/tokens', `/api/admin/invite-link/tokens/${secret}`,
    '/api/admin/user-admin', '/api/admin/projects/default/change-requests', `/api/admin/projects/default/change-requests/${cr}`,
  ];
  for (let round = 0; round < 3; round++) {
    for (const url of urls) t.equal((await app.inject({ url, headers: ADMIN })).statusCode, 200, url);
    t.equal((await app.inject({ url: `/invite/${secret}/validate` })).statusCode, 200);
    t.equal((await app.inject({ url: '/api/admin/user', headers: { cookie } })).statusCode, 200, 'the session user');
  }
  const reads = commands.filter((c) => READS.has(c.name));
  // Only the collections the state holds count: timers read others meanwhile (the metrics
  // service polls other instances' metrics heads every FLUSH_MS).
  const held = (c: { collection: unknown }) => typeof c.collection === 'string' && app.database.outbox.state.isHeld(c.collection);
  t.ok(held({ collection: 'tags' }) && held({ collection: 'users' }), 'the state holds the collections read here');
  t.same(reads.filter(held), [], 'no read of a configuration collection');
  t.ok(reads.filter((c) => c.collection === 'sessions').length <= 1, 'the session read once, then from the look-up cache');

  // A tag created meanwhile is checked against the state, not the database: one insert only.
  commands.length = 0;
  await post('/api/admin/tags', { type: 'team', value: 'edge' });
  t.same(commands.filter((c) => READS.has(c.name) && c.collection === 'tag_types'), [], 'its type is checked in the state');
});
