/** Property tests (fast-check) over generated configurations and contexts. */
import t from 'tap';
import fc from 'fast-check';
import {
  AdvancedEntryWriter,
  advancedEntryJson,
  advancedEntryObject,
  compile,
  constantDecision,
  ContextReader,
  decide,
  evaluate,
  evaluateSelection,
  getVariant,
  isEnabled,
  JsonChunkWriter,
  playgroundFeaturesJson,
  playgroundFlagJson,
  playgroundFlagObject,
  selectFlags,
} from '../../src/evaluation/index.js';
import { ENV, flag, snapshot, strategy } from './fixtures/builders.js';
import { constraintArb, contextArb, hostileContextArb, OPERATORS, snapshotArb } from './fixtures/arbitraries.js';

const ENVIRONMENTS = [ENV, 'production', 'nowhere'];

t.test('fast serializer equals JSON.stringify of the result objects, byte for byte', async (t) => {
  // Several contexts per configuration, so the serializer's per-strategy memos are hit as well as filled.
  const contexts = fc.array(contextArb(), { minLength: 1, maxLength: 4 });
  fc.assert(
    fc.property(snapshotArb(), contexts, fc.constantFrom(...ENVIRONMENTS), (config, contextList, environment) => {
      const compiled = compile(config);
      for (const context of contextList) {
        const evaluations = evaluateSelection(compiled, selectFlags(compiled), environment, context);
        const contextJson = JSON.stringify(context);
        for (const evaluation of evaluations) {
          const fast = playgroundFlagJson(evaluation);
          const slow = JSON.stringify(playgroundFlagObject(evaluation));
          if (fast !== slow) throw new Error(`deprecated shape differs:\n${fast}\n${slow}`);
          const fastEntry = advancedEntryJson(evaluation, contextJson);
          const slowEntry = JSON.stringify(advancedEntryObject(evaluation, context));
          if (fastEntry !== slowEntry) throw new Error(`advanced shape differs:\n${fastEntry}\n${slowEntry}`);
        }
        if (playgroundFeaturesJson(evaluations) !== JSON.stringify(evaluations.map(playgroundFlagObject))) return false;
      }
      return true;
    }),
    { numRuns: 400 },
  );
  t.pass('400 generated configurations');
});

t.test('the advanced entry writer writes the bytes of advancedEntryJson, its memos hit or not', async (t) => {
  // Several contexts per flag, in two rounds, so remembered heads and tails are reused and matched
  // against entries that differ; a writer per round, as a worker has one per task.
  const contexts = fc.array(contextArb(), { minLength: 1, maxLength: 6 });
  fc.assert(
    fc.property(snapshotArb(), contexts, fc.constantFrom(...ENVIRONMENTS), (config, contextList, environment) => {
      const compiled = compile(config);
      const selection = selectFlags(compiled);
      const byContext = contextList.map((context) => evaluateSelection(compiled, selection, environment, context));
      for (let round = 0; round < 2; round++) {
        const writer = new JsonChunkWriter();
        const entries = new AdvancedEntryWriter(writer);
        let expected = '';
        for (let f = 0; f < selection.flags.length; f++) {
          contextList.forEach((context, i) => {
            const contextJson = JSON.stringify(context);
            entries.write(byContext[i]![f]!, Buffer.from(',"context":' + contextJson), i === 0);
            expected += (i === 0 ? '' : ',') + advancedEntryJson(byContext[i]![f]!, contextJson);
          });
        }
        const written = writer.toBuffer().toString('utf8');
        if (written !== expected) throw new Error(`entry writer differs:\n${written}\n${expected}`);
      }
      return true;
    }),
    { numRuns: 300 },
  );
  t.pass('300 generated configurations');
});

t.test('evaluation never throws, whatever the context', async (t) => {
  fc.assert(
    fc.property(snapshotArb(), hostileContextArb, (config, context) => {
      const compiled = compile(config);
      for (const environment of ENVIRONMENTS) {
        const evaluations = evaluateSelection(compiled, selectFlags(compiled), environment, context);
        playgroundFeaturesJson(evaluations);
        evaluations.forEach((evaluation) => advancedEntryJson(evaluation, '{}'));
        for (const name of compiled.flags.keys()) {
          isEnabled(compiled, environment, name, context);
          getVariant(compiled, environment, name, context);
        }
      }
    }),
    { numRuns: 300 },
  );
  t.pass('300 hostile contexts');
});

