import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, ADMIN, JSON_ADMIN } from '../../helpers/app.js';
import { fixture } from '../../helpers/samples.js';
import { EventSearchService } from '../../../src/features/events/service.js';
import { seedLog as seed } from './helpers.js';
import { FILTER_PATTERN, NUMERIC_FILTER_PATTERN } from '../../../src/features/events/schemas.js';

const sample = (file: string) => fixture(`events/${file}`);

const SCHEMA_MESSAGE =
  'Request validation failed: your request body or params contain invalid data. Refer to the `details` list for more information.';

/**
 * A search through the app (answered from the instance's copy of the log), checked against the
 * same search answered by the database (the path used while a log is backfilled): both must agree.
 */
async function search(app: FastifyInstance, qs: string) {
  const res = await app.inject({ method: 'GET', url: `/api/admin/search/events${qs ? `?${qs}` : ''}`, headers: ADMIN });
  if (res.statusCode === 200) {
    const fromDatabase = new EventSearchService(app.stores.eventLog, app.config.baseUrl, { fromDatabase: true });
    const expected = await fromDatabase.search(Object.fromEntries(new URLSearchParams(qs)), { allProjects: true });
    if (JSON.stringify(expected) !== JSON.stringify(res.json())) {
      throw new Error(`${qs}: the log mirror and the database disagree\n${res.body}\n${JSON.stringify(expected)}`);
    }
  }
  return res;
}

async function ids(app: FastifyInstance, qs: string): Promise<number[]> {
  const res = await search(app, qs);
  if (res.statusCode !== 200) throw new Error(`${qs}: ${res.statusCode} ${res.body}`);
  return res.json().events.map((e: { id: number }) => e.id);
}

const at = (iso: string) => new Date(iso);

