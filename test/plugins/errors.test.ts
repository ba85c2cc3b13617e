import t from 'tap';
import { EVENT_TAIL } from '../../src/db/event-log/append.js';
import { SNAPSHOT_MARKS, SNAPSHOT_PARTS } from '../../src/db/outbox/snapshots.js';
import { buildTestApp, ADMIN, JSON_ADMIN } from '../helpers/app.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

t.test('error catalogue: every error body is {id, name, message, details}', async (t) => {
  const app = await buildTestApp(t);

  await t.test('unknown route under /api → 404 NotFoundError (after authentication)', async (t) => {
    const res = await app.inject({ method: 'GET', url: '/api/admin/no-such-thing', headers: ADMIN });
    t.equal(res.statusCode, 404);
    const body = res.json();
    t.match(body.id, UUID);
    t.same(Object.keys(body).slice(0, 3), ['id', 'name', 'message']);
    t.equal(body.name, 'NotFoundError');
    t.equal(body.message, 'The path you were looking for (/api/admin/no-such-thing) is not available.');
    const anonymous = await app.inject({ method: 'GET', url: '/api/admin/no-such-thing' });
    t.equal(anonymous.statusCode, 401, 'authentication comes before route matching');
  });

  await t.test('unknown route outside /api → 404 NotFoundError without credentials', async (t) => {
    const res = await app.inject({ method: 'GET', url: '/nowhere' });
    t.equal(res.statusCode, 404);
    t.equal(res.json().name, 'NotFoundError');
  });

  await t.test('malformed JSON → 400 ValidationError with the parser message, before authentication', async (t) => {
    const res = await app.inject({
      method: 'POST', url: '/api/admin/api-tokens', headers: { 'content-type': 'application/json' }, payload: '{"tokenName": "x",',
    });
    t.equal(res.statusCode, 400);
    const body = res.json();
    t.equal(body.name, 'ValidationError');
    t.match(body.id, UUID);
    t.match(body.message, /JSON/);
  });

  await t.test('wrong content type → 415 ContentTypeError', async (t) => {
    const res = await app.inject({
      method: 'POST', url: '/api/admin/api-tokens', headers: { ...ADMIN, 'content-type': 'text/plain' }, payload: 'hello',
    });
    t.equal(res.statusCode, 415);
    t.equal(res.json().name, 'ContentTypeError');
    t.equal(
      res.json().message,
      'We do not accept the content-type you provided (text/plain). Try using one of the content-types we do accept instead (application/json) and make sure the body is in the corresponding format.',
    );
  });

  await t.test('schema violations → 400 ValidationError naming the property', async (t) => {
    const missing = await app.inject({ method: 'POST', url: '/api/admin/api-tokens', headers: JSON_ADMIN, payload: { type: 'client' } });
    t.equal(missing.statusCode, 400);
    t.same(missing.json().details, [
      { path: '/body/tokenName', message: 'The `/body/tokenName` property is required. It was not present on the data you sent.' },
    ]);
    const extra = await app.inject({
      method: 'POST', url: '/api/admin/api-tokens', headers: JSON_ADMIN, payload: { tokenName: 'x', type: 'client', extra: 1 },
    });
    t.same(extra.json().details, [{
      path: '/body/extra',
      message: 'The `/body` object of the request body does not allow additional properties. Your request included the `/body/extra` property.',
    }]);
    const wrongType = await app.inject({
      method: 'POST', url: '/api/admin/api-tokens', headers: JSON_ADMIN, payload: { tokenName: 'x', type: 'client', projects: 'abc' },
    });
    t.same(wrongType.json().details, [{ message: 'The `/body/projects` property must be array. You sent "abc".', path: '/body/projects' }]);
    const notObject = await app.inject({ method: 'POST', url: '/api/admin/api-tokens', headers: JSON_ADMIN, payload: '[1]' });
    t.equal(notObject.statusCode, 400);
    t.equal(notObject.json().details[0].path, '/body');
  });

  await t.test('scalars are coerced to declared string types, never into arrays', async (t) => {
    const res = await app.inject({
      method: 'POST', url: '/api/admin/api-tokens', headers: JSON_ADMIN, payload: { tokenName: 123, type: 'client' },
    });
    t.equal(res.statusCode, 201);
    t.equal(res.json().tokenName, '123');
    const notCoercedToArray = await app.inject({
      method: 'POST', url: '/api/admin/api-tokens', headers: JSON_ADMIN, payload: { tokenName: 'x', type: 'client', projects: 5 },
    });
    t.equal(notCoercedToArray.statusCode, 400);
  });

});

