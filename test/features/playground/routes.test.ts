import t from 'tap';
import { ADMIN_TOKEN, buildTestApp } from '../../helpers/app.js';
import { eventually } from '../../helpers/wait.js';
import { advanced, createEnabledFlag, FEATURES, playground, post } from './helpers.js';

t.test('playground requests and answers', async (t) => {
  const app = await buildTestApp(t);
  await createEnabledFlag(app, 'abc');
  await createEnabledFlag(app, '123');
  await post(app, '/api/admin/projects', { id: 'other', name: 'Other' });
  await post(app, '/api/admin/projects/other/features', { name: 'elsewhere' });

  await t.test('projects selector (docs/rules.md §3.1)', async (t) => {
    const names = async (projects?: unknown) => {
      const res = await playground(app, { appName: 'a' }, projects === undefined ? {} : { projects });
      t.equal(res.statusCode, 200);
      return res.json().features.map((f: { name: string }) => f.name);
    };
    t.same(await names(), ['123', 'elsewhere', 'abc'], 'absent = every project: numeric names first, then newest first');
    t.same((await names('*')).sort(), (await names()).sort(), '"*" = all');
    t.same(await names(['default']), ['123', 'abc'], 'numeric names first, then newest first');
    t.same(await names([]), [], 'empty array selects nothing');
    t.same(await names(['*']), [], '"*" inside an array is just a project id');
    // Answered on the main thread without a worker (service.ts): the same bytes and type.
    const none = await playground(app, { appName: 'a', userId: 'é' }, { projects: ['nothing'] });
    t.equal(none.body, '{"input":{"environment":"development","context":{"appName":"a","userId":"é"},"projects":["nothing"]},"features":[]}');
    t.equal(none.headers['content-type'], 'application/json; charset=utf-8');
    const bad = await playground(app, { appName: 'a' }, { projects: 'abc' });
    t.equal(bad.statusCode, 400);
    t.same(bad.json().details.map((d: { path: string }) => d.path), ['/body/projects', 'projects', '/body/projects'], 'both oneOf branches, then oneOf');
  });

  await t.test('deprecated playground does not expand commas; advanced does, first key slowest', async (t) => {
    const deprecated = await playground(app, { appName: 'a', userId: '1,2' }, { projects: ['default'] });
    t.equal(deprecated.json().features.length, 2, 'one result per flag');
    t.same(deprecated.json().input.context, { appName: 'a', userId: '1,2' });
    const res = await advanced(app, { appName: 'x,y', userId: '1,2', properties: { region: 'eu,' } }, { projects: ['default'] });
    t.equal(res.statusCode, 200);
    const contexts = res.json().features[0].environments.development.map((e: { context: unknown }) => e.context);
    // keys: userId, region (from properties), appName (always last); the first key varies slowest
    t.same(contexts, [
      { userId: '1', region: 'eu', appName: 'x' }, { userId: '1', region: 'eu', appName: 'y' },
      { userId: '1', region: '', appName: 'x' }, { userId: '1', region: '', appName: 'y' },
      { userId: '2', region: 'eu', appName: 'x' }, { userId: '2', region: 'eu', appName: 'y' },
      { userId: '2', region: '', appName: 'x' }, { userId: '2', region: '', appName: 'y' },
    ]);
  });

  await t.test('invalid context properties are dropped and reported in order; warnings omitted when none', async (t) => {
    const res = await advanced(app, { appName: 'a', list: [1], userId: '1', n: 5, nothing: null });
    t.same(res.json().warnings, { invalidContextProperties: ['list', 'n', 'nothing'] });
    t.same(res.json().input.context, { appName: 'a', list: [1], userId: '1', n: 5, nothing: null }, 'input echoes the request');
    const clean = await advanced(app, { appName: 'a' });
    t.notOk('warnings' in clean.json());
    t.same(Object.keys(clean.json()), ['features', 'input']);
  });

  await t.test('environments: duplicates merged, numeric names first, unknown ones just off', async (t) => {
    const res = await post(app, '/api/admin/playground/advanced', { environments: ['production', '7', 'development', 'production'], projects: ['default'], context: { appName: 'a' } });
    t.equal(res.statusCode, 200);
    const envs = res.json().features[0].environments;
    t.same(Object.keys(envs), ['7', 'production', 'development']);
    t.equal(envs.production.length, 2, 'a duplicated environment holds both occurrences');
    t.equal(envs['7'][0].isEnabled, false);
  });

  await t.test('the evaluation limit: exactly at it is allowed, above it 400 with Unleash message', async (t) => {
    // 2 flags in `default` × 1 environment × N combinations
    const ids = (n: number) => Array.from({ length: n }, (_, i) => i).join(',');
    const ok = await advanced(app, { appName: 'a', userId: ids(7500) }, { projects: ['default'] });
    t.equal(ok.statusCode, 200, '15000 evaluations exactly');
    const refused = await advanced(app, { appName: 'a', userId: ids(7501) }, { projects: ['default'] });
    t.equal(refused.statusCode, 400);
    t.equal(refused.json().name, 'ValidationError');
    t.equal(refused.json().details[0].message,
      'Rejecting evaluation as it would generate 15002 combinations exceeding 15000 limit. Please reduce the number of selected environments (1), features (2), context field combinations (7501).');
  });

  await t.test('archived flags disappear', async (t) => {
    await post(app, FEATURES, { name: 'gone' });
    t.equal((await app.inject({ method: 'DELETE', url: `${FEATURES}/gone`, headers: { authorization: '*:*.test-admin-token' } })).statusCode, 202);
    const res = await playground(app, { appName: 'a' });
    t.notOk(res.json().features.some((f: { name: string }) => f.name === 'gone'));
  });
});

