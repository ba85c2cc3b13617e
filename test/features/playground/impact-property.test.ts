/**
 * The impact endpoint's defining property: on random configurations and change requests, the impact endpoint's
 * counts and examples equal what one gets by asking, for each context, the advanced playground
 * (before) and the change-request preview (after), and comparing. Seeded, so a failure replays.
 */
import t, { type Test } from 'tap';
import type { FastifyInstance } from 'fastify';
import { ADMIN_TOKEN, buildTestApp } from '../../helpers/app.js';
import { addChanges, advanced, createFlag, createSegment, FEATURES, ok, preview, send, setState } from '../change-requests/helpers.js';
import { impactUrl } from './helpers.js';

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = ReturnType<typeof prng>;
const pick = <T>(r: Random, items: readonly T[]): T => items[Math.floor(r() * items.length)]!;
const USERS = 12;

function randomStrategy(r: Random, segments: number[]): Record<string, unknown> {
  const constraints = r() < 0.5 ? [pick(r, [
    { contextName: 'userId', operator: 'IN', values: ['1', '2', '3', '5', '8'].filter(() => r() < 0.6) },
    { contextName: 'region', operator: 'IN', values: ['eu'] },
    { contextName: 'userId', operator: 'NUM_GT', value: String(Math.floor(r() * USERS)) },
    { contextName: 'region', operator: 'STR_STARTS_WITH', values: ['u'], inverted: r() < 0.5 },
  ])] : [];
  const strategy: Record<string, unknown> = r() < 0.4
    ? { name: 'default', constraints }
    : { name: 'flexibleRollout', parameters: { rollout: String(pick(r, [0, 30, 50, 70, 100])), stickiness: 'userId', groupId: `g${Math.floor(r() * 3)}` }, constraints };
  if (segments.length > 0 && r() < 0.3) strategy.segments = [pick(r, segments)];
  if (r() < 0.4) {
    strategy.variants = [
      { name: 'blue', weight: 500, weightType: 'variable', stickiness: 'userId' },
      { name: pick(r, ['green', 'red']), weight: 500, weightType: 'variable', stickiness: 'userId' },
    ];
  }
  return strategy;
}

async function strategiesOf(app: FastifyInstance, flag: string): Promise<string[]> {
  const body = await ok(app, 'GET', `${FEATURES}/${flag}`) as { environments: Array<{ name: string; strategies: Array<{ id: string }> }> };
  return body.environments.find((e) => e.name === 'development')?.strategies.map((s) => s.id) ?? [];
}

/** A random project: 6 flags, strategies, two segments, a few dependencies. */
async function randomConfiguration(app: FastifyInstance, r: Random): Promise<{ flags: string[]; segments: number[] }> {
  const segments = [
    await createSegment(app, { name: 'seg-eu', constraints: [{ contextName: 'region', operator: 'IN', values: ['eu'] }] }),
    await createSegment(app, { name: 'seg-low', constraints: [{ contextName: 'userId', operator: 'NUM_LT', value: '7' }] }),
  ];
  const flags = ['f0', 'f1', 'f2', 'f3', 'f4', 'f5'];
  for (const flag of flags) {
    await createFlag(app, flag);
    const count = Math.floor(r() * 3);
    for (let s = 0; s < count; s++) await ok(app, 'POST', `${FEATURES}/${flag}/environments/development/strategies`, randomStrategy(r, segments));
    if (r() < 0.9) await ok(app, 'POST', `${FEATURES}/${flag}/environments/development/on`);
  }
  // Children of f0 / f1 (parents without dependencies of their own).
  await ok(app, 'POST', `${FEATURES}/f3/dependencies`, { feature: 'f0', ...(r() < 0.4 ? { variants: ['blue'] } : {}) });
  if (r() < 0.6) await ok(app, 'POST', `${FEATURES}/f4/dependencies`, { feature: 'f1', enabled: r() < 0.7 });
  return { flags, segments };
}

