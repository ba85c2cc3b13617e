/** Compiling a configuration: each flag environment compiled on first use (compile.ts `CompiledFlag.environment`). */
import t from 'tap';
import { compile, isEnabled } from '../../src/evaluation/index.js';
import { ENV, flag, snapshot, strategy } from './fixtures/builders.js';

t.test('an environment is compiled once, on first use; one the flag has no configuration for is off', async (t) => {
  const compiled = compile(snapshot([flag({ name: 'a', strategies: [strategy('default')] })]));
  const a = compiled.flags.get('a')!;
  const first = a.environment(ENV);
  t.equal(a.environment(ENV), first, 'the same compiled environment every time');
  t.equal(first.enabled, true);
  t.equal(first.strategies.length, 1);
  for (const missing of ['production', 'toString', '__proto__', 'constructor', 'hasOwnProperty']) {
    const env = a.environment(missing);
    t.equal(env.enabled, false, `${missing}: off`);
    t.equal(env.strategies.length, 0, `${missing}: no strategies`);
    t.equal(isEnabled(compiled, missing, 'a', {}), false, `${missing}: an SDK sees it off`);
  }
  t.equal(isEnabled(compiled, ENV, 'a', {}), true);
});

t.test('each environment is compiled from its own configuration', async (t) => {
  const config = flag({ name: 'b', strategies: [strategy('default')] });
  config.environments.production = { enabled: true, strategies: [strategy('flexibleRollout', { parameters: { rollout: '0' } })], variants: [] };
  const compiled = compile(snapshot([config]));
  const b = compiled.flags.get('b')!;
  t.equal(isEnabled(compiled, ENV, 'b', {}), true);
  t.equal(isEnabled(compiled, 'production', 'b', { userId: '1' }), false, 'production follows its own configuration');
  t.not(b.environment('production'), b.environment(ENV));
});