t.test('unexpected failures → 500 UnknownError with a generic message, details only in the log', async (t) => {
  const app = await buildTestApp(t);
  app.get('/api/admin/__boom', async () => {
    throw new Error('secret internal detail');
  });
  const res = await app.inject({ method: 'GET', url: '/api/admin/__boom', headers: ADMIN });
  t.equal(res.statusCode, 500);
  t.equal(res.json().name, 'UnknownError');
  t.match(res.json().id, UUID);
  t.notMatch(res.body, /secret internal detail/);
});

t.test('a JSON body nested 5 000 levels deep → 400 ValidationError on every body route, nothing written', async (t) => {
  const app = await buildTestApp(t);
  const spec = (await app.inject({ method: 'GET', url: '/docs/openapi.json' })).json<{ paths: Record<string, Record<string, unknown>> }>();
  const deepArray = '['.repeat(5000) + ']'.repeat(5000);
  const deepObject = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
  // Per collection, so a failure names what was written. `health` is the health check's own
  // document (src/db/health.ts), written every second; the snapshots (src/db/outbox/snapshots.ts)
  // and the event log's tail, blocks and chunks (src/db/event-log/mirror.ts) are rewritten in the
  // background from what is already committed. The events and the commits are what a write adds.
  const background = new Set(['health', SNAPSHOT_MARKS, SNAPSHOT_PARTS, EVENT_TAIL, 'event_blocks', 'event_chunks']);
  const countAll = async () => {
    await app.database.outbox.flushed(); // the boot's events are appended after it answers
    const db = app.database.db;
    const counts: Record<string, number> = {};
    for (const info of await db.listCollections().toArray()) {
      if (!background.has(info.name)) counts[info.name] = await db.collection(info.name).countDocuments({});
    }
    return counts;
  };
  const before = await countAll();
  let routes = 0;
  for (const [path, operations] of Object.entries(spec.paths)) {
    // Path parameters get plausible values: the body must be refused before any lookup anyway.
    const url = path.replace(/\{([^}]+)\}/g, (_m, name: string) => (/id$/i.test(name) ? '1' : name === 'environment' ? 'development' : 'default'));
    for (const method of Object.keys(operations)) {
      if (!['post', 'put', 'patch'].includes(method)) continue;
      routes++;
      for (const payload of [deepArray, deepObject]) {
        const res = await app.inject({ method: method.toUpperCase() as 'POST', url, headers: JSON_ADMIN, payload });
        t.equal(res.statusCode, 400, `${method} ${url}: ${res.body.slice(0, 200)}`);
        // OFREP answers in its own error shape (docs/rules.md §10.6).
        if (url.startsWith('/ofrep/')) t.equal(res.json().errorCode, 'PARSE_ERROR', `${method} ${url}`);
        else t.equal(res.json().name, 'ValidationError', `${method} ${url}`);
      }
    }
  }
  t.ok(routes > 20, `${routes} body routes tried`);
  t.same(await countAll(), before, 'nothing written');
  const shallow = '['.repeat(64) + ']'.repeat(64);
  const fine = await app.inject({ method: 'POST', url: '/api/admin/playground', headers: JSON_ADMIN, payload: `{"environment":"development","context":{"appName":"a","properties":{"x":"${shallow}"}}}` });
  t.equal(fine.statusCode, 200, 'brackets inside strings do not count');
});
