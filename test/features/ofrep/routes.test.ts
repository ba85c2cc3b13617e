/**
 * OFREP's protocol over HTTP (docs/rules.md §10): answers, ETag / 304, authentication, every error
 * code, the rate limit, CORS and the OpenAPI document.
 */
import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { ADMIN, buildTestApp, JSON_ADMIN } from '../../helpers/app.js';
import { createToken } from '../client-api/helpers.js';

const BULK = '/ofrep/v1/evaluate/flags';
const one = (key: string) => `${BULK}/${key}`;

async function admin(app: FastifyInstance, method: 'POST' | 'PUT', url: string, payload?: unknown): Promise<void> {
  const res = await app.inject({ method, url, headers: JSON_ADMIN, ...(payload === undefined ? {} : { payload: payload as object }) });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
}

/** Four flags in project default, one in project other: a boolean one, one per payload kind, and one off. */
async function configure(app: FastifyInstance): Promise<void> {
  await admin(app, 'POST', '/api/admin/projects', { id: 'other', name: 'Other' });
  const base = '/api/admin/projects/default/features';
  for (const name of ['plain', 'price', 'theme', 'off']) await admin(app, 'POST', base, { name });
  await admin(app, 'POST', '/api/admin/projects/other/features', { name: 'elsewhere' });
  await admin(app, 'POST', `${base}/plain/environments/development/strategies`, {
    name: 'default', parameters: {}, constraints: [{ contextName: 'userId', operator: 'IN', values: ['7'] }],
  });
  await admin(app, 'PUT', `${base}/price/environments/development/variants`, [
    { name: 'cheap', weight: 500, weightType: 'variable', stickiness: 'default', payload: { type: 'number', value: '9.5' } },
    { name: 'dear', weight: 500, weightType: 'variable', stickiness: 'default', payload: { type: 'number', value: '20' } },
  ]);
  await admin(app, 'PUT', `${base}/theme/environments/development/variants`, [
    { name: 'dark', weight: 1000, weightType: 'variable', stickiness: 'default', payload: { type: 'json', value: '{"bg":"#000"}' } },
  ]);
  for (const name of ['plain', 'price', 'theme']) await admin(app, 'POST', `${base}/${name}/environments/development/on`);
}

