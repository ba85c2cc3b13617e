/** Per-flag results (docs/rules.md §3.10), selection and ordering (§3.3), dependencies (§3.11). */
import t from 'tap';
import {
  compile,
  evaluate,
  evaluateRange,
  evaluateSelection,
  getVariant,
  isEnabled,
  playgroundFlagJson,
  selectFlags,
  type FlagConfig,
  type StrategyVariantConfig,
  type VariantConfig,
} from '../../src/evaluation/index.js';
import { constraint, ENV, flag, snapshot, strategy } from './fixtures/builders.js';

const DISABLED_OFF = { name: 'disabled', enabled: false, feature_enabled: false };
const DISABLED_ON = { feature_enabled: true, featureEnabled: true, name: 'disabled', enabled: false };

const resultOf = (flags: FlagConfig[], name: string, context: unknown = {}, projects?: string[]) =>
  evaluate(compile(snapshot(flags)), ENV, context, projects).find((result) => result.name === name);

const variantsAB: VariantConfig[] = [
  { name: 'a', weight: 500, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: 'A' } },
  { name: 'b', weight: 500, weightType: 'variable', stickiness: 'default' },
];

t.test('flags without strategies', async (t) => {
  const on = resultOf([flag({ name: 'on' })], 'on')!;
  t.equal(on.isEnabled, true);
  t.strictSame(on.strategies, { result: true, data: [] });
  t.strictSame(Object.entries(on.variant), Object.entries(DISABLED_ON), 'on, no variants: key order feature_enabled first');
  const off = resultOf([flag({ name: 'off', enabled: false })], 'off')!;
  t.equal(off.isEnabled, false);
  t.strictSame(off.strategies, { result: false, data: [] });
  t.strictSame(Object.entries(off.variant), Object.entries(DISABLED_OFF));
  const elsewhere = evaluate(compile(snapshot([flag({ name: 'x' })])), 'production', {})[0]!;
  t.equal(elsewhere.isEnabledInCurrentEnvironment, false, 'environment not configured: off');
  t.strictSame(elsewhere.variants, []);
});

t.test('environment variants', async (t) => {
  const picked = resultOf([flag({ name: 'f', variants: variantsAB })], 'f', { userId: '7' })!;
  t.ok(['a', 'b'].includes(picked.variant.name));
  t.strictSame(picked.variants, variantsAB, 'definitions as stored');
  const withPayload = resultOf([flag({ name: 'f', variants: [variantsAB[0]!] })], 'f', { userId: '7' })!;
  t.strictSame(Object.keys(withPayload.variant), ['name', 'payload', 'enabled', 'feature_enabled', 'featureEnabled']);
  const noPayload = resultOf([flag({ name: 'f', variants: [variantsAB[1]!] })], 'f', { userId: '7' })!;
  t.strictSame(Object.keys(noPayload.variant), ['name', 'enabled', 'feature_enabled', 'featureEnabled']);
  const overridden: VariantConfig[] = [
    { ...variantsAB[0]!, weight: 0, weightType: 'fix', overrides: [{ contextName: 'tenant', values: ['acme'] }] },
    { ...variantsAB[1]!, weight: 1000 },
  ];
  t.equal(resultOf([flag({ name: 'f', variants: overridden })], 'f', { properties: { tenant: 'acme' } })!.variant.name, 'a', 'override wins, even at weight 0');
  t.equal(resultOf([flag({ name: 'f', variants: overridden })], 'f', { properties: { tenant: 'ACME' } })!.variant.name, 'b', 'overrides are case-sensitive');
  const zero = resultOf([flag({ name: 'f', variants: [{ ...variantsAB[0]!, weight: 0 }] })], 'f')!;
  t.strictSame(zero.variant, DISABLED_ON, 'total weight 0: nothing picked');
  const off = resultOf([flag({ name: 'f', enabled: false, variants: variantsAB })], 'f')!;
  t.strictSame(off.variant, DISABLED_OFF);
  t.strictSame(off.variants, variantsAB, 'variants reported even when off');
});

