/**
 * The pure flag operations (apply.ts) and rules, without a database: what change requests use to
 * preview changes in memory.
 */
import t from 'tap';
import {
  applyAddDependency, applyAddStrategy, applyArchive, applyDeleteStrategy, applyPatchVariants, applyReorderStrategies,
  applySetEnabled, applySetVariants, applyUpdateStrategy, type ApplyContext,
} from '../../../src/features/flags/apply.js';
import { applyJsonPatch, JsonPatchError } from '../../../src/features/flags/json-patch.js';
import { jsonbOrder, normaliseWeights, ulid } from '../../../src/features/flags/rules.js';
import { toFlagConfig, type FlagData } from '../../../src/features/flags/read-model.js';

function flag(name = 'f', overrides: Partial<FlagData> = {}): FlagData {
  const at = new Date('2026-01-01T00:00:00.000Z');
  return {
    _id: name, name, project: 'default', description: null, type: 'release', impressionData: false, stale: false,
    archived: false, archivedAt: null, createdAt: at, createdBy: { id: -42, name: 'x' }, tags: [{ type: 'simple', value: 'tg' }],
    lifecycle: { stage: 'initial', enteredStageAt: at }, dependencies: [],
    environments: { development: { enabled: false, strategies: [], variants: [] }, production: { enabled: false, strategies: [], variants: [] } },
    strategyIds: [],
    ...overrides,
  };
}

let counter = 0;
const ctx: ApplyContext = {
  now: new Date('2026-02-01T00:00:00.000Z'),
  strategyTypes: new Set(['default', 'flexibleRollout', 'remoteAddress', 'applicationHostname']),
  segments: new Map([[1, { id: 1, name: 's1', project: null, constraints: [] }]]),
  environments: new Map([
    ['development', { name: 'development', type: 'development', sortOrder: 2 }],
    ['production', { name: 'production', type: 'production', sortOrder: 3 }],
  ]),
  defaultStickiness: 'default',
  newStrategyId: () => `s${++counter}`,
};

t.test('add / update / delete in memory, input never mutated', async (t) => {
  const original = flag();
  const frozen = JSON.stringify(original);
  const added = applyAddStrategy(original, 'development', { name: 'flexibleRollout', segments: [1] }, ctx);
  t.equal(JSON.stringify(original), frozen, 'input untouched');
  t.equal(added.transactional, true);
  t.same(added.result.parameters, { groupId: 'f', rollout: '100', stickiness: 'default' });
  t.same(added.next.strategyIds, [added.result.id]);
  t.same(added.events.map((e) => [e.type, e.environment, e.tags]), [['feature-strategy-add', 'development', [{ value: 'tg', type: 'simple' }]]]);

  const on = applySetEnabled(added.next, 'development', true, ctx);
  t.same(on.events.map((e) => e.type), ['feature-environment-enabled'], 'an active strategy exists');
  const updated = applyUpdateStrategy(on.next, 'development', added.result.id, { name: 'flexibleRollout', disabled: true }, ctx);
  t.same(updated.events.map((e) => e.type), ['feature-strategy-update', 'feature-environment-disabled']);
  t.same(updated.result.segments, [1], 'segments kept when absent');
  t.equal(updated.next.environments.development!.enabled, false);

  const deleted = applyDeleteStrategy(updated.next, 'development', added.result.id, ctx);
  t.same(deleted.events.map((e) => e.type), ['feature-strategy-remove'], 'already off: no disabled event');
  t.same(deleted.next.strategyIds, []);
  const noop = applyDeleteStrategy(deleted.next, 'development', 'nope', ctx);
  t.equal(noop.next, deleted.next);
  t.same(noop.events, []);
});

t.test('errors are the live endpoints\' errors', async (t) => {
  t.throws(() => applyAddStrategy(flag(), 'nope', { name: 'default' }, ctx), { statusCode: 404, message: 'Could not find environment nope for feature: f' });
  t.throws(() => applyAddStrategy(flag(), 'development', { name: 'nope' }, ctx), { statusCode: 400, name: 'ValidationError' });
  t.throws(() => applyAddStrategy(flag(), 'development', { name: 'default', segments: [2] }, ctx), { statusCode: 404, message: 'No segment exists with ID "2"' });
  t.throws(() => applySetEnabled(flag('a', { archived: true }), 'development', true, ctx), { name: 'ArchivedFeatureError' });
  t.throws(() => applyArchive(flag(), ['child'], ctx), { name: 'InvalidOperationError' });
  t.throws(() => applyAddDependency(flag('c'), { feature: 'p' }, { parent: flag('p', { project: 'other' }), childChildren: [] }),
    { message: 'Parent and child features should be in the same project' });
});