t.test('fresh instance: events 1–5 as sample 65 shows them', async (t) => {
  const app = await buildTestApp(t, { INIT_ADMIN_API_TOKEN_NAME: 'peer-admin' });
  const expected = sample('65-events-search-limit-abc.json').response.body.events.filter((e: { id: number }) => e.id <= 5);
  const res = await search(app, 'limit=abc');
  t.equal(res.statusCode, 200);
  const body = res.json();
  t.same(Object.keys(body), ['events', 'total']);
  t.equal(body.total, 5);
  t.same(body.events.map((e: { id: number }) => e.id), [5, 4, 3, 2, 1]);
  for (const [i, event] of body.events.entries()) {
    const want = expected[i];
    t.same(Object.keys(event), Object.keys(want), `event ${event.id}: keys in Unleash's order`);
    const strip = (e: Record<string, unknown>) => {
      const { createdAt: _c, ...rest } = e;
      if (rest.data && typeof rest.data === 'object' && 'createdAt' in rest.data) {
        rest.data = { ...rest.data, createdAt: '' };
      }
      return rest;
    };
    t.same(strip(event), strip(want), `event ${event.id} matches Unleash apart from timestamps`);
    t.match(event.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  }
  t.equal(body.events[0].summary, '**unleash_system_user** created API token ****', 'the **** of api-token-created');
});

t.test('event search', async (t) => {
  const app = await buildTestApp(t);
  // Ids 1–5 are the fresh instance's (createdAt now); these are older, so they come after them.
  await seed(app, [
    { id: 6, type: 'feature-created', featureName: 'alpha', project: 'default', createdAt: at('2024-02-28T23:59:59.999Z'),
      data: { name: 'alpha', description: 'Peer thing' }, groupType: 'transaction', groupId: 'g-1' },
    { id: 7, type: 'feature-strategy-add', featureName: 'alpha', project: 'default', environment: 'development',
      createdAt: at('2024-02-29T00:00:00.000Z'), data: { name: 'flexibleRollout', title: '' }, groupType: 'transaction', groupId: 'g-2' },
    { id: 8, type: 'feature-environment-enabled', featureName: 'alpha', project: 'default', environment: 'development',
      createdAt: at('2024-02-29T12:00:00.000Z'), groupType: 'transaction', groupId: 'g-2' },
    { id: 9, type: 'feature-created', featureName: 'beta', project: 'other', createdAt: at('2024-03-01T00:00:00.000Z'),
      createdBy: 'someone@example.com', createdByUserId: 7, data: { name: 'beta' }, tags: [{ value: 'Peer_Tag', type: 'simple' }] },
    { id: 10, type: 'segment-created', createdAt: at('2024-03-01T00:00:00.000Z'), data: { id: 1, name: '50% off' } },
    { id: 11, type: 'tag-created', createdAt: at('2024-03-02T10:00:00.000Z'), createdByUserId: 7, data: { type: 'simple', value: 'a_b' } },
    { id: 12, type: 'feature-strategy-update', featureName: 'beta', project: 'other', environment: 'production',
      createdAt: at('2024-03-02T10:00:00.000Z'), createdByUserId: 7,
      data: { name: 'default', title: null, constraints: [], segments: [] },
      preData: { name: 'default', title: 'Old Title', constraints: [], segments: [1] } },
    // 60 old fillers (ids 13–72), one per day of 2020-01-…, to exercise paging.
    ...Array.from({ length: 60 }, (_, i) => ({
      id: 13 + i, type: 'filler', createdAt: new Date(Date.UTC(2020, 0, 1) + i * 86_400_000), createdByUserId: 1,
      data: { n: i },
    })),
  ]);
  const fillersDesc = Array.from({ length: 60 }, (_, i) => 72 - i);
  const all = [5, 4, 3, 2, 1, 12, 11, 10, 9, 8, 7, 6, ...fillersDesc];

  await t.test('order: createdAt desc, then id desc; total ignores paging', async (t) => {
    t.same(await ids(app, 'limit=1000'), all);
    const page = (await search(app, 'offset=3&limit=4')).json();
    t.same(page.events.map((e: { id: number }) => e.id), all.slice(3, 7));
    t.equal(page.total, 72);
  });

  await t.test('paging fallbacks: limit 0/abc/5000/-1 → 50, offset negative/abc → 0', async (t) => {
    for (const limit of ['0', 'abc', '5000', '-1', '']) {
      const body = (await search(app, `limit=${limit}`)).json();
      t.equal(body.events.length, 50, `limit=${limit}`);
      t.equal(body.total, 72);
    }
    t.equal((await ids(app, '')).length, 50, 'no limit → 50');
    t.equal((await ids(app, 'limit=1000')).length, 72, 'limit=1000 allowed');
    t.equal((await ids(app, 'limit=7')).length, 7);
    t.same(await ids(app, 'offset=-5&limit=3'), all.slice(0, 3));
    t.same(await ids(app, 'offset=abc&limit=3'), all.slice(0, 3));
    t.same(await ids(app, 'offset=70&limit=50'), all.slice(70));
    const past = (await search(app, 'offset=500')).json();
    t.same(past.events, []);
    t.equal(past.total, 72);
  });

  await t.test('IS and IS_ANY_OF on feature, project, type, environment (exact, case-sensitive, trimmed)', async (t) => {
    t.same(await ids(app, 'feature=IS:alpha'), [8, 7, 6]);
    t.equal((await search(app, 'feature=IS:alpha')).json().total, 3);
    t.same(await ids(app, 'feature=IS_ANY_OF:alpha,beta'), [12, 9, 8, 7, 6]);
    t.same(await ids(app, `feature=${encodeURIComponent('IS_ANY_OF: alpha , beta')}`), [12, 9, 8, 7, 6]);
    t.same(await ids(app, 'feature=IS:alpha,beta'), [12, 9, 8, 7, 6], 'IS with a list means any of them too');
    t.same(await ids(app, 'feature=IS:Alpha'), []);
    t.same(await ids(app, 'feature=IS:alp'), [], 'not a substring match');
    t.equal((await search(app, 'feature=IS:')).json().total, 72, 'IS: with nothing after it is ignored');
    t.same(await ids(app, 'project=IS:other'), [12, 9]);
    t.same(await ids(app, `project=${encodeURIComponent('IS:*')}`), [5]);
    t.same(await ids(app, 'type=IS_ANY_OF:feature-created,segment-created'), [10, 9, 6]);
    t.same(await ids(app, 'type=IS:strategy-created'), [4, 3, 2, 1]);
    t.same(await ids(app, 'environment=IS:development'), [8, 7]);
  });

  await t.test('createdBy, id, groupId', async (t) => {
    t.same(await ids(app, 'createdBy=IS:7'), [12, 11, 9]);
    t.same(await ids(app, 'createdBy=IS:-1337'), [5]);
    t.same(await ids(app, 'createdBy=IS:-42'), [10, 8, 7, 6]);
    t.same(await ids(app, 'createdBy=IS:abc'), [], 'a non-numeric piece matches nothing');
    t.same(await ids(app, 'createdBy=IS_ANY_OF:abc,7'), [12, 11, 9]);
    t.same(await ids(app, 'id=IS:7'), [7]);
    t.same(await ids(app, 'id=IS_ANY_OF:6,8,999'), [8, 6]);
    t.same(await ids(app, 'id=IS:x'), []);
    t.same(await ids(app, 'groupId=IS:g-2'), [8, 7]);
    t.same(await ids(app, 'groupId=IS_ANY_OF:g-1,g-2'), [8, 7, 6]);
    t.same(await ids(app, 'groupId=IS:1'), []);
  });

  await t.test('from/to: whole UTC days, both inclusive', async (t) => {
    t.same(await ids(app, 'from=IS:2024-02-29&to=IS:2024-02-29'), [8, 7]);
    t.same(await ids(app, 'from=IS:2024-02-28&to=IS:2024-02-28'), [6], '23:59:59.999 is still that day');
    t.same(await ids(app, 'from=IS:2024-03-01&to=IS:2024-03-02'), [12, 11, 10, 9]);
    t.same(await ids(app, 'from=IS:2024-01-01&limit=1000'), [5, 4, 3, 2, 1, 12, 11, 10, 9, 8, 7, 6]);
    t.same(await ids(app, 'to=IS:2020-01-02'), [14, 13]);
    t.same(await ids(app, 'type=IS:feature-created&from=IS:2024-03-01'), [9], 'filters combine with AND');
    t.same(await ids(app, 'from=IS:2024-03-03&to=IS:2024-03-01'), []);
  });

  await t.test('400s: patterns, impossible dates, repeated parameters', async (t) => {
    const noOperator = await search(app, 'from=2020-01-01');
    t.equal(noOperator.statusCode, 400);
    const expected = sample('67-events-search-from-without-operator.json').response.body;
    t.equal(noOperator.json().name, 'ValidationError');
    t.equal(noOperator.json().message, expected.message);
    t.same(noOperator.json().details, expected.details);

    const feature = await search(app, 'feature=alpha');
    t.equal(feature.statusCode, 400);
    t.same(feature.json().details, [{
      message: `The \`/query/feature\` property must match pattern "${FILTER_PATTERN}". You sent "alpha".`, path: '/query/feature',
    }]);
    for (const param of ['project', 'type', 'environment', 'createdBy']) {
      const res = await search(app, `${param}=EQ:x`);
      t.equal(res.statusCode, 400, param);
      t.equal(res.json().details[0].path, `/query/${param}`);
    }
    for (const param of ['id', 'groupId']) {
      const res = await search(app, `${param}=7`);
      t.equal(res.statusCode, 400, param);
      t.equal(res.json().details[0].message, `The \`/query/${param}\` property must match pattern "${NUMERIC_FILTER_PATTERN}". You sent "7".`);
    }
    t.equal((await search(app, 'feature=IS:any.thing-goes%20here')).statusCode, 200, 'the lazy (.*?) lets anything through');
    t.equal((await search(app, 'to=IS:2024-1-01')).statusCode, 400);

    for (const bad of ['IS:2024-02-30', 'IS:2023-02-29', 'IS:2024-13-01', 'IS:2024-00-10', 'IS:2024-04-31']) {
      const res = await search(app, `from=${bad}`);
      t.equal(res.statusCode, 400, bad);
      t.equal(res.json().message, SCHEMA_MESSAGE);
      t.same(res.json().details, [{ message: `The \`/query/from\` property must be a valid calendar date. You sent "${bad}".`, path: '/query/from' }]);
    }
    t.equal((await search(app, 'to=IS:2024-02-31')).json().details[0].path, '/query/to');
    t.equal((await search(app, 'from=IS:2024-02-29')).statusCode, 200, 'leap day exists');
    t.equal((await search(app, 'from=IS:0099-01-01')).statusCode, 200);

    const repeated = await search(app, 'type=IS:a&type=IS:b');
    t.equal(repeated.statusCode, 400);
    t.same(repeated.json().details, [{ message: 'The `/query/type` property must be string. You sent ["IS:a","IS:b"].', path: '/query/type' }]);
  });

  await t.test('query: case-insensitive substring of data, tags or preData JSON, with % and _ wildcards', async (t) => {
    t.same(await ids(app, 'query=peer'), [9, 6], 'data (description) and tags (Peer_Tag)');
    t.same(await ids(app, 'query=PEER'), [9, 6]);
    t.same(await ids(app, 'query=alpha'), [6], 'not matched against featureName: the enabled event (data null) does not match');
    t.same(await ids(app, 'query=feature-created'), [], 'not matched against the type');
    t.same(await ids(app, 'query=someone'), [], 'not matched against createdBy');
    t.same(await ids(app, 'query=old%20title'), [12], 'preData');
    t.same(await ids(app, `query=${encodeURIComponent('"name":"beta"')}`), [9], 'compact JSON text');
    // The fresh instance's events (ids 1–5) carry creation timestamps whose digits may contain
    // "50" (e.g. created at 07:50): only this file's own events are asserted on for a digit query.
    const ownEvents = (found: number[]) => found.filter((id) => id > 5);
    t.same(ownEvents(await ids(app, `query=${encodeURIComponent('50%')}`)), [10, 63], '"50% off" and {"n":50}');
    t.same(await ids(app, `query=${encodeURIComponent('50\\% off')}`), [10], 'escaped % is literal');
    t.same(await ids(app, `query=${encodeURIComponent('5\\%')}`), [], '"5%" does not occur literally');
    t.same(await ids(app, `query=${encodeURIComponent('"a_b"')}`), [11]);
    t.same(await ids(app, `query=${encodeURIComponent('"a\\_b"')}`), [11]);
    t.same(await ids(app, `query=${encodeURIComponent('"a\\_c"')}`), []);
    t.same(await ids(app, `query=${encodeURIComponent('"n":1_}')}`), [32, 31, 30, 29, 28, 27, 26, 25, 24, 23], '_ is exactly one character: 10–19');
    t.same(await ids(app, `query=${encodeURIComponent('peer%thing')}`), [6], '% inside one text');
    t.same(await ids(app, `query=${encodeURIComponent('"beta"%peer_tag')}`), [], 'a wildcard never spans data and tags');
    t.same(await ids(app, `query=${encodeURIComponent('(.*)[')}`), [], 'regex characters are literal');
    t.equal((await search(app, `query=${encodeURIComponent('%')}&limit=1000`)).json().total, 72 - 1, 'only the event without data, preData and tags is left out');
    t.same(await ids(app, 'query=peer&type=IS:feature-created&project=IS:other'), [9]);
  });

  await t.test('event objects: key order, groupType/groupId only on transactional events', async (t) => {
    const body = (await search(app, 'id=IS_ANY_OF:6,9')).json();
    const [nine, six] = body.events;
    t.same(Object.keys(six), ['id', 'type', 'createdBy', 'createdAt', 'createdByUserId', 'data', 'preData', 'tags', 'featureName', 'project', 'environment', 'groupType', 'groupId', 'label', 'summary']);
    t.same(Object.keys(nine), ['id', 'type', 'createdBy', 'createdAt', 'createdByUserId', 'data', 'preData', 'tags', 'featureName', 'project', 'environment', 'label', 'summary']);
    t.equal(six.createdAt, '2024-02-28T23:59:59.999Z');
    t.equal(six.groupType, 'transaction');
    t.equal(six.groupId, 'g-1');
    t.same(nine.tags, [{ value: 'Peer_Tag', type: 'simple' }]);
    t.equal(nine.label, 'Flag created');
    t.equal(nine.summary, '**someone@example.com** created **[beta](http://localhost:4242/projects/other/features/beta)** in project **[other](http://localhost:4242/projects/other)**');
    const update = (await search(app, 'id=IS:12')).json().events[0];
    t.equal(update.summary, '**admin** updated **[beta](http://localhost:4242/projects/other/features/beta)** in project **[other](http://localhost:4242/projects/other)** by updating strategy **Old Title** in **production** segments from (1) to empty set of segments');
  });

  await t.test('callers that are not root admins see only events of a project', async (t) => {
    const limited = await app.services.events.search({ limit: '1000' }, { allProjects: false });
    t.same(limited.events.map((e) => e.id), [5, 12, 9, 8, 7, 6]);
    t.equal(limited.total, 6);
    const fromDatabase = new EventSearchService(app.stores.eventLog, app.config.baseUrl, { fromDatabase: true });
    t.same(await fromDatabase.search({ limit: '1000' }, { allProjects: false }), limited, 'the database path agrees');
    const admin = await app.services.events.search({ limit: '1' }, { allProjects: true });
    t.equal(admin.total, 72);
  });

  await t.test('authentication', async (t) => {
    const none = await app.inject({ method: 'GET', url: '/api/admin/search/events' });
    t.equal(none.statusCode, 401);
    t.equal(none.json().name, 'AuthenticationRequired');
    const token = await app.inject({
      method: 'POST', url: '/api/admin/api-tokens', headers: JSON_ADMIN, payload: { type: 'client', tokenName: 'c' },
    });
    const client = await app.inject({ method: 'GET', url: '/api/admin/search/events?limit=1', headers: { authorization: token.json().secret } });
    t.equal(client.statusCode, 403);
    t.equal(client.json().message, sample('69-events-search-client-token.json').response.body.message);
  });
});

t.test('events written through the app are searchable at once', async (t) => {
  const app = await buildTestApp(t, { BASE_URL: 'https://flags.example.com/' });
  const created = await app.inject({ method: 'POST', url: '/api/admin/segments', headers: JSON_ADMIN, payload: { name: 'Seg-A', constraints: [] } });
  t.equal(created.statusCode, 201);
  await app.inject({ method: 'PUT', url: '/api/admin/segments/1', headers: JSON_ADMIN, payload: { name: 'Seg-B', constraints: [] } });
  await app.inject({ method: 'DELETE', url: '/api/admin/segments/1', headers: ADMIN });
  const body = (await search(app, 'type=IS_ANY_OF:segment-created,segment-updated,segment-deleted')).json();
  t.equal(body.total, 3);
  t.same(body.events.map((e: { summary: string }) => e.summary), [
    '**admin** deleted segment **Seg-B**',
    '**admin** updated segment **Seg-A**',
    '**admin** created segment **Seg-A**',
  ]);
  t.same(body.events.map((e: { label: string }) => e.label), ['Segment deleted', 'Segment updated', 'Segment created']);
  t.same(body.events.map((e: { id: number }) => e.id), [8, 7, 6]);
  t.same(await ids(app, 'query=seg-b'), [8, 7]);
  const created2 = await app.inject({ method: 'POST', url: '/api/admin/api-tokens', headers: JSON_ADMIN, payload: { type: 'client', tokenName: 'c' } });
  t.equal(created2.statusCode, 201);
  const tokenEvent = (await search(app, 'limit=1')).json().events[0];
  t.equal(tokenEvent.type, 'api-token-created');
  t.equal(tokenEvent.summary, '**admin** created API token ****');
  t.equal(tokenEvent.project, '*');
  t.equal(tokenEvent.environment, 'development');
  t.notOk('groupType' in tokenEvent);
  const indexes = (await app.database.db.collection('events').listIndexes().toArray()).map((i) => i.name);
  // Only where the server reads through them: FerretDB does not (DatabaseSearch.init).
  for (const name of ['created_desc', 'type_created_desc', 'feature_created_desc', 'project_created_desc', 'user_created_desc']) {
    t.equal(indexes.includes(name), !app.database.outbox.isFerretDB, `index ${name}`);
  }
  t.ok(indexes.includes('id_unique'), 'the unique id index appending relies on');
});