async function randomChangeRequest(t: Test, app: FastifyInstance, r: Random, flags: string[], segments: number[]): Promise<number> {
  const count = 2 + Math.floor(r() * 4);
  let id: number | undefined;
  for (let c = 0; c < count; c++) {
    const flag = pick(r, flags);
    const existing = await strategiesOf(app, flag);
    const change = pick(r, [
      () => ({ feature: flag, action: 'updateEnabled', payload: { enabled: r() < 0.5 } }),
      () => ({ feature: flag, action: 'addStrategy', payload: randomStrategy(r, segments) }),
      () => existing.length ? { feature: flag, action: 'updateStrategy', payload: { id: pick(r, existing), ...randomStrategy(r, segments) } } : null,
      () => existing.length ? { feature: flag, action: 'deleteStrategy', payload: { id: pick(r, existing) } } : null,
      () => ({ feature: pick(r, ['f2', 'f5', 'f3']), action: 'archiveFeature', payload: {} }),
      () => ({ feature: pick(r, ['f2', 'f5']), action: 'addDependency', payload: { feature: pick(r, ['f0', 'f1']) } }),
      () => ({ feature: 'f3', action: 'deleteDependency', payload: { feature: 'f0' } }),
      () => ({ action: 'updateSegment', payload: { id: segments[1], name: 'seg-low', constraints: [{ contextName: 'userId', operator: 'NUM_LT', value: String(Math.floor(r() * USERS)) }] } }),
    ])();
    if (!change) continue;
    const res = await addChanges(app, change);
    if (res.statusCode === 200) id = res.json<{ id: number }>().id;
    else if (process.env.IMPACT_PROPERTY_DEBUG) t.comment(JSON.stringify(change), res.statusCode, res.body);
  }
  if (id === undefined) id = (await ok(app, 'POST', '/api/admin/projects/default/environments/development/change-requests',
    { feature: 'f0', action: 'updateEnabled', payload: { enabled: true } }) as { id: number }).id;
  if (r() < 0.15) await setState(app, id, 'Cancelled');
  if (process.env.IMPACT_PROPERTY_DEBUG) t.comment(JSON.stringify(await ok(app, 'GET', `/api/admin/projects/default/change-requests/${id}`)));
  return id;
}

interface Decision { enabled: boolean; variant: string | null }
type Answers = Map<string, Decision>;

function answers(body: { features: Array<{ name: string; environments: Record<string, Array<{ isEnabled: boolean; variant: { name: string } }>> }> }): Answers {
  return new Map(body.features.map((f) => {
    const entry = f.environments.development![0]!;
    return [f.name, { enabled: entry.isEnabled, variant: entry.variant.name }];
  }));
}

const ABSENT: Decision = { enabled: false, variant: null };

/** The impact computed the slow way: one advanced playground call and one preview per context. */
async function expectedImpact(app: FastifyInstance, id: number, contexts: Array<Record<string, unknown>>) {
  const flags = new Map<string, { before: number; after: number; turnedOn: number; turnedOff: number; variantChanged: number; examples: unknown[]; existence: boolean }>();
  for (const [index, context] of contexts.entries()) {
    const before = answers((await advanced(app, 'development', 'default', context)).json());
    const after = answers((await preview(app, id, context)).json());
    for (const name of new Set([...before.keys(), ...after.keys()])) {
      const was = before.get(name) ?? ABSENT;
      const now = after.get(name) ?? ABSENT;
      const entry = flags.get(name) ?? { before: 0, after: 0, turnedOn: 0, turnedOff: 0, variantChanged: 0, examples: [], existence: before.has(name) !== after.has(name) };
      flags.set(name, entry);
      if (was.enabled) entry.before++;
      if (now.enabled) entry.after++;
      const turnedOn = !was.enabled && now.enabled;
      const turnedOff = was.enabled && !now.enabled;
      const variantChanged = was.enabled && now.enabled && was.variant !== now.variant;
      if (turnedOn) entry.turnedOn++;
      if (turnedOff) entry.turnedOff++;
      if (variantChanged) entry.variantChanged++;
      if ((turnedOn || turnedOff || variantChanged) && entry.examples.length < 5) entry.examples.push({ index, context, before: was, after: now });
    }
  }
  const result: Record<string, unknown> = {};
  for (const [name, e] of flags) {
    if (e.turnedOn + e.turnedOff + e.variantChanged === 0 && !e.existence) continue;
    result[name] = {
      before: { enabled: e.before }, after: { enabled: e.after }, turnedOn: e.turnedOn, turnedOff: e.turnedOff, variantChanged: e.variantChanged,
      examples: e.examples,
    };
  }
  return result;
}

