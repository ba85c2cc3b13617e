/**
 * Shared constraints and address lists (src/evaluation/intern.ts) and their per-context memos:
 * identical definitions compile to one object, and an answer remembered for one context never
 * leaks into another's, however their evaluations interleave.
 */
import fc from 'fast-check';
import t from 'tap';
import {
  compile, ContextReader, decide, type ConstraintConfig, type FlagConfig, type SdkDecision, type Snapshot, type StrategyConfig,
} from '../../src/evaluation/index.js';
import { Interner } from '../../src/evaluation/intern.js';
import { contextArb, snapshotArb } from './fixtures/arbitraries.js';
import { constraint, ENV, flag, strategy } from './fixtures/builders.js';

t.test('identical definitions share one compiled object, in one snapshot and across snapshots', async (t) => {
  const eu = () => constraint('region', 'IN', { values: ['eu'] });
  const office = () => strategy('remoteAddress', { parameters: { IPs: '10.0.0.0/8, 192.168.1.1' } });
  const config = {
    flags: [
      flag({ name: 'a', strategies: [strategy('default', { constraints: [eu()] }), office()] }),
      flag({ name: 'b', strategies: [strategy('default', { constraints: [eu(), constraint('region', 'IN', { values: ['us'] })] }), office()] }),
    ],
    segments: [{ id: 1, name: 's', constraints: [eu()] }],
  };
  const compiled = compile(config);
  const strategies = (name: string) => compiled.flags.get(name)!.environment(ENV).strategies;
  const [a, b] = [strategies('a'), strategies('b')];
  t.equal(a[0]!.constraints[0], b[0]!.constraints[0], 'one constraint for both flags');
  t.not(b[0]!.constraints[0], b[0]!.constraints[1], 'another value, another constraint');
  t.not(compiled.segments.get(1)!.constraints[0], a[0]!.constraints[0], "a segment's constraint is echoed differently: its own");
  t.equal(a[1]!.addressList, b[1]!.addressList, 'one address list for both remoteAddress strategies');
  t.equal(compile(config).flags.get('a')!.environment(ENV).strategies[0]!.constraints[0], a[0]!.constraints[0], 'the next snapshot shares it too');
});

/**
 * The configuration as one context's own: each constraint with a key naming the context and each
 * address list with trailing blanks as many as its number (neither changes a decision), so that
 * nothing compiled for one context is shared with another's or the interleaved run's.
 */
function ownCopy(snapshot: Snapshot, k: number): Snapshot {
  const mark = (c: ConstraintConfig): ConstraintConfig => Object.assign({ ownedBy: k }, c);
  const strategies = (list: readonly StrategyConfig[]) => list.map((s) => ({
    ...s,
    constraints: s.constraints.map(mark),
    parameters: typeof s.parameters.IPs === 'string' ? { ...s.parameters, IPs: s.parameters.IPs + ' '.repeat(k + 1) } : s.parameters,
  }));
  return {
    flags: snapshot.flags.map((f) => ({
      ...f,
      environments: Object.fromEntries(Object.entries(f.environments).map(([name, env]) => [name, { ...env, strategies: strategies(env.strategies) }])),
    })),
    segments: snapshot.segments.map((segment) => ({ ...segment, constraints: segment.constraints.map(mark) })),
  };
}

t.test('remembered answers follow their context when evaluations interleave', async (t) => {
  // Every flag twice under two names: every constraint and address list is shared.
  const twice = (flags: readonly FlagConfig[]) => flags.flatMap((f) => [f, { ...f, name: `${f.name}\u0000copy`, dependencies: [] }]);
  await fc.assert(
    fc.asyncProperty(snapshotArb({ deterministic: true }), fc.array(contextArb(true), { minLength: 2, maxLength: 5 }), async (generated, contexts) => {
      const snapshot = { flags: twice(generated.flags), segments: generated.segments };
      const compiled = compile(snapshot);
      const names = [...compiled.flags.keys()];
      for (const rules of ['specification', 'frontend'] as const) {
        // Alone: each context on its own compiled copy, so nothing remembered for one reaches another.
        const alone = contexts.map((context, k) => {
          const own = compile(ownCopy(snapshot, k));
          const reader = new ContextReader(context, rules);
          return names.map((name) => decide(own, ENV, own.flags.get(name)!, reader));
        });
        // Interleaved: one snapshot, one reader per context, the contexts taking turns flag by flag.
        const readers = contexts.map((context) => new ContextReader(context, rules));
        const interleaved = contexts.map(() => [] as unknown[]);
        for (const name of names) readers.forEach((reader, c) => interleaved[c]!.push(decide(compiled, ENV, compiled.flags.get(name)!, reader)));
        t.same(interleaved.map(decisions), alone.map(decisions));
      }
    }),
    { numRuns: 300 },
  );
});

/** Decisions as data (the compiled variants of two copies are different objects). */
function decisions(list: readonly unknown[]): unknown[] {
  return (list as SdkDecision[]).map(({ enabled, variant, strategyVariant }) => ({ enabled, variant: variant?.name ?? null, strategyVariant }));
}

t.test('the same constraint for two readers of one context, with the rules that tell them apart', async (t) => {
  // IN with caseInsensitive: the specification folds case, the frontend API's SDK does not (docs/rules.md §9.2).
  const config = { flags: [flag({ name: 'f', strategies: [strategy('default', { constraints: [constraint('region', 'IN', { values: ['EU'], caseInsensitive: true })] })] })], segments: [] };
  const compiled = compile(config);
  const f = compiled.flags.get('f')!;
  const context = { properties: { region: 'eu' } };
  const spec = new ContextReader(context);
  const frontend = new ContextReader(context, 'frontend');
  t.equal(decide(compiled, ENV, f, spec).enabled, true);
  t.equal(decide(compiled, ENV, f, frontend).enabled, false);
  t.equal(decide(compiled, ENV, f, spec).enabled, true, 'the first reader again');
});

t.test('an Interner keeps one object per key while it lives', async (t) => {
  const interner = new Interner<{ n: number }>();
  let made = 0;
  const first = interner.get('k', () => ({ n: ++made }));
  t.equal(interner.get('k', () => ({ n: ++made })), first);
  t.not(interner.get('other', () => ({ n: ++made })), first);
  t.equal(made, 2);
  t.equal(interner.size, 2);
});
