import t from 'tap';
import { ADMIN_TOKEN, buildTestApp } from '../../helpers/app.js';
import { advanced, createEnabledFlag, FEATURES, post } from './helpers.js';

const BATCH = '/api/admin/playground/batch';

async function seedFlags(app: Awaited<ReturnType<typeof buildTestApp>>): Promise<void> {
  await createEnabledFlag(app, 'plain');
  await createEnabledFlag(app, 'rollout');
  const strategy = await post(app, `${FEATURES}/rollout/environments/development/strategies`, {
    name: 'flexibleRollout',
    parameters: { rollout: '50', stickiness: 'userId', groupId: 'rollout' },
    constraints: [{ contextName: 'region', operator: 'IN', values: ['eu'] }],
    variants: [{ name: 'blue', weight: 500, weightType: 'variable', stickiness: 'userId' }, { name: 'green', weight: 500, weightType: 'variable', stickiness: 'userId' }],
  });
  if (strategy.statusCode !== 200) throw new Error(strategy.body);
  await createEnabledFlag(app, 'child');
  const dep = await post(app, `${FEATURES}/child/dependencies`, { feature: 'rollout', variants: ['blue'] });
  if (dep.statusCode !== 200) throw new Error(dep.body);
}

const contexts = Array.from({ length: 40 }, (_, i) => ({
  appName: 'a', userId: `u${i}`, ...(i % 3 === 0 ? { properties: { region: 'us' } } : { properties: { region: 'eu' } }),
}));

t.test('JSON in, JSON out: the advanced playground\'s isEnabled and variant name per context', async (t) => {
  const app = await buildTestApp(t);
  await seedFlags(app);
  const res = await post(app, BATCH, { environments: ['development', 'production'], projects: '*', contexts });
  t.equal(res.statusCode, 200, res.body);
  const body = res.json<{ flags: string[]; results: Array<{ context: number; environment: string; flags: Record<string, { enabled: boolean; variant: string | null }> }> }>();
  t.same(body.flags, ['child', 'rollout', 'plain']);
  t.equal(body.results.length, 80);
  t.same(body.results.slice(0, 2).map((r) => [r.context, r.environment]), [[0, 'development'], [0, 'production']]);
  let on = 0;
  for (const [i, context] of contexts.entries()) {
    const expected = (await advanced(app, context, { environments: ['development', 'production'] })).json<{
      features: Array<{ name: string; environments: Record<string, Array<{ isEnabled: boolean; variant: { name: string } }>> }>;
    }>();
    for (const [e, environment] of ['development', 'production'].entries()) {
      const record = body.results[i * 2 + e]!;
      t.equal(record.environment, environment);
      for (const feature of expected.features) {
        const entry = feature.environments[environment]![0]!;
        if (entry.isEnabled) on++;
        t.same(record.flags[feature.name], { enabled: entry.isEnabled, variant: entry.variant.name }, `${i} ${environment} ${feature.name}`);
      }
    }
  }
  t.ok(on > 40, 'a mix of on and off answers');
});

t.test('NDJSON out is streamed, one record per line; NDJSON in is read as a stream', async (t) => {
  const app = await buildTestApp(t);
  await seedFlags(app);
  const json = (await post(app, BATCH, { environments: ['development'], contexts })).json<{ results: unknown[] }>();
  const out = await app.inject({
    method: 'POST', url: BATCH, headers: { authorization: ADMIN_TOKEN, 'content-type': 'application/json', accept: 'application/x-ndjson' },
    payload: { environments: ['development'], contexts },
  });
  t.equal(out.statusCode, 200);
  t.match(out.headers['content-type'], /application\/x-ndjson/);
  t.notOk(out.headers['content-length'], 'streamed');
  const lines = out.body.trimEnd().split('\n').map((line) => JSON.parse(line) as unknown);
  t.same(lines, json.results);

  const ndjsonBody = contexts.map((c) => JSON.stringify(c)).join('\n') + '\n';
  const both = await app.inject({
    method: 'POST', url: `${BATCH}?environments=development&projects=default`,
    headers: { authorization: ADMIN_TOKEN, 'content-type': 'application/x-ndjson', accept: 'application/x-ndjson' },
    payload: ndjsonBody,
  });
  t.equal(both.statusCode, 200, both.body);
  t.equal(both.body, out.body, 'NDJSON in gives the same records');
  const jsonOut = await app.inject({
    method: 'POST', url: `${BATCH}?environments=development`,
    headers: { authorization: ADMIN_TOKEN, 'content-type': 'application/x-ndjson' }, payload: ndjsonBody,
  });
  t.same(jsonOut.json<{ results: unknown[] }>().results, json.results);
});