function byName(body: { flags: Array<{ name: string } & Record<string, unknown>> }): Record<string, unknown> {
  return Object.fromEntries(body.flags.map(({ name, ...rest }) => [name, rest]));
}

t.test('impact equals the advanced playground (before) and the preview (after), context by context, on random setups', async (t) => {
  const rounds = Number(process.env.IMPACT_PROPERTY_ROUNDS ?? 5);
  let changingRounds = 0;
  for (let round = 0; round < rounds; round++) {
    const seed = 1000 + round;
    const r = prng(seed);
    const app = await buildTestApp(t);
    const { flags, segments } = await randomConfiguration(app, r);
    const id = await randomChangeRequest(t, app, r, flags, segments);
    const population = { userId: { from: 1, to: USERS }, 'properties.region': ['eu', 'us'], appName: ['app'] };
    const contexts = Array.from({ length: USERS * 2 }, (_, i) => ({
      userId: String(1 + Math.floor(i / 2)), properties: { region: i % 2 === 0 ? 'eu' : 'us' }, appName: 'app',
    }));
    const expected = await expectedImpact(app, id, contexts);
    const fromPopulation = await send(app, 'POST', impactUrl(id), { population });
    t.equal(fromPopulation.statusCode, 200, fromPopulation.body);
    const body = fromPopulation.json<{ contexts: number; changeRequest: { id: number }; flags: Array<{ name: string }> }>();
    t.equal(body.contexts, contexts.length);
    t.equal(body.changeRequest.id, id);
    t.same(byName(body), expected, `seed ${seed}: population`);
    const fromList = await send(app, 'POST', impactUrl(id), { contexts });
    t.same(byName(fromList.json()), expected, `seed ${seed}: explicit contexts`);
    const fromCommas = await send(app, 'POST', impactUrl(id), {
      context: { userId: Array.from({ length: USERS }, (_, i) => String(i + 1)).join(','), properties: { region: 'eu,us' }, appName: 'app' },
    });
    // Same contexts, written the expanded way ({userId, region, appName}: properties flattened).
    const withoutContexts = (flags: Record<string, unknown>) => JSON.parse(JSON.stringify(flags, (key, value) => (key === 'context' ? undefined : value)));
    t.same(withoutContexts(byName(fromCommas.json())), withoutContexts(expected), `seed ${seed}: comma-expanded context`);
    const lines = await app.inject({
      method: 'POST', url: impactUrl(id), headers: { authorization: ADMIN_TOKEN, 'content-type': 'application/json', accept: 'application/x-ndjson' },
      payload: { population },
    });
    const changedLines = lines.body.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { flag: string });
    const expectedChanges = Object.values(expected as Record<string, { turnedOn: number; turnedOff: number; variantChanged: number }>)
      .reduce((sum, e) => sum + e.turnedOn + e.turnedOff + e.variantChanged, 0);
    t.equal(changedLines.length, expectedChanges, `seed ${seed}: one NDJSON line per changed (context, flag)`);
    t.comment(`seed ${seed}: ${Object.keys(expected).length} flags change, ${expectedChanges} (context, flag) pairs`);
    if (expectedChanges > 0) changingRounds++;
  }
  t.ok(changingRounds >= rounds / 2, `most random change requests change something (${changingRounds} of ${rounds})`);
});