t.test('fixed and variable weights pick by bucket (docs/rules.md §3.9)', async (t) => {
  // peer.demo:1 → 948, peer.demo:3 → 181 (mod 1000).
  const variants: VariantConfig[] = [
    { name: 'v1', weight: 450, weightType: 'variable', stickiness: 'default' },
    { name: 'v2', weight: 450, weightType: 'variable', stickiness: 'default' },
    { name: 'v3', weight: 100, weightType: 'fix', stickiness: 'default' },
  ];
  const compiled = compile(snapshot([flag({ name: 'peer.demo', variants })]));
  t.equal(getVariant(compiled, ENV, 'peer.demo', { userId: '1' }).name, 'v3');
  t.equal(getVariant(compiled, ENV, 'peer.demo', { userId: '3' }).name, 'v1');
});

t.test('strategy variants', async (t) => {
  const withVariants = (fields: Partial<Parameters<typeof strategy>[1]> = {}) =>
    strategy('flexibleRollout', {
      parameters: { rollout: '100', stickiness: 'default', groupId: 'peer.demo' },
      variants: variantsAB.map((variant) => ({ ...variant, weightType: 'variable' as const, stickiness: 'default' })),
      ...fields,
    });
  const winner = resultOf([flag({ name: 'f', strategies: [withVariants()], variants: [variantsAB[1]!] })], 'f', { userId: '123' })!;
  // peer.demo:123 → 684 → b.
  t.strictSame(winner.variant, { name: 'b', enabled: true, feature_enabled: true }, 'winner strategy variant shape');
  t.strictSame(winner.strategies.data[0]!.result, {
    enabled: true,
    evaluationStatus: 'complete',
    variant: { name: 'b', enabled: true },
    variants: winner.variants,
  });
  t.equal((winner.variants as VariantConfig[]).length, 2, "flag variants are the winner's strategy variants");
  const failing = resultOf(
    [flag({ name: 'f', strategies: [withVariants({ constraints: [constraint('userId', 'IN', { values: ['x'] })] })], variants: [variantsAB[1]!] })],
    'f',
    { userId: '123' },
  )!;
  t.equal(failing.strategies.data[0]!.result.enabled, false);
  t.strictSame((failing.strategies.data[0]!.result as { variant: unknown }).variant, { name: 'b', enabled: true }, 'variant reported even when false');
  t.strictSame(failing.variants, [variantsAB[1]], 'flag variants fall back to the environment');
  const offFlag = resultOf([flag({ name: 'f', enabled: false, strategies: [withVariants()] })], 'f', { userId: '123' })!;
  t.equal(offFlag.strategies.result, true, 'an off flag can show strategies.result true');
  t.equal(offFlag.isEnabled, false);
  t.strictSame(offFlag.variant, DISABLED_OFF);
  t.equal(offFlag.variants.length, 2, 'winner variants reported although the flag is off');
  const defaultStrategy = resultOf(
    [flag({ name: 'f', strategies: [strategy('default', { variants: [{ ...variantsAB[0]!, weightType: 'variable', stickiness: 'default' }] })] })],
    'f',
    { userId: '7' },
  )!;
  t.equal(defaultStrategy.variant.name, 'a', 'no groupId: the key starts with "undefined:"');
});

t.test('selection and order (docs/rules.md §3.3)', async (t) => {
  const flags = [
    flag({ name: 'old', createdAt: '2020-01-01T00:00:00.000Z' }),
    flag({ name: 'new', createdAt: '2024-01-01T00:00:00.000Z' }),
    flag({ name: '10', createdAt: '2019-01-01T00:00:00.000Z' }),
    flag({ name: '9', createdAt: '2018-01-01T00:00:00.000Z' }),
    flag({ name: '09', createdAt: '2017-01-01T00:00:00.000Z' }),
    flag({ name: 'tie-b', createdAt: '2022-01-01T00:00:00.000Z' }),
    flag({ name: 'tie-a', createdAt: '2022-01-01T00:00:00.000Z' }),
    flag({ name: 'gone', archived: true }),
    flag({ name: 'other', project: 'p2', createdAt: '2025-01-01T00:00:00.000Z' }),
  ];
  const compiled = compile(snapshot(flags));
  t.strictSame(
    evaluate(compiled, ENV, {}).map((r) => r.name),
    ['9', '10', 'other', 'new', 'tie-a', 'tie-b', 'old', '09'],
  );
  t.strictSame(evaluate(compiled, ENV, {}, ['p2']).map((r) => r.name), ['other']);
  t.strictSame(evaluate(compiled, ENV, {}, []), [], 'empty project list selects nothing');
  t.strictSame(evaluate(compiled, ENV, {}, ['*']), [], '"*" inside a list is a project id');
  t.equal(isEnabled(compiled, ENV, 'gone', {}), false, 'archived flags are unknown to SDKs');
});