t.test('inverted negates every known operator', async (t) => {
  fc.assert(
    fc.property(constraintArb(OPERATORS), contextArb(), (constraint, context) => {
      // Both polarities in one evaluation, so they read the same instant when currentTime is absent.
      const strategies = [
        strategy('default', { constraints: [{ ...constraint, inverted: false }] }),
        strategy('default', { constraints: [{ ...constraint, inverted: true }] }),
      ];
      const [plain, inverted] = evaluate(compile(snapshot([flag({ name: 'f', strategies })])), ENV, context)[0]!.strategies.data;
      return plain!.constraints[0]!.result === !inverted!.constraints[0]!.result;
    }),
    { numRuns: 1000 },
  );
  t.pass();
});

t.test('deterministic for sticky contexts, and the SDK path agrees with the playground', async (t) => {
  fc.assert(
    fc.property(snapshotArb({ deterministic: true }), contextArb(true), fc.constantFrom(...ENVIRONMENTS), (config, context, environment) => {
      const compiled = compile(config);
      const once = JSON.stringify(evaluate(compiled, environment, context));
      const twice = JSON.stringify(evaluate(compiled, environment, context));
      if (once !== twice) return false;
      for (const result of evaluate(compiled, environment, context)) {
        if (isEnabled(compiled, environment, result.name, context) !== result.isEnabled) return false;
        if (getVariant(compiled, environment, result.name, context).name !== result.variant.name) return false;
      }
      return true;
    }),
    { numRuns: 400 },
  );
  t.pass();
});

t.test('a positive total weight always picks a variant of positive weight; zero weights take no share', async (t) => {
  // Unique names, so the name of the pick says which definition it came from.
  const variantsArb = fc
    .uniqueArray(fc.record({ name: fc.string({ minLength: 1 }), weight: fc.nat({ max: 1000 }) }), { minLength: 1, maxLength: 6, selector: (variant) => variant.name })
    .filter((variants) => variants.some((variant) => variant.weight > 0));
  const pick = (variants: Array<{ name: string; weight: number }>, stickiness: string, context: Record<string, unknown>) => {
    const definitions = variants.map((variant) => ({ ...variant, weightType: 'variable' as const, stickiness }));
    return getVariant(compile(snapshot([flag({ name: 'f', variants: definitions })])), ENV, 'f', context);
  };
  fc.assert(
    fc.property(variantsArb, contextArb(), contextArb(true), fc.constantFrom('default', 'userId', 'tenant'), (variants, context, sticky, stickiness) => {
      const picked = pick(variants, stickiness, context);
      if (!picked.enabled || !variants.some((variant) => variant.name === picked.name && variant.weight > 0)) return false;
      // A sticky context gets the same pick with the zero-weight variants left out: they neither
      // win nor move the others' ranges.
      const positive = variants.filter((variant) => variant.weight > 0);
      return pick(positive, stickiness, sticky).name === pick(variants, stickiness, sticky).name;
    }),
    { numRuns: 1000 },
  );
  t.pass();
});

t.test('a constant decision is the decision for every context, in both context modes', async (t) => {
  let constants = 0;
  let on = 0;
  fc.assert(
    fc.property(snapshotArb(), fc.array(contextArb(), { minLength: 1, maxLength: 4 }), fc.constantFrom(...ENVIRONMENTS), (config, contexts, environment) => {
      const compiled = compile(config);
      for (const flag of compiled.flags.values()) {
        const env = flag.environment(environment);
        const constant = constantDecision(flag, env);
        if (constant === undefined) continue;
        constants++;
        if (constant.enabled) on++;
        for (const context of contexts) {
          for (const reader of [new ContextReader(context), new ContextReader(context, 'frontend')]) {
            const decided = decide(compiled, environment, flag, reader, env);
            if (decided.enabled !== constant.enabled || decided.variant !== constant.variant || decided.strategyVariant !== constant.strategyVariant) return false;
          }
        }
      }
      return true;
    }),
    { numRuns: 400 },
  );
  t.ok(constants > 100 && on > 0, `${constants} constant decisions checked, ${on} of them on for everyone`);
});
