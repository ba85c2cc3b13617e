/** Context cleaning and comma expansion for the advanced playground (docs/rules.md §3.4, §3.5). */
import t from 'tap';
import fc from 'fast-check';
import {
  cleanContext,
  combinationAt,
  combinationSpace,
} from '../../src/evaluation/index.js';
import { expandCombinations } from './combinations.js';

t.test('cleanContext keeps strings and properties, appName last [peer 47]', async (t) => {
  const { context, removedProperties } = cleanContext({ appName: 'a', userId: '1', tenant: { id: 1 }, flag: true });
  t.strictSame(Object.entries(context), [['userId', '1'], ['appName', 'a']]);
  t.strictSame(removedProperties, ['tenant', 'flag']);
  const kept = cleanContext({ properties: 'odd', n: 5, nothing: null, list: [], appName: 'x' });
  t.strictSame(Object.keys(kept.context), ['properties', 'appName'], 'properties kept whatever its value');
  t.strictSame(kept.removedProperties, ['n', 'nothing', 'list']);
  t.strictSame(cleanContext({ userId: '1' }).context, { userId: '1' }, 'no appName: none added');
});

t.test('expansion order [peer 45]', async (t) => {
  const { context } = cleanContext({ appName: 'a', userId: '1,2,3', properties: { region: 'eu,us' } });
  t.strictSame(
    expandCombinations(context).map((combination) => Object.entries(combination)),
    [
      ['1', 'eu'],
      ['1', 'us'],
      ['2', 'eu'],
      ['2', 'us'],
      ['3', 'eu'],
      ['3', 'us'],
    ].map(([userId, region]) => [['userId', userId], ['region', region], ['appName', 'a']]),
  );
  t.equal(combinationSpace(context).count, 6);
});

t.test('splitting: no trimming, empty pieces kept, appName split too', async (t) => {
  t.strictSame(expandCombinations({ a: 'web, mobile' }), [{ a: 'web' }, { a: ' mobile' }]);
  t.strictSame(expandCombinations({ a: 'x,' }), [{ a: 'x' }, { a: '' }]);
  t.strictSame(expandCombinations({ appName: 'p,q' }), [{ appName: 'p' }, { appName: 'q' }]);
  t.strictSame(expandCombinations({}), [{}], 'an empty context is one empty combination');
});

t.test('properties merge into the top level', async (t) => {
  const merged = expandCombinations({ region: 'x', properties: { region: 'eu', tier: 'gold' }, appName: 'a' });
  t.strictSame(Object.entries(merged[0]!), [['region', 'eu'], ['tier', 'gold'], ['appName', 'a']], 'overwrite keeps the earlier position');
  const later = expandCombinations({ properties: { region: 'eu' }, region: 'us' });
  t.strictSame(later, [{ region: 'us' }], 'a later top-level key overwrites');
  t.strictSame(expandCombinations({ properties: null, a: 'b' }), [{ properties: null, a: 'b' }], 'non-object properties: an ordinary one-item value');
  t.strictSame(expandCombinations({ properties: 'p,q' }), [{ properties: 'p' }, { properties: 'q' }], 'string properties split like any string');
});

t.test('combinationAt equals the materialized expansion', async (t) => {
  const contexts = fc.dictionary(
    fc.string({ maxLength: 4 }),
    fc.oneof(fc.string({ maxLength: 6 }), fc.dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 5 }), { maxKeys: 3 })),
    { maxKeys: 4 },
  );
  fc.assert(
    fc.property(contexts, (context) => {
      const all = expandCombinations(context);
      const space = combinationSpace(context);
      if (space.count !== all.length) return false;
      return all.every((combination, i) => JSON.stringify(combinationAt(space, i)) === JSON.stringify(combination));
    }),
  );
  t.pass('count and index decoding agree with the expansion');
});
