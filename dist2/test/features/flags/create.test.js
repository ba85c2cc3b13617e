import t from 'tap';
import { buildTestApp, JSON_ADMIN } from '../../helpers/app.js';
import { BASE, createFlag, eventsSince, lastEventId, send } from './helpers.js';
const SCHEMA_MESSAGE = 'Request validation failed: your request body or params contain invalid data. Refer to the `details` list for more information.';
t.test('flag creation (E4, docs/rules.md §6)', async (t) => {
    const app = await buildTestApp(t);
    await t.test('201 with the full resource, Unleash\'s eight keys first', async (t) => {
        const res = await createFlag(app, { name: 'peer.demo', type: 'release', description: 'd', impressionData: false });
        t.equal(res.statusCode, 201);
        t.notOk(res.headers.location);
        const body = res.json();
        t.same(Object.keys(body).slice(0, 8), ['name', 'description', 'type', 'project', 'stale', 'createdAt', 'impressionData', 'archived']);
        t.same(Object.keys(body).slice(8), ['environments', 'createdBy', 'dependencies', 'children', 'lifecycle', 'links', 'collaborators']);
        t.match(body, { name: 'peer.demo', description: 'd', type: 'release', project: 'default', stale: false, impressionData: false, archived: false });
        t.same(body.environments.map((e) => [e.name, e.enabled, e.strategies.length]), [['development', false, 0], ['production', false, 0]]);
        t.equal(body.lifecycle.stage, 'initial');
        t.same(body.createdBy.id, -42);
        t.equal(body.createdBy.name, 'Unleash Admin Token User');
        t.equal(body.createdBy.imageUrl, 'https://gravatar.com/avatar/3dc16570162d3b0b99d893698516645520622ab41162256213fb7b04eb969d84?s=42&d=retro&r=g');
    });
    await t.test('defaults: type release, description null ("" and null), impressionData false; name 123 → "123"', async (t) => {
        const a = (await createFlag(app, { name: 'def.a' })).json();
        t.equal(a.type, 'release');
        t.equal(a.description, null);
        t.equal(a.impressionData, false);
        t.equal((await createFlag(app, { name: 'def.b', description: '' })).json().description, null);
        t.equal((await createFlag(app, { name: 'def.c', description: null })).json().description, null);
        const n = await createFlag(app, { name: 123, type: 'sunset' });
        t.equal(n.statusCode, 201);
        t.equal(n.json().name, '123');
        t.equal(n.json().type, 'sunset');
        t.equal((await createFlag(app, { name: 'open.schema', whatever: { x: 1 }, stale: true })).json().stale, false, 'unknown keys ignored');
    });
    await t.test('name rules: exact messages, handler path', async (t) => {
        const cases = [
            ['', '"name" is not allowed to be empty.'],
            ['a'.repeat(101), `"name" length must be less than or equal to 100 characters long. You provided "${'a'.repeat(101)}".`],
            ['a b', '"name" must be URL friendly. You provided "a b".'],
            ['a/b', '"name" must be URL friendly. You provided "a/b".'],
            ['peer$demo!', '"name" must be URL friendly. You provided "peer$demo!".'],
            ['.', '"name" must be URL friendly. You provided ".".'],
            ['..', '"name" must be URL friendly. You provided "..".'],
        ];
        for (const [name, message] of cases) {
            const res = await createFlag(app, { name, type: 'release' });
            t.equal(res.statusCode, 400, String(name));
            const body = res.json();
            t.equal(body.name, 'ValidationError');
            t.equal(body.message, SCHEMA_MESSAGE);
            t.same(body.details, [{ message }]);
            t.match(body.id, /^[0-9a-f-]{36}$/);
        }
        t.equal((await createFlag(app, { name: 'a'.repeat(100) })).statusCode, 201);
        t.equal((await createFlag(app, { name: "a.b_c-d~!*'()" })).statusCode, 201);
    });
    await t.test('schema failures', async (t) => {
        const missing = await createFlag(app, { type: 'release' });
        t.equal(missing.statusCode, 400);
        t.same(missing.json().details, [{ path: '/body/name', message: 'The `/body/name` property is required. It was not present on the data you sent.' }]);
        const badType = await createFlag(app, { name: 'x.badtype', type: 'not-a-type' });
        t.equal(badType.statusCode, 400);
        t.equal(badType.json().details[0].path, 'type');
        const shortTag = await createFlag(app, { name: 'x.tag', tags: [{ type: 'simple', value: 'a' }] });
        t.equal(shortTag.statusCode, 400);
        t.equal(shortTag.json().details[0].message, 'The `/body/tags/0/value` property must NOT have fewer than 2 characters. You sent "a".');
        const longType = await createFlag(app, { name: 'x.tag', tags: [{ type: 'a'.repeat(51), value: 'ab' }] });
        t.equal(longType.statusCode, 400);
        const extraTagKey = await createFlag(app, { name: 'x.tag', tags: [{ type: 'simple', value: 'ab', x: 1 }] });
        t.equal(extraTagKey.statusCode, 400);
    });
    await t.test('409 across projects and for archived flags; checked before the project', async (t) => {
        const dup = await createFlag(app, { name: 'peer.demo' });
        t.equal(dup.statusCode, 409);
        t.equal(dup.json().name, 'NameExistsError');
        t.equal(dup.json().message, 'A flag with that name already exists');
        const otherProject = await createFlag(app, { name: 'peer.demo' }, 'nope');
        t.equal(otherProject.statusCode, 409, 'name checked before the project');
        t.equal((await createFlag(app, { name: 'to.archive' })).statusCode, 201);
        t.equal((await send(app, 'DELETE', `${BASE}/to.archive`)).statusCode, 202);
        const archived = await createFlag(app, { name: 'to.archive' });
        t.equal(archived.statusCode, 409);
        t.equal(archived.json().message, 'An archived flag with that name already exists');
    });
    await t.test('unknown project → 404', async (t) => {
        const res = await createFlag(app, { name: 'in.nowhere' }, 'nope');
        t.equal(res.statusCode, 404);
        t.equal(res.json().message, 'Active project with id nope does not exist');
    });
    await t.test('tags: unknown value created on the fly (D4), duplicates ignored, event order', async (t) => {
        const before = await lastEventId(app);
        const res = await createFlag(app, { name: 'peer.tagged', tags: [{ type: 'simple', value: 'peer-tag' }, { type: 'simple', value: 'peer-tag' }] });
        t.equal(res.statusCode, 201);
        const events = await eventsSince(app, before);
        t.same(events.map((e) => e.type), ['tag-created', 'feature-created']);
        t.same(events[0].data, { type: 'simple', value: 'peer-tag' });
        const created = events[1];
        t.same(created.tags, [{ value: 'peer-tag', type: 'simple' }]);
        t.same(Object.keys(created.data), ['name', 'description', 'type', 'project', 'stale', 'createdAt', 'impressionData', 'archived']);
        t.equal(created.featureName, 'peer.tagged');
        t.equal(created.project, 'default');
        t.equal(created.environment, null);
        t.equal(created.groupType, 'transaction');
        t.ok(created.groupId);
        t.equal(created.createdBy, 'admin');
        t.equal(created.createdByUserId, -42);
        t.equal(new Date(created.createdAt).toISOString(), res.json().createdAt, 'flag createdAt = event createdAt');
        const tags = await send(app, 'GET', '/api/admin/tags');
        t.same(tags.json().tags, [{ value: 'peer-tag', type: 'simple' }]);
        // the tag now exists: no second tag-created
        const before2 = await lastEventId(app);
        t.equal((await createFlag(app, { name: 'peer.tagged2', tags: [{ type: 'simple', value: 'peer-tag' }] })).statusCode, 201);
        t.same((await eventsSince(app, before2)).map((e) => e.type), ['feature-created']);
    });
    await t.test('unknown tag type → 400 naming it, nothing created', async (t) => {
        const before = await lastEventId(app);
        const res = await createFlag(app, { name: 'peer.badtag', tags: [{ type: 'simple', value: 'fresh' }, { type: 'nosuchtype', value: 'ab' }] });
        t.equal(res.statusCode, 400);
        t.equal(res.json().name, 'ValidationError');
        t.match(res.json().message, /nosuchtype/);
        t.same(await eventsSince(app, before), []);
        t.equal((await send(app, 'GET', `${BASE}/peer.badtag`)).statusCode, 404);
        t.notOk((await send(app, 'GET', '/api/admin/tags')).json().tags.some((tag) => tag.value === 'fresh'));
    });
    await t.test('~10 parallel creates of one name: exactly one 201', async (t) => {
        const results = await Promise.all(Array.from({ length: 10 }, () => createFlag(app, { name: 'race.flag' })));
        const codes = results.map((r) => r.statusCode).sort();
        t.same(codes, [201, ...Array(9).fill(409)]);
        const created = (await eventsSince(app, 0)).filter((e) => e.type === 'feature-created' && e.featureName === 'race.flag');
        t.equal(created.length, 1);
    });
    await t.test('no auth → 401; wrong content type → 415; malformed JSON → 400', async (t) => {
        const noAuth = await app.inject({ method: 'POST', url: BASE, headers: { 'content-type': 'application/json' }, payload: { name: 'x' } });
        t.equal(noAuth.statusCode, 401);
        const text = await app.inject({ method: 'POST', url: BASE, headers: { ...JSON_ADMIN, 'content-type': 'text/plain' }, payload: 'x' });
        t.equal(text.statusCode, 415);
        const bad = await app.inject({ method: 'POST', url: BASE, headers: JSON_ADMIN, payload: '{"name": "peer.bad",' });
        t.equal(bad.statusCode, 400);
    });
});
t.test('get flag (S3)', async (t) => {
    const app = await buildTestApp(t);
    await createFlag(app, { name: 'parent', description: 'd' });
    await createFlag(app, { name: 'child' });
    t.equal((await send(app, 'POST', `${BASE}/child/dependencies`, { feature: 'parent', enabled: true, variants: ['v1'] })).statusCode, 200);
    await t.test('key order and content', async (t) => {
        const res = await send(app, 'GET', `${BASE}/child`);
        t.equal(res.statusCode, 200);
        const body = res.json();
        t.same(Object.keys(body), [
            'environments', 'name', 'impressionData', 'description', 'project', 'stale', 'createdAt', 'createdBy', 'type',
            'archived', 'dependencies', 'children', 'lifecycle', 'links', 'collaborators',
        ]);
        t.same(Object.keys(body.environments[0]), ['name', 'lastSeenAt', 'enabled', 'yes', 'no', 'type', 'sortOrder', 'strategies']);
        t.same(body.dependencies, [{ feature: 'parent', enabled: true, variants: ['v1'] }]);
        t.same(body.collaborators.users, [body.createdBy]);
        const parent = (await send(app, 'GET', `${BASE}/parent`)).json();
        t.same(parent.children, ['child']);
    });
    await t.test('404 messages', async (t) => {
        const unknown = await send(app, 'GET', `${BASE}/nope`);
        t.equal(unknown.statusCode, 404);
        t.equal(unknown.json().name, 'NotFoundError');
        t.equal(unknown.json().message, 'There\'s no feature named "nope" in project "default".');
        t.equal((await send(app, 'POST', '/api/admin/projects', { id: 'other', name: 'Other' })).statusCode, 201);
        const elsewhere = await send(app, 'GET', '/api/admin/projects/other/features/parent');
        t.equal(elsewhere.statusCode, 404);
        t.equal(elsewhere.json().message, 'There\'s no feature named "parent" in project "other", but there\'s a feature with that name in project "default"');
    });
    await t.test('list flags of a project', async (t) => {
        const res = await send(app, 'GET', BASE);
        t.equal(res.statusCode, 200);
        t.same(res.json().features.map((f) => f.name), ['parent', 'child']);
    });
});
t.test('the flag routes are documented', async (t) => {
    const app = await buildTestApp(t);
    const res = await app.inject({ method: 'GET', url: '/docs/openapi.json' });
    t.equal(res.statusCode, 200);
    const paths = Object.keys(res.json().paths);
    for (const path of [
        '/api/admin/projects/{projectId}/features',
        '/api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/strategies/{strategyId}',
        '/api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/variants',
        '/api/admin/projects/{projectId}/features/{featureName}/dependencies',
        '/api/admin/archive/revive/{featureName}',
        '/api/admin/environments',
        '/api/admin/tags',
        '/api/admin/strategies',
    ])
        t.ok(paths.includes(path), path);
});
//# sourceMappingURL=create.test.js.map