t.test('read-your-writes: the next playground request sees an acknowledged write', async (t) => {
  const app = await buildTestApp(t);
  await createEnabledFlag(app, 'toggle');
  for (let i = 0; i < 4; i++) {
    const on = i % 2 === 1;
    t.equal((await post(app, `${FEATURES}/toggle/environments/development/${on ? 'on' : 'off'}`)).statusCode, 200);
    const res = await playground(app, { appName: 'a' });
    t.equal(res.json().features[0].isEnabled, on, `after turning ${on ? 'on' : 'off'}`);
  }
});

t.test('two instances on one database see each other within a second', async (t) => {
  const a = await buildTestApp(t, { REVISION_POLL_MS: '100' });
  const { MongoClient } = await import('mongodb');
  void MongoClient;
  const b = await (await import('../../../src/app.js')).buildApp(a.config, { logger: false });
  t.teardown(() => b.close());
  const seen = async (app: typeof a) => (await playground(app, { appName: 'x' })).json().features.find((f: { name: string }) => f.name === 'shared')?.isEnabled;
  // Warm B's worker pool first: on a loaded machine its cold start alone can take the whole second
  // this test gives to the revision signal.
  t.equal(await seen(b), undefined, 'B answers before the flag exists');
  await createEnabledFlag(a, 'shared');
  // B may have built its snapshot before A's write; it must catch up by polling.
  t.ok(await eventually(async () => (await seen(b)) === true, 1000, 25), 'B sees the new flag');
  t.equal((await post(a, `${FEATURES}/shared/environments/development/off`)).statusCode, 200);
  const started = Date.now();
  t.ok(await eventually(async () => (await seen(b)) === false, 1000, 25), `B sees A's change within 1 s (${Date.now() - started} ms)`);
});

t.test('over a real socket: every playground POST is answered, not aborted when its body has been read', async (t) => {
  // Node 20 emits the request's 'close' once its body is read; a budget listening there aborted
  // every playground POST at once with a 503 (inject() does not emit it, hence a listening server).
  const app = await buildTestApp(t);
  await createEnabledFlag(app, 'socket-flag');
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const ask = (path: string, body: unknown) => fetch(`${base}${path}`, {
    method: 'POST', headers: { authorization: ADMIN_TOKEN, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  const deprecated = await ask('/api/admin/playground', { environment: 'development', context: { appName: 'a', userId: '1' } });
  t.equal(deprecated.status, 200, 'deprecated playground');
  t.match(await deprecated.json(), { features: [{ name: 'socket-flag', isEnabled: true }] });
  const advancedRes = await ask('/api/admin/playground/advanced', { environments: ['development'], context: { appName: 'a', userId: '1,2' } });
  t.equal(advancedRes.status, 200, 'advanced playground');
  t.match(await advancedRes.json(), { features: [{ name: 'socket-flag' }] });
  const batch = await ask('/api/admin/playground/batch', { environments: ['development'], contexts: [{ appName: 'a', userId: '1' }, { appName: 'a', userId: '2' }] });
  t.equal(batch.status, 200, 'batch playground');
  t.match(await batch.json(), { results: [{ flags: { 'socket-flag': { enabled: true } } }, {}] });
  const ndjson = await fetch(`${base}/api/admin/playground/batch?environments=development`, {
    method: 'POST', headers: { authorization: ADMIN_TOKEN, 'content-type': 'application/x-ndjson', accept: 'application/x-ndjson' },
    body: '{"appName":"a","userId":"1"}\n{"appName":"a","userId":"2"}\n',
  });
  t.equal(ndjson.status, 200, 'batch playground, NDJSON both ways');
  t.match(await ndjson.text(), /socket-flag/);
});