t.test('OFREP protocol', async (t) => {
  const app = await buildTestApp(t);
  await configure(app);
  const frontend = await createToken(app, 'frontend');
  const client = await createToken(app, 'client');
  const bearer = { authorization: `Bearer ${frontend}`, 'content-type': 'application/json' };

  await t.test('single flag: the value of each kind, reason and variant', async (t) => {
    const ask = async (key: string, context: Record<string, unknown>) =>
      (await app.inject({ method: 'POST', url: one(key), headers: bearer, payload: { context } })).json();
    t.same(await ask('plain', { targetingKey: '7' }), { key: 'plain', value: true, reason: 'TARGETING_MATCH' }, 'targetingKey is the userId');
    t.same(await ask('plain', { targetingKey: '7', userId: '8' }), { key: 'plain', value: false, reason: 'DEFAULT' }, 'a given userId wins');
    t.same(await ask('plain', { userId: 7 }), { key: 'plain', value: true, reason: 'TARGETING_MATCH' }, 'a number is its text');
    t.same(await ask('off', {}), { key: 'off', value: false, reason: 'DISABLED' });
    const price = await ask('price', { targetingKey: 'u1' });
    t.ok(price.value === 9.5 || price.value === 20, 'a number payload is a number');
    t.equal(price.reason, 'SPLIT');
    t.same(price.metadata, { enabled: true });
    t.same(await ask('theme', { targetingKey: 'u1' }), {
      key: 'theme', value: { bg: '#000' }, reason: 'TARGETING_MATCH', variant: 'dark', metadata: { enabled: true },
    }, 'a JSON payload is an object; one variant is no split');
  });

  await t.test('a variant won by an override is a TARGETING_MATCH, by hashing among several a SPLIT', async (t) => {
    await admin(app, 'PUT', '/api/admin/projects/default/features/price/environments/development/variants', [
      { name: 'cheap', weight: 500, weightType: 'variable', stickiness: 'default', payload: { type: 'number', value: '9.5' }, overrides: [{ contextName: 'userId', values: ['vip'] }] },
      { name: 'dear', weight: 500, weightType: 'variable', stickiness: 'default', payload: { type: 'number', value: '20' } },
    ]);
    const ask = async (context: Record<string, unknown>) =>
      (await app.inject({ method: 'POST', url: one('price'), headers: bearer, payload: { context } })).json();
    t.match(await ask({ targetingKey: 'vip' }), { value: 9.5, variant: 'cheap', reason: 'TARGETING_MATCH' });
    const reasons = new Set<string>();
    for (let i = 0; i < 20; i++) reasons.add((await ask({ targetingKey: `u${i}` })).reason);
    t.same([...reasons], ['SPLIT']);
  });

  await t.test('X-API-Key and a client token work too', async (t) => {
    const res = await app.inject({ method: 'POST', url: one('plain'), headers: { 'x-api-key': client, 'content-type': 'application/json' }, payload: { context: {} } });
    t.equal(res.statusCode, 200);
  });

  await t.test('authentication: none 401, unknown 401, admin 403, and before the body is validated', async (t) => {
    for (const [headers, status] of [
      [{}, 401], [{ authorization: 'Bearer nope' }, 401], [{ 'x-api-key': 'default:development.nope' }, 401],
      [{ authorization: `Bearer ${ADMIN.authorization}` }, 403], [{ 'x-api-key': ADMIN.authorization }, 403],
    ] as const) {
      for (const url of [one('plain'), BULK]) {
        const res = await app.inject({ method: 'POST', url, headers: { ...headers, 'content-type': 'application/json' }, payload: '[]' });
        t.equal(res.statusCode, status, `${url} ${JSON.stringify(headers)}`);
        t.equal(res.json().errorCode, 'GENERAL');
      }
    }
  });

  await t.test('error codes', async (t) => {
    const post = (url: string, payload: string, headers: Record<string, string> = bearer) => app.inject({ method: 'POST', url, headers, payload });
    let res = await post(one('nope'), '{"context":{}}');
    t.equal(res.statusCode, 404);
    t.same(res.json(), { key: 'nope', errorCode: 'FLAG_NOT_FOUND', errorDetails: res.json().errorDetails });
    res = await post(one('elsewhere'), '{"context":{}}');
    t.equal(res.statusCode, 404, 'a flag outside the token\'s projects is not found');
    for (const url of [one('plain'), BULK]) {
      for (const body of ['{"context":', '[]', '"x"']) {
        res = await post(url, body);
        t.equal(res.statusCode, 400, `${url} ${body}`);
        t.equal(res.json().errorCode, 'PARSE_ERROR');
      }
      for (const context of ['[]', '"x"', '3', 'null']) {
        res = await post(url, `{"context":${context}}`);
        t.equal(res.statusCode, 400, `${url} context ${context}`);
        t.equal(res.json().errorCode, 'INVALID_CONTEXT');
      }
      res = await post(url, 'a=b', { authorization: frontend, 'content-type': 'application/x-www-form-urlencoded' });
      t.equal(res.statusCode, 415);
      t.equal(res.json().errorCode, 'PARSE_ERROR');
    }
    res = await post(one('plain'), '[]');
    t.equal(res.json().key, 'plain', 'single-flag errors name the flag');
    res = await post(BULK, '{}');
    t.equal(res.statusCode, 200, 'no context is an empty context');
    res = await post(one('plain'), '{"context":{}}');
    t.equal(res.statusCode, 200, 'no targetingKey is no error: TARGETING_KEY_MISSING does not apply');
  });

  await t.test('bulk: every flag of the scope, ETag, 304, event stream', async (t) => {
    const res = await app.inject({ method: 'POST', url: BULK, headers: bearer, payload: { context: { targetingKey: '7' } } });
    t.equal(res.statusCode, 200);
    t.match(res.headers['content-type'], /^application\/json/);
    const body = res.json();
    t.same(body.flags.map((f: { key: string }) => f.key), ['plain', 'price', 'theme', 'off']);
    t.equal(body.eventStreams.length, 1);
    t.match(body.eventStreams[0], { type: 'sse', endpoint: { requestUri: /^\/ofrep\/v1\/events\/[0-9a-f]{64}$/ } });
    t.notOk(body.eventStreams[0].endpoint.requestUri.includes(frontend.split('.')[1]), 'the URL does not carry the secret');
    const etag = res.headers.etag as string;
    t.match(etag, /^"[0-9a-z]+-[0-9a-f]{16}"$/);
    const again = await app.inject({ method: 'POST', url: BULK, headers: { ...bearer, 'if-none-match': etag }, payload: { context: { targetingKey: '7' } } });
    t.equal(again.statusCode, 304);
    t.equal(again.body, '');
    const other = await app.inject({ method: 'POST', url: BULK, headers: { ...bearer, 'if-none-match': etag }, payload: { context: { targetingKey: '8' } } });
    t.equal(other.statusCode, 200, 'another answer for another context');
    t.not(other.headers.etag, etag);
    await admin(app, 'POST', '/api/admin/projects/default/features/off/environments/development/on');
    const changed = await app.inject({ method: 'POST', url: BULK, headers: { ...bearer, 'if-none-match': etag }, payload: { context: { targetingKey: '7' } } });
    t.equal(changed.statusCode, 200, 'a change on the server changes the ETag');
    t.equal(changed.json().flags[3].value, true);
    const withQuery = await app.inject({ method: 'POST', url: `${BULK}?flagConfigEtag=x&flagConfigLastModified=1771622898`, headers: bearer, payload: { context: {} } });
    t.equal(withQuery.statusCode, 200, 'SSE re-fetch metadata is accepted');
  });

  await t.test('event stream: a key names a live token; anything else is 401', async (t) => {
    const res = await app.inject({ method: 'GET', url: '/ofrep/v1/events/0123' });
    t.equal(res.statusCode, 401);
    t.equal(res.json().errorCode, 'GENERAL');
  });

  await t.test('CORS preflight without a token', async (t) => {
    const pre = await app.inject({
      method: 'OPTIONS', url: BULK,
      headers: { origin: 'http://x.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-api-key,content-type' },
    });
    t.equal(pre.statusCode, 204);
    t.equal(pre.headers['access-control-allow-headers'], 'x-api-key,content-type');
    t.equal(pre.headers['access-control-expose-headers'], 'ETag');
  });

  await t.test('the OpenAPI document describes the endpoints, schemas and security', async (t) => {
    const doc = (await app.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
    const bulk = doc.paths['/ofrep/v1/evaluate/flags'].post;
    t.same(Object.keys(bulk.responses).sort(), ['200', '304', '400', '401', '403', '413', '415', '429', '500', '503']);
    t.ok(bulk.responses['200'].headers.ETag);
    t.ok(bulk.responses['429'].headers['Retry-After']);
    t.ok(bulk.responses['200'].content['application/json'].schema.properties.flags);
    t.same(bulk.security, [{ ofrepBearer: [] }, { ofrepApiKey: [] }]);
    t.ok(bulk.parameters.some((p: { name: string; in: string }) => p.name === 'if-none-match' && p.in === 'header'));
    const single = doc.paths['/ofrep/v1/evaluate/flags/{key}'].post;
    t.ok(single.responses['404'].content['application/json'].schema.properties.errorCode);
    t.ok(doc.paths['/ofrep/v1/events/{streamKey}'].get);
    t.ok(doc.components.securitySchemes.ofrepApiKey);
  });
});

t.test('OFREP rate limit: 429 with Retry-After', async (t) => {
  const app = await buildTestApp(t, { OFREP_RATE_LIMIT: '2' });
  const frontend = await createToken(app, 'frontend');
  const headers = { authorization: frontend, 'content-type': 'application/json' };
  const answers = [];
  for (let i = 0; i < 3; i++) answers.push(await app.inject({ method: 'POST', url: BULK, headers, payload: { context: {} } }));
  t.same(answers.map((res) => res.statusCode), [200, 200, 429]);
  const last = answers[2]!;
  t.equal(last.json().errorCode, 'GENERAL');
  t.match(last.headers['retry-after'], /^[1-9][0-9]*$/);
  const otherToken = await createToken(app, 'frontend');
  const res = await app.inject({ method: 'POST', url: BULK, headers: { ...headers, authorization: otherToken }, payload: { context: {} } });
  t.equal(res.statusCode, 200, 'counted per token');
});

t.test('OFREP while the configuration loads: 503 with Retry-After', async (t) => {
  let release: () => void = () => undefined;
  const app = await buildTestApp(t, {}, { loadInBackground: true, holdLoad: new Promise<void>((resolve) => { release = resolve; }) });
  const res = await app.inject({ method: 'POST', url: BULK, headers: { authorization: 'x', 'content-type': 'application/json' }, payload: { context: {} } });
  t.equal(res.statusCode, 503);
  t.equal(res.headers['retry-after'], '2');
  t.equal(res.json().errorCode, 'GENERAL');
  release();
  await app.loaded;
});
