import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { ADMIN, buildTestApp } from '../../helpers/app.js';
import { createToken, seedReferenceConfiguration } from '../client-api/helpers.js';
const recorded = JSON.parse(readFileSync(fileURLToPath(new URL('../../../../test/fixtures/client-api/reference-frontend.json', import.meta.url)), 'utf8'));
t.test('frontend API', async (t) => {
    const app = await buildTestApp(t);
    await seedReferenceConfiguration(app);
    const frontend = await createToken(app, 'frontend');
    const client = await createToken(app, 'client');
    const headers = { authorization: frontend, 'content-type': 'application/json' };
    await t.test('token types', async (t) => {
        t.equal((await app.inject({ method: 'GET', url: '/api/frontend' })).statusCode, 401);
        for (const wrong of [client, ADMIN.authorization]) {
            const res = await app.inject({ method: 'GET', url: '/api/frontend', headers: { authorization: wrong } });
            t.equal(res.statusCode, 403);
            t.equal(res.json().message, 'invalid token: expected a different token type for this endpoint');
        }
    });
    await t.test('POST bodies byte-equal the reference for every recorded context', async (t) => {
        for (const { context, body } of recorded) {
            const res = await app.inject({ method: 'POST', url: '/api/frontend', headers, payload: { context } });
            t.equal(res.body, body, JSON.stringify(context));
        }
    });
    await t.test('GET reads the context from the query, properties[x] included', async (t) => {
        const { context, body } = recorded.find((r) => r.body.includes('"alpha"') && r.context.properties);
        const props = context.properties;
        const query = `userId=${String(context.userId)}&appName=${String(context.appName)}&properties[x]=${props.x}`;
        const res = await app.inject({ method: 'GET', url: `/api/frontend?${query}`, headers: { authorization: frontend } });
        t.equal(res.body, body);
        t.equal(res.headers['cache-control'], 'no-cache');
        const again = await app.inject({ method: 'GET', url: `/api/frontend?${query}`, headers: { authorization: frontend, 'if-none-match': res.headers.etag } });
        t.equal(again.statusCode, 304);
        t.equal(again.body, '');
    });
    await t.test('/all lists disabled flags too', async (t) => {
        const res = await app.inject({ method: 'GET', url: '/api/frontend/all?userId=9', headers: { authorization: frontend } });
        const toggles = res.json().toggles;
        t.same(toggles.map((x) => [x.name, x.enabled]), [['alpha', false], ['beta', true], ['gamma', false]]);
        t.same(toggles[0].variant, { name: 'disabled', enabled: false, feature_enabled: false, featureEnabled: false });
    });
    await t.test('CORS: preflight without a token; headers on answers', async (t) => {
        const pre = await app.inject({
            method: 'OPTIONS', url: '/api/frontend',
            headers: { origin: 'http://x.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
        });
        t.equal(pre.statusCode, 204);
        t.equal(pre.headers['access-control-allow-origin'], '*');
        t.equal(pre.headers['access-control-allow-headers'], 'authorization');
        const res = await app.inject({ method: 'GET', url: '/api/frontend', headers: { authorization: frontend, origin: 'http://x.example' } });
        t.equal(res.headers['access-control-allow-origin'], '*');
        t.equal(res.headers['access-control-expose-headers'], 'ETag');
    });
    await t.test('metrics and register: 200 OK; counts reach the admin view', async (t) => {
        const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString();
        const reg = await app.inject({ method: 'POST', url: '/api/frontend/client/register', headers, payload: { appName: 'web', instanceId: 'b1', sdkVersion: 'unleash-client-js:3', environment: 'development', interval: 15000, started: hour, strategies: [] } });
        t.equal(reg.statusCode, 200);
        t.equal(reg.body, 'OK');
        t.equal((await app.inject({ method: 'POST', url: '/api/frontend/client/metrics', headers, payload: {} })).json().details[0].path, '/body/appName');
        const res = await app.inject({ method: 'POST', url: '/api/frontend/client/metrics', headers, payload: { appName: 'web', bucket: { start: hour, stop: hour, toggles: { beta: { yes: 3, no: 1, variants: { b1: 3 } } } } } });
        t.equal(res.statusCode, 200);
        const usage = (await app.inject({ method: 'GET', url: '/api/admin/client-metrics/features/beta', headers: ADMIN })).json();
        t.same(usage.lastHourUsage, [{ environment: 'development', timestamp: hour, yes: 3, no: 1 }]);
        t.same(usage.seenApplications, ['web']);
    });
});
t.test('FRONTEND_API_ORIGINS limits CORS to the listed origins', async (t) => {
    const app = await buildTestApp(t, { FRONTEND_API_ORIGINS: 'https://app.example, https://other.example' });
    const frontend = await createToken(app, 'frontend');
    const allowed = await app.inject({ method: 'GET', url: '/api/frontend', headers: { authorization: frontend, origin: 'https://app.example' } });
    t.equal(allowed.headers['access-control-allow-origin'], 'https://app.example');
    const denied = await app.inject({ method: 'GET', url: '/api/frontend', headers: { authorization: frontend, origin: 'https://evil.example' } });
    t.equal(denied.headers['access-control-allow-origin'], undefined);
    t.equal(denied.statusCode, 200, 'the answer itself is not refused (the browser enforces CORS)');
});
//# sourceMappingURL=routes.test.js.map