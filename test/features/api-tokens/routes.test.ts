import t from 'tap';
import { buildTestApp, ADMIN, JSON_ADMIN } from '../../helpers/app.js';

t.test('authentication and API tokens', async (t) => {
  const app = await buildTestApp(t);

  await t.test('no Authorization header → 401 AuthenticationRequired with Unleash extras', async (t) => {
    const res = await app.inject({ method: 'GET', url: '/api/admin/api-tokens' });
    t.equal(res.statusCode, 401);
    const body = res.json();
    t.equal(body.name, 'AuthenticationRequired');
    t.equal(body.path, '/auth/simple/login');
    t.equal(body.type, 'password');
    t.equal(body.defaultHidden, false);
  });

  await t.test('unknown token → 401 UnauthorizedError', async (t) => {
    const res = await app.inject({ method: 'GET', url: '/api/admin/api-tokens', headers: { authorization: '*:*.wrong' } });
    t.equal(res.statusCode, 401);
    t.equal(res.json().name, 'UnauthorizedError');
    t.equal(res.json().message, 'You must log in to use Unleash.');
  });

  await t.test('admin token works, with or without "Bearer "', async (t) => {
    t.equal((await app.inject({ method: 'GET', url: '/api/admin/api-tokens', headers: ADMIN })).statusCode, 200);
    const bearer = await app.inject({ method: 'GET', url: '/api/admin/api-tokens', headers: { authorization: `bearer  ${ADMIN.authorization}` } });
    t.equal(bearer.statusCode, 200);
  });

  let clientSecret = '';
  await t.test('create a client token: 201, Location, secret shown once', async (t) => {
    const res = await app.inject({
      method: 'POST', url: '/api/admin/api-tokens', headers: JSON_ADMIN,
      payload: { type: 'Client', tokenName: 'peer-client', environment: 'development', projects: ['*'] },
    });
    t.equal(res.statusCode, 201);
    t.equal(res.headers.location, 'api-tokens');
    const body = res.json();
    t.same(Object.keys(body), ['tokenName', 'environment', 'projects', 'secret', 'type', 'alias', 'project', 'createdAt', 'secure']);
    t.match(body.secret, /^\*:development\.[0-9a-f]{56}$/);
    t.equal(body.type, 'client');
    t.equal(body.project, '*');
    clientSecret = body.secret;
    const list = await app.inject({ method: 'GET', url: '/api/admin/api-tokens', headers: ADMIN });
    t.notMatch(list.body, clientSecret, 'the listing never shows the secret again');
    await app.database.outbox.settle();
    for (const coll of ['commits', 'events', 'event_tail']) {
      const stored = await app.database.db.collection(coll).find({}).toArray();
      t.notMatch(JSON.stringify(stored), clientSecret.split('.')[1]!, `only the hash is stored (${coll})`);
    }
  });

  await t.test('client token on an admin route → 403 NoAccessError', async (t) => {
    const res = await app.inject({ method: 'GET', url: '/api/admin/api-tokens', headers: { authorization: clientSecret } });
    t.equal(res.statusCode, 403);
    t.equal(res.json().name, 'NoAccessError');
    t.equal(res.json().message, 'invalid token: expected a different token type for this endpoint');
  });

  await t.test('token validation errors', async (t) => {
    const allEnvs = await app.inject({
      method: 'POST', url: '/api/admin/api-tokens', headers: JSON_ADMIN, payload: { type: 'client', tokenName: 'x', environment: '*' },
    });
    t.equal(allEnvs.statusCode, 400);
    t.same(allEnvs.json().details, [{ message: 'Client token cannot be scoped to all environments' }]);
    const unknownEnv = await app.inject({
      method: 'POST', url: '/api/admin/api-tokens', headers: JSON_ADMIN, payload: { type: 'client', tokenName: 'x', environment: 'nope' },
    });
    t.equal(unknownEnv.statusCode, 400);
    t.same(unknownEnv.json().details, [{ message: 'Environment=nope does not exist' }]);
    const admin = await app.inject({
      method: 'POST', url: '/api/admin/api-tokens', headers: JSON_ADMIN, payload: { type: 'admin', tokenName: 'x' },
    });
    t.equal(admin.statusCode, 400);
  });

  await t.test('revoke → the token no longer authenticates (cache invalidated), with events', async (t) => {
    const del = await app.inject({ method: 'DELETE', url: `/api/admin/api-tokens/${encodeURIComponent(clientSecret)}`, headers: ADMIN });
    t.equal(del.statusCode, 200);
    const after = await app.inject({ method: 'GET', url: '/api/admin/api-tokens', headers: { authorization: clientSecret } });
    t.equal(after.statusCode, 401);
    const unknown = await app.inject({ method: 'DELETE', url: '/api/admin/api-tokens/nothing', headers: ADMIN });
    t.equal(unknown.statusCode, 200);
    await app.database.outbox.flushed(); // events are appended after the response
    const events = await app.database.db.collection('events').find({}).sort({ id: 1 }).toArray();
    t.same(events.map((e) => e.type).slice(-2), ['api-token-created', 'api-token-deleted'].slice(-2));
    const deleted = events.find((e) => e.type === 'api-token-deleted')!;
    t.equal(deleted.preData.tokenName, 'peer-client');
    t.equal(deleted.createdBy, 'admin');
    t.equal(deleted.createdByUserId, -42);
  });
});