t.test('bad input names the field; the limit is a 400 with the limit in the message', async (t) => {
  const app = await buildTestApp(t, { PLAYGROUND_BATCH_LIMIT: '100' });
  await seedFlags(app);
  const bad = await post(app, BATCH, { environments: ['development'], contexts: [{ appName: 'a' }, { appName: 'a' }, { appName: 'a' }, { userId: 'x' }] });
  t.equal(bad.statusCode, 400);
  t.match(bad.body, /contexts\/3\/appName/);
  const ndjsonBad = await app.inject({
    method: 'POST', url: `${BATCH}?environments=development`,
    headers: { authorization: ADMIN_TOKEN, 'content-type': 'application/x-ndjson' },
    payload: '{"appName":"a"}\n{"appName":"a","userId":{"x":1}}\n',
  });
  t.equal(ndjsonBad.statusCode, 400);
  t.match(ndjsonBad.json(), { name: 'ValidationError', message: /contexts\[1\]\.userId/ });
  const notJson = await app.inject({
    method: 'POST', url: `${BATCH}?environments=development`,
    headers: { authorization: ADMIN_TOKEN, 'content-type': 'application/x-ndjson' }, payload: '{"appName":"a"}\nnope\n',
  });
  t.equal(notJson.statusCode, 400);
  t.match(notJson.json(), { message: /contexts\[1\]/ });
  const noEnv = await app.inject({
    method: 'POST', url: BATCH, headers: { authorization: ADMIN_TOKEN, 'content-type': 'application/x-ndjson' }, payload: '{"appName":"a"}\n',
  });
  t.equal(noEnv.statusCode, 400);
  t.match(noEnv.json(), { message: /environments/ });

  // 3 flags × 1 environment: 33 contexts fit in 100, 34 do not.
  const fits = await post(app, BATCH, { environments: ['development'], contexts: contexts.slice(0, 33) });
  t.equal(fits.statusCode, 200);
  const over = await post(app, BATCH, { environments: ['development'], contexts: contexts.slice(0, 34) });
  t.equal(over.statusCode, 400);
  t.match(over.json(), { name: 'ValidationError', message: /102 evaluations.*limit of 100 \(PLAYGROUND_BATCH_LIMIT\)/ });
  const overNdjson = await app.inject({
    method: 'POST', url: `${BATCH}?environments=development`,
    headers: { authorization: ADMIN_TOKEN, 'content-type': 'application/x-ndjson' },
    payload: contexts.map((c) => JSON.stringify(c)).join('\n'),
  });
  t.equal(overNdjson.statusCode, 400);
  t.match(overNdjson.json(), { message: /limit of 100/ });
});

t.test('a limit crossed after the answer started ends it with an error member / line', async (t) => {
  // 1 flag, 1 thread (a window of 2 tasks of 1000 contexts): the first task's answer is out
  // before the third task would cross the limit of 2500.
  const app = await buildTestApp(t, { PLAYGROUND_BATCH_LIMIT: '2500', PLAYGROUND_WORKERS: '1' });
  await createEnabledFlag(app, 'plain');
  const lines = Array.from({ length: 4000 }, (_, i) => JSON.stringify({ appName: 'a', userId: String(i) })).join('\n');
  const json = await app.inject({
    method: 'POST', url: `${BATCH}?environments=development`,
    headers: { authorization: ADMIN_TOKEN, 'content-type': 'application/x-ndjson' }, payload: lines,
  });
  t.equal(json.statusCode, 200);
  const body = json.json<{ results: unknown[]; error: { name: string; message: string } }>();
  t.ok(body.results.length >= 1000 && body.results.length <= 2500, `some results (${body.results.length})`);
  t.match(body.error, { name: 'ValidationError', message: /limit of 2500/ });
  const nd = await app.inject({
    method: 'POST', url: `${BATCH}?environments=development`,
    headers: { authorization: ADMIN_TOKEN, 'content-type': 'application/x-ndjson', accept: 'application/x-ndjson' }, payload: lines,
  });
  const last = JSON.parse(nd.body.trimEnd().split('\n').pop()!) as { error: { message: string } };
  t.match(last.error.message, /limit of 2500/);
});

t.test('both endpoints are in the OpenAPI document', async (t) => {
  const app = await buildTestApp(t);
  const res = await app.inject({ method: 'GET', url: '/docs/json' });
  t.equal(res.statusCode, 200);
  type Operation = { requestBody?: { content: Record<string, unknown> }; responses: Record<string, { content?: Record<string, unknown> }> };
  const doc = res.json<{ paths: Record<string, Record<string, Operation>> }>();
  const batch = doc.paths['/api/admin/playground/batch']!.post!;
  t.ok(batch.requestBody!.content['application/json'], 'JSON body');
  t.ok(batch.requestBody!.content['application/x-ndjson'], 'NDJSON body');
  t.ok(batch.responses['200']!.content!['application/x-ndjson'], 'NDJSON answer');
  const impact = doc.paths['/api/admin/playground/change-request/{id}/impact']!.post!;
  t.ok(impact.responses['200']!.content!['application/json'], 'impact answer');
});