t.test('dependencies (docs/rules.md §3.11)', async (t) => {
  const parentOn = flag({ name: 'parent', strategies: [strategy('default')] });
  const parentOff = flag({ name: 'parent', enabled: false, strategies: [strategy('default')] });
  const parentFailing = flag({ name: 'parent', strategies: [strategy('default', { constraints: [constraint('userId', 'IN', { values: ['x'] })] })] });
  const parentUnknown = flag({ name: 'parent', strategies: [strategy('custom')] });
  const child = (dependency: FlagConfig['dependencies'][number], fields: Partial<FlagConfig> = {}) =>
    ({ ...flag({ name: 'child' }), dependencies: [dependency], ...fields });
  const check = (parent: FlagConfig, dependency: FlagConfig['dependencies'][number], expected: boolean, label: string, projects?: string[]) => {
    const flags = [parent, child(dependency)];
    const result = resultOf(flags, 'child', {}, projects)!;
    t.equal(result.hasUnsatisfiedDependency, !expected, `${label}: playground`);
    t.equal(result.isEnabled, expected, `${label}: isEnabled`);
    if (projects === undefined) t.equal(isEnabled(compile(snapshot(flags)), ENV, 'child', {}), expected, `${label}: SDK`);
  };
  check(parentOn, { feature: 'parent' }, true, 'enabled default true, parent on');
  check(parentOff, { feature: 'parent', enabled: true }, false, 'parent off');
  check(parentFailing, { feature: 'parent' }, false, 'parent strategies fail');
  check(parentUnknown, { feature: 'parent' }, false, 'parent unknown does not satisfy enabled');
  check(parentOff, { feature: 'parent', enabled: false }, true, 'enabled:false, parent off (its default strategy aside, D2)');
  check(parentFailing, { feature: 'parent', enabled: false }, true, 'enabled:false, parent on but not passing');
  check(parentUnknown, { feature: 'parent', enabled: false }, true, 'enabled:false, parent unknown');
  check(parentOn, { feature: 'parent', enabled: false }, false, 'enabled:false, parent enabled');
  check(parentOn, { feature: 'parent', variants: ['disabled'] }, true, 'on parent without variants is "disabled"');
  check(parentOff, { feature: 'parent', variants: ['disabled'] }, false, 'off parent never satisfies enabled:true');
  check(parentFailing, { feature: 'parent', variants: ['disabled'] }, true, 'on parent not passing: "disabled"');
  check(parentOn, { feature: 'parent', variants: [] }, true, 'empty variant list: strategies must pass');
  check(parentOn, { feature: 'missing' }, false, 'parent does not exist');
  check(
    { ...parentOn, dependencies: [{ feature: 'grandparent' }] },
    { feature: 'parent' },
    false,
    'parent with its own dependency',
  );
  const parentWithVariants = flag({ name: 'parent', variants: [{ name: 'v1', weight: 1000, weightType: 'variable', stickiness: 'default' }] });
  check(parentWithVariants, { feature: 'parent', variants: ['v1'] }, true, 'parent environment variant matches');
  check(parentWithVariants, { feature: 'parent', variants: ['v2'] }, false, 'parent variant does not match');
  const otherProject = { ...parentOn, project: 'elsewhere' };
  const unselected = resultOf([otherProject, child({ feature: 'parent' })], 'child', {}, ['default'])!;
  t.equal(unselected.hasUnsatisfiedDependency, true, 'parent in an unselected project');
  const offChild = resultOf([parentOn, child({ feature: 'parent' }, { environments: { [ENV]: { enabled: false, strategies: [], variants: [] } } })], 'child')!;
  t.equal(offChild.hasUnsatisfiedDependency, false, 'satisfied even though the child is off');
  t.equal(offChild.isEnabled, false);
  t.strictSame(offChild.variant, DISABLED_OFF);
});

