import { combinationAt, combinationSpace } from '../../src/evaluation/index.js';

/** Every combination of a cleaned context, in order (docs/rules.md §3.5 step 2): what the pool's threads decode one index at a time. */
export function expandCombinations(cleanedContext: Record<string, unknown>): Record<string, unknown>[] {
  const space = combinationSpace(cleanedContext);
  return Array.from({ length: space.count }, (_, i) => combinationAt(space, i));
}
