/** One tag type and one tag: read, change, validate, delete (cascading onto flags), as Unleash 8.2 answers (measured). */
import t from 'tap';
import { ADMIN, buildTestApp, eventsAfter, lastEventId, send } from '../../helpers/app.js';

t.test('tag types: get, validate, update, delete with their tags, off every flag', async (t) => {
  const app = await buildTestApp(t);
  await send(app, 'POST', '/api/admin/tag-types', { name: 'team', description: 'first', icon: 'i' });
  t.same((await send(app, 'GET', '/api/admin/tag-types/team')).json(), { version: 1, tagType: { name: 'team', description: 'first', icon: 'i', color: null } });
  const missing = await send(app, 'GET', '/api/admin/tag-types/nope');
  t.equal(missing.statusCode, 404);
  t.equal(missing.json().message, 'Could not find tag-type');

  t.same((await send(app, 'POST', '/api/admin/tag-types/validate', { name: 'other' })).json(), { valid: true, tagType: { name: 'other' } });
  const taken = await send(app, 'POST', '/api/admin/tag-types/validate', { name: 'team' });
  t.equal(taken.statusCode, 409);
  t.equal(taken.json().message, 'There already exists a tag-type with the name team');
  t.equal((await send(app, 'POST', '/api/admin/tag-types/validate', { name: 'bad name' })).statusCode, 400);

  for (const color of ['red', '#FFF', '#00ff0']) {
    for (const [method, url] of [['POST', '/api/admin/tag-types'], ['PUT', '/api/admin/tag-types/team']] as const) {
      const refused = await send(app, method, url, { name: 'coloured', color });
      t.equal(refused.statusCode, 400, `${method} colour ${color}: six hex digits only (Unleash 8.2)`);
      t.equal(refused.json().details.length, 1, 'one detail, as Unleash');
      t.match(JSON.stringify(refused.json().details), /\/body\/color/, 'the details name the field');
    }
  }

  let after = await lastEventId(app);
  const updated = await send(app, 'PUT', '/api/admin/tag-types/team', { description: 'changed', icon: null, color: '#00ff00' });
  t.equal(updated.statusCode, 200);
  t.equal(updated.body, '');
  t.same((await send(app, 'GET', '/api/admin/tag-types/team')).json().tagType, { name: 'team', description: 'changed', icon: '', color: '#00ff00' });
  t.equal((await send(app, 'PUT', '/api/admin/tag-types/nope', { description: 'x' })).statusCode, 200, 'an unknown type: 200, nothing changed');
  t.equal((await send(app, 'PUT', '/api/admin/tag-types/team', {})).statusCode, 400, 'nothing to change (Unleash: 500)');
  t.same((await eventsAfter(app, after)).map((e) => [e.type, e.data]), [
    ['tag-type-updated', { name: 'team', description: 'changed', icon: '', color: '#00ff00' }],
    ['tag-type-updated', { name: 'nope', description: 'x' }],
  ]);

  await send(app, 'POST', '/api/admin/projects/default/features', { name: 'tagged' });
  await send(app, 'PUT', '/api/admin/features/tagged/tags', { addedTags: [{ type: 'team', value: 'core' }, { type: 'simple', value: 'keep' }], removedTags: [] });
  after = await lastEventId(app);
  t.equal((await send(app, 'DELETE', '/api/admin/tag-types/team')).statusCode, 200);
  t.same((await send(app, 'GET', '/api/admin/features/tagged/tags')).json().tags, [{ type: 'simple', value: 'keep', color: '#FFFFFF' }], 'its tags left the flag');
  t.same((await send(app, 'GET', '/api/admin/tags/team')).json().tags, [], 'its tags are gone');
  const events = await eventsAfter(app, after);
  t.same(events.map((e) => e.type), ['tag-type-deleted'], 'the cascade records nothing else');
  t.same(Object.keys(events[0]!.preData as object), ['icon', 'name', 'color', 'description'], 'preData in jsonb key order');
  t.equal((await send(app, 'DELETE', '/api/admin/tag-types/team')).statusCode, 404);
});

t.test('one tag: get, delete (recorded even when absent), off every flag', async (t) => {
  const app = await buildTestApp(t);
  await send(app, 'POST', '/api/admin/projects/default/features', { name: 'tagged' });
  await send(app, 'POST', '/api/admin/features/tagged/tags', { type: 'simple', value: 'gone' });
  t.same((await app.inject({ url: '/api/admin/tags/simple/gone', headers: ADMIN })).json(), { version: 1, tag: { type: 'simple', value: 'gone' } });
  const missing = await app.inject({ url: '/api/admin/tags/simple/nope', headers: ADMIN });
  t.equal(missing.statusCode, 404);
  t.equal(missing.json().message, 'No tag with type: [simple] and value [nope]');
  const after = await lastEventId(app);
  t.equal((await send(app, 'DELETE', '/api/admin/tags/simple/gone')).statusCode, 200);
  t.equal((await send(app, 'DELETE', '/api/admin/tags/simple/gone')).statusCode, 200);
  t.same((await send(app, 'GET', '/api/admin/features/tagged/tags')).json().tags, []);
  t.same((await eventsAfter(app, after)).map((e) => [e.type, e.data]), [
    ['tag-deleted', { type: 'simple', value: 'gone' }], ['tag-deleted', { type: 'simple', value: 'gone' }],
  ]);
});