t.test('evaluateRange: a slice of the selection, parents outside it still evaluated', async (t) => {
  const flags = [
    flag({ name: 'parent', createdAt: '2026-01-03T00:00:00.000Z', strategies: [strategy('default')] }),
    { ...flag({ name: 'child', createdAt: '2026-01-02T00:00:00.000Z' }), dependencies: [{ feature: 'parent' }] },
    { ...flag({ name: 'orphan', createdAt: '2026-01-01T00:00:00.000Z' }), dependencies: [{ feature: 'parent', enabled: false }] },
  ];
  const compiled = compile(snapshot(flags));
  const selection = selectFlags(compiled);
  const whole = evaluateSelection(compiled, selection, ENV, {}).map(playgroundFlagJson);
  for (let start = 0; start <= flags.length; start++) {
    for (let end = start; end <= flags.length; end++) {
      const range = evaluateRange(compiled, selection, ENV, {}, start, end).map(playgroundFlagJson);
      t.strictSame(range, whole.slice(start, end), `[${start}, ${end})`);
    }
  }
});

t.test('strategy variants: the first variant\'s stickiness wins over the strategy\'s parameter [reference 8.2.0]', async (t) => {
  // Measured on the reference: flexibleRollout (stickiness userId, groupId g) with variants a/b
  // sticky on `tenant` picks by tenant: tenant t2 → b (bucket 648), t4 → a (236), whatever userId says.
  const variants: StrategyVariantConfig[] = [
    { name: 'a', weight: 500, weightType: 'variable', stickiness: 'tenant' },
    { name: 'b', weight: 500, weightType: 'variable', stickiness: 'tenant' },
  ];
  const flags = [flag({ name: 'vs1', strategies: [strategy('flexibleRollout', { parameters: { rollout: '100', stickiness: 'userId', groupId: 'g' }, variants })] })];
  const b = resultOf(flags, 'vs1', { appName: 'x', userId: 'u2', properties: { tenant: 't2' } })!;
  t.strictSame(b.variant, { name: 'b', enabled: true, feature_enabled: true });
  t.strictSame((b.strategies.data[0]!.result as { variant: unknown }).variant, { name: 'b', enabled: true });
  const a = resultOf(flags, 'vs1', { appName: 'x', userId: 'u0', properties: { tenant: 't4' } })!;
  t.strictSame(a.variant, { name: 'a', enabled: true, feature_enabled: true });
  const sdk = compile(snapshot(flags));
  t.equal(getVariant(sdk, ENV, 'vs1', { userId: 'u2', properties: { tenant: 't2' } }).name, 'b', 'SDK view: the same pick');
});

t.test('a disabled strategy of a type without implementation is incomplete, not unevaluated [reference 8.2.0]', async (t) => {
  const flags = [flag({
    name: 'dc1',
    strategies: [
      strategy('myCustom', { disabled: true, parameters: { p: 'x' }, constraints: [constraint('userId', 'IN', { values: ['u1'] })] }),
      strategy('applicationHostname', { disabled: true, parameters: { hostNames: 'h' } }),
      strategy('default', { disabled: true }),
    ],
  })];
  const failing = resultOf(flags, 'dc1', { appName: 'x', userId: 'u2' })!;
  t.strictSame(failing.strategies.data.map((s) => s.result), [
    { enabled: false, evaluationStatus: 'incomplete' },
    { enabled: 'unknown', evaluationStatus: 'incomplete' },
    { enabled: 'unknown', evaluationStatus: 'unevaluated' },
  ]);
  const passing = resultOf(flags, 'dc1', { appName: 'x', userId: 'u1' })!;
  t.strictSame(passing.strategies.data[0]!.result, { enabled: 'unknown', evaluationStatus: 'incomplete' });
  t.equal(passing.strategies.result, 'unknown');
  t.equal(passing.isEnabled, false);
});
