import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { eventsSince, lastEventId, send } from '../flags/helpers.js';

t.test('tags and tag types (S10)', async (t) => {
  const app = await buildTestApp(t);

  await t.test('create a tag: 201, Location, event; type defaults to simple; value trimmed', async (t) => {
    const before = await lastEventId(app);
    const res = await send(app, 'POST', '/api/admin/tags', { type: 'simple', value: 'peer-tag' });
    t.equal(res.statusCode, 201);
    t.equal(res.headers.location, 'tags/simple/peer-tag');
    t.same(res.json(), { version: 1, tag: { type: 'simple', value: 'peer-tag' } });
    const events = await eventsSince(app, before);
    t.same(events.map((e) => [e.type, e.data]), [['tag-created', { type: 'simple', value: 'peer-tag' }]]);
    t.notOk(events[0]!.groupType);
    const trimmed = await send(app, 'POST', '/api/admin/tags', { value: '  spaced  ' });
    t.same(trimmed.json().tag, { type: 'simple', value: 'spaced' });
    t.same((await send(app, 'GET', '/api/admin/tags')).json(), {
      version: 1, tags: [{ value: 'peer-tag', type: 'simple' }, { value: 'spaced', type: 'simple' }],
    });
  });

  await t.test('errors: duplicate 409, lengths 400, unknown type 400', async (t) => {
    const dup = await send(app, 'POST', '/api/admin/tags', { type: 'simple', value: 'peer-tag' });
    t.equal(dup.statusCode, 409);
    t.equal(dup.json().name, 'NameExistsError');
    t.equal((await send(app, 'POST', '/api/admin/tags', { value: 'a' })).statusCode, 400);
    t.equal((await send(app, 'POST', '/api/admin/tags', { value: 'a'.repeat(51) })).statusCode, 400);
    t.equal((await send(app, 'POST', '/api/admin/tags', { type: 'x', value: 'ab' })).statusCode, 400);
    const unknown = await send(app, 'POST', '/api/admin/tags', { type: 'nosuch', value: 'ab' });
    t.equal(unknown.statusCode, 400);
    t.match(unknown.json().message, /nosuch/);
  });

  await t.test('tag types: list, create, use', async (t) => {
    t.same((await send(app, 'GET', '/api/admin/tag-types')).json(), {
      version: 1, tagTypes: [{ name: 'simple', description: 'Used to simplify filtering of features', icon: '#', color: '#FFFFFF' }],
    });
    const before = await lastEventId(app);
    const res = await send(app, 'POST', '/api/admin/tag-types', { name: 'team', description: 'Owning team' });
    t.equal(res.statusCode, 201);
    // Unleash 8.2 answers and records the keys it was sent (measured: no `icon` unless given).
    t.same(res.json(), { name: 'team', description: 'Owning team' });
    t.same((await eventsSince(app, before)).map((e) => [e.type, e.data]), [['tag-type-created', { name: 'team', description: 'Owning team' }]]);
    const bare = await send(app, 'POST', '/api/admin/tag-types', { name: 'bare' });
    t.same(bare.json(), { name: 'bare' });
    const coloured = await send(app, 'POST', '/api/admin/tag-types', { name: 'coloured', description: 'd', color: '#FF0000' });
    t.same(coloured.json(), { name: 'coloured', description: 'd', color: '#FF0000' });
    t.equal((await send(app, 'POST', '/api/admin/tag-types', { name: 'team' })).statusCode, 409);
    t.equal((await send(app, 'POST', '/api/admin/tags', { type: 'team', value: 'core' })).statusCode, 201);
  });
});