t.test('fresh instance: initial events 1–5 (docs/rules.md §4.5, §7)', async (t) => {
  const app = await buildTestApp(t);
  await app.database.outbox.flushed(); // events are appended after the response
  const events = await app.database.db.collection('events').find({}).sort({ id: 1 }).toArray();
  t.same(events.map((e) => [e.id, e.type, e.createdBy, e.createdByUserId]), [
    [1, 'strategy-created', 'migration', null],
    [2, 'strategy-created', 'migration', null],
    [3, 'strategy-created', 'migration', null],
    [4, 'strategy-created', 'migration', null],
    [5, 'api-token-created', 'unleash_system_user', -1337],
  ]);
  t.same(events[0]!.data, { name: 'default', description: 'Default on or off Strategy.' });
  t.same(events.slice(0, 4).map((e) => e.data.name), ['default', 'applicationHostname', 'remoteAddress', 'flexibleRollout']);
  t.equal(events[4]!.project, '*');
  t.equal(events[4]!.environment, '*');
  t.equal(events[4]!.data.tokenName, 'admin');
});

t.test('a backend token reads back as client, as Unleash 8.2 stores it (measured: its update event)', async (t) => {
  const app = await buildTestApp(t);
  const created = await app.inject({
    method: 'POST', url: '/api/admin/api-tokens', headers: JSON_ADMIN,
    payload: { tokenName: 'svc', type: 'Backend', environment: 'development', projects: ['default'] },
  });
  t.equal(created.statusCode, 201);
  t.equal(created.json().type, 'backend', 'the creation answers the type asked');
  const secret = created.json().secret as string;
  const listed = (await app.inject({ url: '/api/admin/api-tokens', headers: ADMIN })).json().tokens.find((token: { tokenName: string }) => token.tokenName === 'svc');
  t.equal(listed.type, 'client');
  t.equal((await app.inject({ url: '/api/admin/api-tokens/svc', headers: ADMIN })).json().tokens[0].type, 'client');
  const updated = await app.inject({ method: 'PUT', url: `/api/admin/api-tokens/${secret}`, headers: JSON_ADMIN, payload: { expiresAt: '2031-01-01T00:00:00.000Z' } });
  t.equal(updated.statusCode, 200);
  const [event] = (await app.inject({ url: '/api/admin/search/events?type=IS:api-token-updated', headers: ADMIN })).json().events;
  t.same([event.data.type, event.preData.type], ['client', 'client']);
  const client = await app.inject({ url: '/api/client/features', headers: { authorization: secret } });
  t.equal(client.statusCode, 200, 'it still reads the client API');
});

t.test('a new token\'s fields in the order its body named them, then the rest (measured on both routes)', async (t) => {
  const app = await buildTestApp(t);
  const keysOf = async (url: string, payload: Record<string, unknown>) => {
    const res = await app.inject({ method: 'POST', url, headers: JSON_ADMIN, payload });
    t.equal(res.statusCode, 201, res.body);
    return Object.keys(res.json<object>());
  };
  const after = ['secret', 'type', 'alias', 'project', 'createdAt', 'secure'];
  t.same(await keysOf('/api/admin/projects/default/api-tokens', { type: 'client', tokenName: 'k1' }), ['tokenName', 'environment', 'projects', ...after]);
  t.same(await keysOf('/api/admin/projects/default/api-tokens', { expiresAt: '2031-01-01T00:00:00.000Z', type: 'client', tokenName: 'k2', environment: 'development' }),
    ['expiresAt', 'tokenName', 'environment', 'projects', ...after]);
  t.same(await keysOf('/api/admin/api-tokens', { type: 'client', tokenName: 'k3', project: 'default', environment: 'development' }), ['tokenName', 'environment', 'projects', ...after]);
  t.same(await keysOf('/api/admin/api-tokens', { environment: 'development', projects: ['default'], tokenName: 'k4', type: 'client' }), ['environment', 'projects', 'tokenName', ...after]);
  const events = (await app.inject({ url: '/api/admin/search/events?type=IS:api-token-created', headers: ADMIN })).json().events as Array<{ data: object }>;
  const k2 = events.find((e) => (e.data as { tokenName: string }).tokenName === 'k2')!;
  t.same(Object.keys(k2.data), ['expiresAt', 'tokenName', 'environment', 'projects', 'type', 'alias', 'project', 'createdAt', 'secure'], 'the event data likewise');
});
