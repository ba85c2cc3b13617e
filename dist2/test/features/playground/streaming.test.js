import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { advanced, createEnabledFlag } from './helpers.js';
t.test('above the stream threshold the answer is streamed in the same JSON shape', async (t) => {
    const env = { PLAYGROUND_EVALUATION_LIMIT: '100000', PLAYGROUND_STREAM_THRESHOLD: '100' };
    const streaming = await buildTestApp(t, env);
    const buffered = await buildTestApp(t, { PLAYGROUND_EVALUATION_LIMIT: '100000', PLAYGROUND_STREAM_THRESHOLD: '100000' });
    for (const app of [streaming, buffered]) {
        await createEnabledFlag(app, 'parent');
        await createEnabledFlag(app, 'child');
        await createEnabledFlag(app, '42');
        await app.inject({
            method: 'POST', url: '/api/admin/projects/default/features/child/dependencies',
            headers: { authorization: '*:*.test-admin-token', 'content-type': 'application/json' }, payload: { feature: 'parent' },
        });
    }
    const context = { appName: 'a', userId: Array.from({ length: 2500 }, (_, i) => `u${i}`).join(','), sessionId: 's1,s2' };
    const big = await advanced(streaming, context, { environments: ['development', 'production'] });
    const small = await advanced(buffered, context, { environments: ['development', 'production'] });
    t.equal(big.statusCode, 200);
    t.notOk(big.headers['content-length'], 'streamed (no length known up front)');
    t.ok(small.headers['content-length'], 'buffered below the threshold');
    const strip = (body) => body.replace(/"id":"[^"]+"/g, '"id":"<id>"').replace(/strategyId=[^"]+/g, 'strategyId=<id>');
    t.equal(small.statusCode, 200);
    t.ok(strip(big.body) === strip(small.body), 'byte-identical apart from generated strategy ids');
    const json = big.json();
    t.same(json.features.map((f) => f.name), ['42', 'child', 'parent']);
    t.equal(json.features[1].environments.development.length, 5000);
    t.equal(json.features[1].environments.development[0].hasUnsatisfiedDependency, false, 'parents evaluated for the streamed child');
});
//# sourceMappingURL=streaming.test.js.map