/**
 * A flag's tags by flag name, as Unleash 8.2's feature-tag routes answer and record them (the
 * events measured on the reference: a repeated tag or untag still records its event; an untag
 * carries the tags before it with their colour; bulk adds known tags before creating new ones).
 */
import t from 'tap';
import { ADMIN, JSON_ADMIN, buildTestApp, eventsAfter, lastEventId, send } from '../../helpers/app.js';
import { ORIGIN, asPerson, roleCookies } from '../../helpers/sessions.js';

const TAGS = '/api/admin/features/tagged/tags';
const white = (value: string) => ({ type: 'simple', value, color: '#FFFFFF' });
const plain = (value: string) => ({ value, type: 'simple' });

t.test('tag, untag and bulk-update a flag, with the events Unleash records', async (t) => {
  const app = await buildTestApp(t);
  t.equal((await send(app, 'POST', '/api/admin/projects/default/features', { name: 'tagged' })).statusCode, 201);
  let after = await lastEventId(app);

  const added = await app.inject({ method: 'POST', url: TAGS, headers: JSON_ADMIN, payload: { type: 'simple', value: 'beta' } });
  t.equal(added.statusCode, 201);
  t.equal(added.headers.location, 'tagged/tags');
  t.same(added.json(), { type: 'simple', value: 'beta' });
  t.same((await eventsAfter(app, after)).map((e) => [e.type, e.data, e.tags, e.featureName, e.project]), [
    ['tag-created', { type: 'simple', value: 'beta' }, [], null, null],
    ['feature-tagged', { type: 'simple', value: 'beta' }, [plain('beta')], 'tagged', 'default'],
  ]);

  after = await lastEventId(app);
  t.equal((await app.inject({ method: 'POST', url: TAGS, headers: JSON_ADMIN, payload: { type: 'simple', value: 'beta' } })).statusCode, 201, 'again');
  await send(app, 'POST', TAGS, { type: 'simple', value: '  alpha  ' });
  const list = await app.inject({ url: TAGS, headers: ADMIN });
  t.same(list.json(), { version: 1, tags: [white('  alpha  '), white('beta')] }, 'by type then value, untrimmed, with the colour');
  t.same((await eventsAfter(app, after)).map((e) => e.type), ['feature-tagged', 'tag-created', 'feature-tagged'], 'a repeated tag records its event');

  after = await lastEventId(app);
  const removed = await app.inject({ method: 'DELETE', url: `${TAGS}/simple/beta`, headers: ADMIN });
  t.equal(removed.statusCode, 200);
  t.equal((await app.inject({ method: 'DELETE', url: `${TAGS}/simple/beta`, headers: ADMIN })).statusCode, 200, 'a tag it does not have');
  t.same((await eventsAfter(app, after)).map((e) => [e.type, e.data, e.preData, e.tags]), [
    ['feature-untagged', null, { type: 'simple', value: 'beta' }, [white('  alpha  '), white('beta')]],
    ['feature-untagged', null, { type: 'simple', value: 'beta' }, [white('  alpha  ')]],
  ]);

  after = await lastEventId(app);
  const bulk = await app.inject({
    method: 'PUT', url: TAGS, headers: JSON_ADMIN,
    payload: { addedTags: [{ type: 'simple', value: 'gamma' }, { type: 'simple', value: '  alpha  ' }], removedTags: [{ type: 'simple', value: '  alpha  ' }] },
  });
  t.equal(bulk.statusCode, 200);
  t.same(bulk.json(), { version: 1, tags: [white('gamma')] }, 'added first, then removed');
  t.same((await eventsAfter(app, after)).map((e) => [e.type, (e.data ?? e.preData) as object, e.tags]), [
    ['feature-tagged', { type: 'simple', value: '  alpha  ' }, [plain('  alpha  ')]],
    ['tag-created', { type: 'simple', value: 'gamma' }, []],
    ['feature-tagged', { type: 'simple', value: 'gamma' }, [plain('  alpha  '), plain('gamma')]],
    ['feature-untagged', { type: 'simple', value: '  alpha  ' }, [white('  alpha  '), white('gamma')]],
  ]);
});

t.test('bad input and unknown flags, answered before anything is written', async (t) => {
  const app = await buildTestApp(t);
  await send(app, 'POST', '/api/admin/projects/default/features', { name: 'tagged' });
  const after = await lastEventId(app);
  const cases: Array<[string, string, unknown, number, RegExp]> = [
    ['POST', TAGS, { type: 'nope', value: 'xx' }, 400, /Tag type 'nope' does not exist/],
    ['POST', TAGS, { type: 'Bad Type', value: 'xx' }, 400, /\\"type\\" must be URL friendly/],
    ['POST', TAGS, { type: 'simple', value: 'x' }, 400, /\/body\/value/],
    ['POST', TAGS, { value: 'xx' }, 400, /\/body\/type/],
    ['PUT', TAGS, { addedTags: [] }, 400, /\/body\/removedTags/],
    ['PUT', TAGS, { addedTags: [{ type: 'nope', value: 'xx' }], removedTags: [] }, 400, /Tag type 'nope' does not exist/],
    ['POST', '/api/admin/features/nope/tags', { type: 'simple', value: 'xx' }, 404, /No feature flag found/],
    ['PUT', '/api/admin/features/nope/tags', { addedTags: [], removedTags: [] }, 404, /No feature flag found/],
    ['DELETE', '/api/admin/features/nope/tags/simple/xx', undefined, 404, /No feature flag found/],
    ['GET', '/api/admin/features/nope/tags', undefined, 404, /Could not find feature with name nope/],
  ];
  for (const [method, url, payload, status, message] of cases) {
    const res = await send(app, method, url, payload);
    t.equal(res.statusCode, status, `${method} ${url} ${JSON.stringify(payload)}`);
    t.match(res.body, message, 'named in the message or its details');
  }
  t.same(await eventsAfter(app, after), [], 'nothing recorded');
});

t.test('Viewers read a flag\'s tags; Editors change them', async (t) => {
  const app = await buildTestApp(t);
  await send(app, 'POST', '/api/admin/projects/default/features', { name: 'tagged' });
  const { viewer, editor } = await roleCookies(app);
  t.equal((await app.inject({ url: TAGS, headers: { cookie: viewer } })).statusCode, 200);
  const refused = await app.inject({ method: 'POST', url: TAGS, headers: asPerson(viewer), payload: { type: 'simple', value: 'xx' } });
  t.equal(refused.statusCode, 403);
  t.match(refused.json().message, /UPDATE_FEATURE/);
  t.equal((await app.inject({ method: 'POST', url: TAGS, headers: asPerson(editor), payload: { type: 'simple', value: 'xx' } })).statusCode, 201);
  t.equal((await app.inject({ method: 'DELETE', url: `${TAGS}/simple/xx`, headers: { cookie: editor, origin: ORIGIN } })).statusCode, 200);
});
