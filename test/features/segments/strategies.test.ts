import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, eventsAfter, lastEventId, send } from '../../helpers/app.js';
import { fixture, vaneError } from '../../helpers/samples.js';
import { asPerson, roleCookies } from '../../helpers/sessions.js';

/** Answers of Unleash 8.2 to the strategy-segment routes (segments 3 and 6, one strategy in production). */
const recorded = fixture('segments/strategy-segments.json') as Record<string, {
  request: { body: Record<string, unknown> | null }; status: number; body: unknown; location?: string;
}>;

const SET = '/api/admin/segments/strategies';

async function segment(app: FastifyInstance, name: string): Promise<number> {
  return (await send(app, 'POST', '/api/admin/segments', { name, constraints: [] })).json().id;
}

/** A flag with one production strategy using `segments`; its strategy id. */
async function flagWithStrategy(app: FastifyInstance, name: string, segments: number[]): Promise<string> {
  t.equal((await send(app, 'POST', '/api/admin/projects/default/features', { name })).statusCode, 201);
  const res = await send(app, 'POST', `/api/admin/projects/default/features/${name}/environments/production/strategies`, { name: 'default', segments });
  return res.json().id;
}

t.test('strategy segments', async (t) => {
  const app = await buildTestApp(t);
  const first = await segment(app, 'first');
  const second = await segment(app, 'second');
  const strategyId = await flagWithStrategy(app, 'uses-first', [first]);
  await flagWithStrategy(app, 'archived-user', [first]);
  t.equal((await send(app, 'DELETE', '/api/admin/projects/default/features/archived-user')).statusCode, 202);

  await t.test('strategies of a segment: live flags only, keys as Unleash', async (t) => {
    const res = await send(app, 'GET', `/api/admin/segments/${first}/strategies`);
    t.equal(res.statusCode, 200);
    t.same(res.json(), {
      strategies: [{ id: strategyId, projectId: 'default', featureName: 'uses-first', strategyName: 'default', environment: 'production' }],
      changeRequestStrategies: [],
    });
    const expected = recorded.strategiesOfSegment!.body as { strategies: object[] };
    t.same(Object.keys(res.json().strategies[0]), Object.keys(expected.strategies[0]!));
    const unknown = await send(app, 'GET', '/api/admin/segments/999999/strategies');
    t.equal(unknown.statusCode, 404);
    t.same({ ...unknown.json(), id: undefined }, { ...vaneError(recorded.strategiesOfUnknownSegment!.body as Record<string, unknown>), id: undefined });
    const bad = await send(app, 'GET', '/api/admin/segments/abc/strategies');
    t.equal(bad.statusCode, 400);
    t.same(bad.json().details, (recorded.strategiesOfBadId!.body as { details: unknown }).details);
  });

  await t.test('set a strategy\'s segments: 201 echoing the body, Location, sorted by id, no event', async (t) => {
    const before = await lastEventId(app);
    const body = { projectId: 'default', strategyId, environmentId: 'production', segmentIds: [second, first] };
    const res = await send(app, 'POST', SET, body);
    t.equal(res.statusCode, recorded.set!.status);
    t.equal(res.body, JSON.stringify(body), 'the body as sent, keys in its order');
    t.equal(res.headers.location, `strategies/${strategyId}`);
    const segments = (await send(app, 'GET', `${SET}/${strategyId}`)).json().segments;
    t.same(segments.map((s: { id: number }) => s.id), [first, second]);
    t.same(Object.keys(segments[0]), Object.keys((recorded.segmentsOfStrategy!.body as { segments: object[] }).segments[0]!));
    const strategy = await send(app, 'GET', `/api/admin/projects/default/features/uses-first/environments/production/strategies/${strategyId}`);
    t.same(strategy.json().segments, [first, second], 'the flag\'s strategy has them');
    t.same((await send(app, 'GET', `/api/admin/segments/${second}/strategies`)).json().strategies.map((s: { id: string }) => s.id), [strategyId]);
    t.same(await eventsAfter(app, before), [], 'Unleash records no event');
    t.same((await send(app, 'GET', `${SET}/nope`)).json(), recorded.segmentsOfUnknownStrategy!.body);
  });

  await t.test('project and environment are not checked; other keys are echoed', async (t) => {
    const body = recorded.uncheckedProjectAndExtraKey!.request.body!;
    const res = await send(app, 'POST', SET, { ...body, strategyId, segmentIds: [second] });
    t.equal(res.statusCode, 201);
    t.same(Object.keys(res.json()), Object.keys(recorded.uncheckedProjectAndExtraKey!.body as object));
    t.same((await send(app, 'GET', `${SET}/${strategyId}`)).json().segments.map((s: { id: number }) => s.id), [second]);
  });

  await t.test('invalid bodies answer as Unleash', async (t) => {
    for (const name of ['tooMany', 'negativeId', 'missingSegmentIds', 'notAnArray']) {
      const rec = recorded[name]!;
      const res = await send(app, 'POST', SET, { ...rec.request.body, strategyId });
      t.equal(res.statusCode, rec.status, name);
      const { id, ...rest } = res.json();
      t.type(id, 'string');
      t.same(rest, vaneError(rec.body as Record<string, unknown>), name);
    }
  });

  await t.test('unknown strategy or segment: 404 and nothing written (Unleash: a foreign-key 500, D10)', async (t) => {
    const unknownStrategy = await send(app, 'POST', SET, { projectId: 'default', strategyId: 'nope', environmentId: 'production', segmentIds: [first] });
    t.equal(unknownStrategy.statusCode, 404);
    t.equal(unknownStrategy.json().message, 'Could not find strategy with id nope');
    const unknownSegment = await send(app, 'POST', SET, { projectId: 'default', strategyId, environmentId: 'production', segmentIds: [first, 999] });
    t.equal(unknownSegment.statusCode, 404);
    t.equal(unknownSegment.json().message, 'No segment exists with ID "999"');
    t.same((await send(app, 'GET', `${SET}/${strategyId}`)).json().segments.map((s: { id: number }) => s.id), [second]);
  });

  await t.test('permissions: Viewer reads, Editor sets, SDK tokens refused', async (t) => {
    const { viewer, editor } = await roleCookies(app);
    const body = { projectId: 'default', strategyId, environmentId: 'production', segmentIds: [first] };
    const get = await app.inject({ method: 'GET', url: `/api/admin/segments/${first}/strategies`, headers: { cookie: viewer } });
    t.equal(get.statusCode, recorded.viewerGet!.status);
    const viewerSet = await app.inject({ method: 'POST', url: SET, headers: asPerson(viewer), payload: body });
    t.equal(viewerSet.statusCode, recorded.viewerSet!.status);
    const editorSet = await app.inject({ method: 'POST', url: SET, headers: asPerson(editor), payload: body });
    t.equal(editorSet.statusCode, recorded.editorSet!.status);
    for (const type of ['client', 'frontend']) {
      const token = (await send(app, 'POST', '/api/admin/api-tokens', { tokenName: type, type, environment: 'development' })).json().secret;
      const res = await app.inject({ method: 'GET', url: `/api/admin/segments/${first}/strategies`, headers: { authorization: token } });
      t.equal(res.statusCode, recorded.clientToken!.status, type);
      t.equal(res.json().message, (recorded.clientToken!.body as { message: string }).message);
    }
  });

  await t.test('a segment a strategy uses is not deleted: 409, empty body', async (t) => {
    const res = await send(app, 'DELETE', `/api/admin/segments/${first}`);
    t.equal(res.statusCode, 409);
    t.equal(res.body, '');
  });
});
