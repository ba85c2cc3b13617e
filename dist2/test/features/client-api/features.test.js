import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import t from 'tap';
import { ADMIN, buildTestApp, JSON_ADMIN } from '../../helpers/app.js';
import { createToken, seedReferenceConfiguration } from './helpers.js';
function fixture(name) {
    const url = new URL(`../../../../test/fixtures/client-api/${name}`, import.meta.url);
    return JSON.parse(readFileSync(fileURLToPath(url), 'utf8'));
}
/** Unleash's feature order is its SQL row order (no ORDER BY): compare by name. */
function byName(body) {
    const { meta: _meta, ...rest } = body;
    const features = [...rest.features].sort((a, b) => a.name.localeCompare(b.name));
    return { ...rest, features };
}
t.test('client API: tokens, shapes, filters, ETag', async (t) => {
    const app = await buildTestApp(t);
    await seedReferenceConfiguration(app);
    const client = await createToken(app, 'client');
    const backend = await createToken(app, 'backend');
    const frontend = await createToken(app, 'frontend');
    const get = (url, headers = {}) => app.inject({ method: 'GET', url, headers });
    await t.test('strict token access, bodies as Unleash 8', async (t) => {
        const missing = await get('/api/client/features');
        t.equal(missing.statusCode, 401);
        t.equal(missing.json().message, 'This endpoint requires an API token. Please add an authorization header to your request with a valid token');
        t.equal((await get('/api/client/features', { authorization: 'default:development.nope' })).statusCode, 401);
        for (const wrong of [frontend, ADMIN.authorization]) {
            const res = await get('/api/client/features', { authorization: wrong });
            t.equal(res.statusCode, 403);
            t.equal(res.json().message, 'invalid token: expected a different token type for this endpoint');
        }
        t.equal((await get('/api/admin/projects', { authorization: client })).statusCode, 403, 'client token on admin');
        t.equal((await get('/api/admin/projects', { authorization: frontend })).statusCode, 403, 'frontend token on admin');
        t.equal((await get('/api/client/features', { authorization: backend })).statusCode, 200, 'backend is an alias of client');
    });
    await t.test('body equals the reference, segments inlined or listed by client spec', async (t) => {
        const inline = await get('/api/client/features', { authorization: client });
        t.equal(inline.statusCode, 200);
        t.same(byName(inline.json()), fixture('reference-features-inline.json'));
        t.equal(inline.body.indexOf('{"version":2,"features":[{"name":"alpha","type":"release","enabled":true,"project"'), 0, 'key order');
        const listed = await get('/api/client/features', { authorization: client, 'unleash-client-spec': '4.2.0' });
        t.same(byName(listed.json()), fixture('reference-features-segments.json'));
        t.match(listed.json().meta, { revisionId: Number, etag: listed.headers.etag, queryHash: String });
        t.not(listed.headers.etag, inline.headers.etag);
    });
    await t.test('the token overrides the query; namePrefix and tag filter', async (t) => {
        const res = await get('/api/client/features?project=other&namePrefix=al', { authorization: client });
        t.same(res.json().query, { project: ['default'], namePrefix: 'al', environment: 'development', inlineSegmentConstraints: true });
        t.same(res.json().features.map((f) => f.name), ['alpha']);
        const tagged = await get('/api/client/features?tag=simple:t1', { authorization: client });
        t.same(tagged.json().query.tag, [['simple', 't1']]);
        t.same(tagged.json().features.map((f) => f.name), ['beta']);
        const otherProject = await createToken(app, 'client', ['*']);
        const all = await get('/api/client/features?project=nothing', { authorization: otherProject });
        t.same(all.json().features, [], 'an all-projects token keeps the query project');
    });
    await t.test('single flag; 404 outside the scope', async (t) => {
        const res = await get('/api/client/features/beta', { authorization: client });
        t.equal(res.statusCode, 200);
        t.same(res.json(), fixture('reference-features-inline.json').features.find((f) => f.name === 'beta'));
        const nope = await get('/api/client/features/nope', { authorization: client });
        t.equal(nope.statusCode, 404);
        t.equal(nope.json().message, 'Could not find feature flag nope');
    });
    await t.test('single flag: ETag, 304 while unchanged, a new ETag after a change', async (t) => {
        const first = await get('/api/client/features/gamma', { authorization: client });
        const etag = first.headers.etag;
        t.match(etag, /^"[0-9a-f]{8}:v1"$/);
        t.equal((await get('/api/client/features/gamma', { authorization: client, 'if-none-match': etag })).statusCode, 304);
        await app.inject({ method: 'POST', url: '/api/admin/projects/default/features/beta/environments/development/off', headers: JSON_ADMIN });
        t.equal((await get('/api/client/features/gamma', { authorization: client, 'if-none-match': etag })).statusCode, 304, 'another flag changed');
        await app.inject({ method: 'POST', url: '/api/admin/projects/default/features/beta/environments/development/on', headers: JSON_ADMIN });
        const before = (await get('/api/client/features/gamma', { authorization: client })).json().enabled;
        await app.inject({ method: 'POST', url: `/api/admin/projects/default/features/gamma/environments/development/${before ? 'off' : 'on'}`, headers: JSON_ADMIN });
        const changed = await get('/api/client/features/gamma', { authorization: client, 'if-none-match': etag });
        t.equal(changed.statusCode, 200);
        t.equal(changed.json().enabled, !before);
        t.not(changed.headers.etag, etag);
        await app.inject({ method: 'POST', url: `/api/admin/projects/default/features/gamma/environments/development/${before ? 'on' : 'off'}`, headers: JSON_ADMIN });
    });
    await t.test('strong ETag: 304, unchanged by writes the token cannot see, changed by those it can', async (t) => {
        const first = await get('/api/client/features', { authorization: client });
        const etag = first.headers.etag;
        t.match(etag, /^"[0-9a-f]{8}:[0-9a-f]{8}:v1"$/);
        const cached = await get('/api/client/features', { authorization: client, 'if-none-match': etag });
        t.equal(cached.statusCode, 304);
        t.equal(cached.body, '');
        t.equal(cached.headers['content-length'], undefined, 'no length a keep-alive client would wait for');
        await app.inject({ method: 'POST', url: '/api/admin/projects', headers: JSON_ADMIN, payload: { id: 'other', name: 'other' } });
        const res = await app.inject({ method: 'POST', url: '/api/admin/projects/other/features', headers: JSON_ADMIN, payload: { name: 'elsewhere' } });
        t.equal(res.statusCode, 201);
        const after = await get('/api/client/features', { authorization: client, 'if-none-match': etag });
        t.equal(after.statusCode, 304, 'a flag in another project does not change this token\'s ETag');
        await app.inject({ method: 'POST', url: '/api/admin/projects/default/features/gamma/environments/development/on', headers: JSON_ADMIN });
        const changed = await get('/api/client/features', { authorization: client, 'if-none-match': etag });
        t.equal(changed.statusCode, 200);
        t.not(changed.headers.etag, etag);
        t.equal(changed.json().features.find((f) => f.name === 'gamma').enabled, true);
    });
    await t.test('a revoked token stops working at once', async (t) => {
        const doomed = await createToken(app, 'client');
        t.equal((await get('/api/client/features', { authorization: doomed })).statusCode, 200);
        const revoke = await app.inject({ method: 'DELETE', url: `/api/admin/api-tokens/${encodeURIComponent(doomed)}`, headers: ADMIN });
        t.equal(revoke.statusCode, 200);
        t.equal((await get('/api/client/features', { authorization: doomed })).statusCode, 401);
    });
    await t.test('gzip when accepted and worth it', async (t) => {
        for (let i = 0; i < 20; i++) {
            await app.inject({ method: 'POST', url: '/api/admin/projects/default/features', headers: JSON_ADMIN, payload: { name: `bulk-${i}`, description: 'x'.repeat(50) } });
        }
        const plain = await get('/api/client/features', { authorization: client });
        const zipped = await get('/api/client/features', { authorization: client, 'accept-encoding': 'gzip, br' });
        t.equal(zipped.headers['content-encoding'], 'gzip');
        t.equal(gunzipSync(zipped.rawPayload).toString('utf8'), plain.body);
        t.equal(plain.headers['content-encoding'], undefined);
    });
});
//# sourceMappingURL=features.test.js.map