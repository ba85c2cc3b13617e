import t from 'tap';
import { ADMIN_TOKEN, buildTestApp } from '../../helpers/app.js';
import { populationAt, populationCount } from '../../../src/features/playground-batch/contexts.js';
import { addChanges, addStrategy, createFlag, send, setState, turnOn } from '../change-requests/helpers.js';
import { impactUrl } from './helpers.js';

t.test('a population is every combination, first key slowest, properties.x into properties', async (t) => {
  const spec = { userId: { from: 7, to: 9 }, 'properties.region': ['eu', 'us'], appName: ['a'] };
  t.equal(populationCount(spec), 6);
  t.same(populationAt(spec, 0), { userId: '7', appName: 'a', properties: { region: 'eu' } });
  t.same(populationAt(spec, 1), { userId: '7', appName: 'a', properties: { region: 'us' } });
  t.same(populationAt(spec, 5), { userId: '9', appName: 'a', properties: { region: 'us' } });
  t.equal(populationCount({ userId: { from: 1, to: 0 } }), 0);
});

t.test('impact: counts, examples, archived flags listed, final state changes nothing, errors', async (t) => {
  const app = await buildTestApp(t, { PLAYGROUND_BATCH_LIMIT: '1000' });
  await createFlag(app, 'on-for-all');
  await turnOn(app, 'on-for-all');
  await createFlag(app, 'half');
  await addStrategy(app, 'half', { name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'userId', groupId: 'half' } });
  await turnOn(app, 'half');
  await createFlag(app, 'untouched');
  await turnOn(app, 'untouched');
  const added = await addChanges(app, [
    { feature: 'on-for-all', action: 'updateEnabled', payload: { enabled: false } },
    { feature: 'half', action: 'archiveFeature', payload: {} },
  ]);
  t.equal(added.statusCode, 200, added.body);
  const id = added.json<{ id: number }>().id;
  const population = { userId: { from: 1, to: 100 }, appName: ['a'] };
  const res = await send(app, 'POST', impactUrl(id), { population });
  t.equal(res.statusCode, 200, res.body);
  type FlagImpact = {
    name: string; before: { enabled: number }; after: { enabled: number }; turnedOff: number; examples: Array<{ index: number; before: unknown; after: unknown }>;
  };
  const body = res.json<{ changeRequest: unknown; contexts: number; flags: FlagImpact[] }>();
  t.same(body.changeRequest, { id, environment: 'development', project: 'default', state: 'Draft' });
  t.equal(body.contexts, 100);
  t.same(body.flags.map((f) => f.name).sort(), ['half', 'on-for-all'], 'untouched flags are not listed');
  const off = body.flags.find((f) => f.name === 'on-for-all')!;
  t.match(off, { before: { enabled: 100 }, after: { enabled: 0 }, turnedOff: 100 });
  t.same(off.examples.map((e) => e.index), [0, 1, 2, 3, 4], 'first 5 in context order');
  t.same(off.examples[0]!.before, { enabled: true, variant: 'disabled' });
  t.same(off.examples[0]!.after, { enabled: false, variant: 'disabled' });
  const archived = body.flags.find((f) => f.name === 'half')!;
  t.ok(archived.before.enabled > 20 && archived.before.enabled < 80, 'about half were on');
  t.equal(archived.turnedOff, archived.before.enabled);
  t.same(archived.examples[0]!.after, { enabled: false, variant: null }, 'an archived flag no longer exists');

  const lines = await app.inject({
    method: 'POST', url: impactUrl(id), headers: { authorization: ADMIN_TOKEN, 'content-type': 'application/json', accept: 'application/x-ndjson' },
    payload: { population },
  });
  t.match(lines.headers['content-type'], /application\/x-ndjson/);
  const parsed = lines.body.trimEnd().split('\n').map((line) => JSON.parse(line) as { index: number; flag: string });
  t.equal(parsed.length, 100 + archived.turnedOff);
  t.same(parsed.map((l) => l.index), [...parsed.map((l) => l.index)].sort((a, b) => a - b), 'in context order');

  t.equal((await send(app, 'POST', impactUrl(id), { population: { userId: { from: 1, to: 334 } } })).statusCode, 400, '334 × 3 flags > 1000');
  const over = await send(app, 'POST', impactUrl(id), { population: { userId: { from: 1, to: 334 } } });
  t.match(over.json(), { name: 'ValidationError', message: /limit of 1000 \(PLAYGROUND_BATCH_LIMIT\)/ });
  const two = await send(app, 'POST', impactUrl(id), { population, context: { appName: 'a' } });
  t.equal(two.statusCode, 400);
  t.match(two.json(), { message: /exactly one of contexts, context or population/ });
  const badContext = await send(app, 'POST', impactUrl(id), { contexts: [{ appName: 'a' }, { userId: 'x' }] });
  t.equal(badContext.statusCode, 400);
  t.match(badContext.body, /contexts\/1\/appName/);
  const badRange = await send(app, 'POST', impactUrl(id), { population: { userId: { from: 5, to: 1 } } });
  t.equal(badRange.statusCode, 400);
  t.match(badRange.json(), { message: /population\.userId\.to/ });
  t.equal((await send(app, 'POST', impactUrl(999), { population })).statusCode, 404);

  t.equal((await setState(app, id, 'Cancelled')).statusCode, 200);
  const cancelled = await send(app, 'POST', impactUrl(id), { population });
  t.same(cancelled.json<{ flags: unknown[] }>().flags, [], 'a final-state change request changes nothing');
});
