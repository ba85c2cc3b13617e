import t from 'tap';
import { buildApp } from '../../../src/app.js';
import { buildTestApp, ADMIN, JSON_ADMIN } from '../../helpers/app.js';
const SEARCH = '/api/admin/search/events?type=IS:api-token-created&limit=50';
t.test('cached event searches still see every write: own at once, another instance within a second', async (t) => {
    const a = await buildTestApp(t, { REVISION_POLL_MS: '100' });
    const b = await buildApp(a.config, { logger: false });
    t.teardown(() => b.close());
    const count = async (app) => (await app.inject({ url: SEARCH, headers: ADMIN })).json().total;
    const before = await count(b);
    t.equal(await count(b), before, 'a repeated search (served from the cache) answers the same');
    const created = await b.inject({ method: 'POST', url: '/api/admin/api-tokens', headers: JSON_ADMIN, payload: { tokenName: 'on-b', type: 'client' } });
    t.equal(created.statusCode, 201);
    t.equal(await count(b), before + 1, "the instance's own write is visible at once");
    await a.inject({ method: 'POST', url: '/api/admin/api-tokens', headers: JSON_ADMIN, payload: { tokenName: 'on-a', type: 'client' } });
    const deadline = Date.now() + 1000;
    let seen = await count(b);
    while (seen !== before + 2 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 25));
        seen = await count(b);
    }
    t.equal(seen, before + 2, "another instance's write is visible within a second");
});
//# sourceMappingURL=cache.test.js.map