t.test('enable adds the default strategy; reorder; variants; archive', async (t) => {
  const on = applySetEnabled(flag(), 'production', true, ctx);
  t.same(on.events.map((e) => e.type), ['feature-strategy-add', 'feature-environment-enabled']);
  t.equal(on.next.lifecycle.stage, 'initial', 'turning on changes no stage (SDK metrics do)');
  const second = applyAddStrategy(on.next, 'production', { name: 'default' }, ctx);
  t.equal(second.result.sortOrder, 1);
  const [a, b] = second.next.environments.production!.strategies;
  const reordered = applyReorderStrategies(second.next, 'production', [{ id: a!.id, sortOrder: 5 }, { id: b!.id, sortOrder: 1 }], ctx);
  t.same(reordered.next.environments.production!.strategies.map((s) => s.sortOrder), [5, 1]);
  t.same(reordered.events.map((e) => e.type), ['feature-strategy-update']);

  const variants = applySetVariants(flag(), 'development', [{ name: 'b', weight: 1, weightType: 'variable' }, { name: 'a', weight: 1, weightType: 'variable' }], ctx);
  t.same(variants.result.map((v) => [v.name, v.weight]), [['a', 500], ['b', 500]]);
  t.equal(variants.transactional, false);
  const patched = applyPatchVariants(variants.next, 'development', [{ op: 'remove', path: '/0' }], ctx);
  t.same(patched.result.map((v) => [v.name, v.weight]), [['b', 1000]]);

  const withDependency = flag('c', { dependencies: [{ feature: 'p', enabled: true }] });
  const archived = applyArchive(withDependency, [], ctx);
  t.same(archived.events.map((e) => e.type), ['feature-dependencies-removed', 'feature-archived']);
  t.equal(archived.next.archived, true);
  t.equal(toFlagConfig(archived.next).archived, true);
});

t.test('toFlagConfig maps a flag document to the engine config', async (t) => {
  const f = applyAddStrategy(flag(), 'development', { name: 'default' }, ctx).next;
  const config = toFlagConfig(f);
  t.same(Object.keys(config), ['name', 'project', 'createdAt', 'archived', 'environments', 'dependencies']);
  t.equal(config.createdAt, '2026-01-01T00:00:00.000Z');
  t.equal(config.environments.development!.strategies.length, 1);
});

t.test('weights (docs/rules.md §3.9)', async (t) => {
  const out = normaliseWeights([
    { name: 'v2', weight: 0, weightType: 'variable' }, { name: 'v1', weight: 0, weightType: 'variable' },
    { name: 'v3', weight: 100, weightType: 'fix' }, { name: 'gone', weight: 5 },
  ]);
  t.same(out.map((v) => [v.name, v.weight]), [['v1', 450], ['v2', 450], ['v3', 100]]);
  const three = normaliseWeights(['a', 'b', 'c'].map((name) => ({ name, weight: 0, weightType: 'variable' })));
  t.same(three.map((v) => v.weight), [334, 333, 333]);
  t.same(normaliseWeights([]), []);
  t.throws(() => normaliseWeights([{ name: 'x', weight: 1, weightType: 'fix' }]), { message: /at least one "variable" variant/ });
});

t.test('JSONB key order', async (t) => {
  t.same(Object.keys(jsonbOrder({ stickiness: 1, rollout: 1, groupId: 1 })), ['groupId', 'rollout', 'stickiness']);
  t.same(Object.keys(jsonbOrder({ caseInsensitive: true, contextName: 'a', operator: 'IN', inverted: false, values: [], value: 'x' })),
    ['value', 'values', 'inverted', 'operator', 'contextName', 'caseInsensitive']);
});

t.test('ULIDs: 26 Crockford characters, increasing', async (t) => {
  const ids = Array.from({ length: 50 }, () => ulid(1_700_000_000_000));
  for (const id of ids) t.match(id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
  t.same([...ids].sort(), ids, 'monotonic within a millisecond');
  t.equal(new Set(ids).size, ids.length);
});

t.test('JSON Patch (RFC 6902)', async (t) => {
  const doc = { a: [1, 2], b: { c: 'x' } };
  t.same(applyJsonPatch(doc, [{ op: 'add', path: '/a/-', value: 3 }]), { a: [1, 2, 3], b: { c: 'x' } });
  t.same(doc, { a: [1, 2], b: { c: 'x' } }, 'original untouched');
  t.same(applyJsonPatch(doc, [{ op: 'move', from: '/b/c', path: '/d' }]), { a: [1, 2], b: {}, d: 'x' });
  t.same(applyJsonPatch(doc, [{ op: 'copy', from: '/a/0', path: '/a/0' }]), { a: [1, 1, 2], b: { c: 'x' } });
  t.same(applyJsonPatch({ 'x/y': 1, 'm~n': 2 }, [{ op: 'remove', path: '/x~1y' }, { op: 'replace', path: '/m~0n', value: 3 }]), { 'm~n': 3 });
  t.throws(() => applyJsonPatch(doc, [{ op: 'replace', path: '/nope', value: 1 }]), JsonPatchError);
  t.throws(() => applyJsonPatch(doc, [{ op: 'test', path: '/b/c', value: 'y' }]), JsonPatchError);
  t.throws(() => applyJsonPatch(doc, [{ op: 'add', path: '/a/5', value: 1 }]), JsonPatchError);
  t.throws(() => applyJsonPatch(doc, [{ op: 'bogus', path: '/a' }]), JsonPatchError);
  t.throws(() => applyJsonPatch(doc, [{ op: 'move', from: '/b', path: '/b/c' }]), { name: 'JsonPatchError', message: 'Cannot move a value into one of its children' });
  t.throws(() => applyJsonPatch(doc, [{ op: 'add', path: '/b/__proto__', value: { polluted: true } }]), JsonPatchError);
  t.throws(() => applyJsonPatch(doc, [{ op: 'copy', from: '/__proto__', path: '/z' }]), JsonPatchError);
  t.throws(() => applyJsonPatch(doc, [{ op: 'remove', path: '/a/9' }]), { message: 'Cannot perform the operation at a path that does not exist' }, 'one line, without the document');
  t.same(applyJsonPatch(doc, [{ op: 'test', path: '/b', value: { c: 'x' } }]), doc, 'test compares values, not text');
});
