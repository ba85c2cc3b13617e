/**
 * Context preparation for the advanced and change-request playgrounds (docs/rules.md §3.4, §3.5): cleaning
 * and comma expansion into combinations. The deprecated playground uses neither.
 *
 * Combinations can be counted and produced one at a time by index, so a caller can check the
 * complexity limit first and split index ranges across workers without materializing them all.
 */
import { isObject, setOwn } from './json.js';

export interface CleanedContext {
  /** Kept keys in their original order, then `appName` last. */
  context: Record<string, unknown>;
  /** Names of dropped keys, in key order (the response's `warnings.invalidContextProperties`). */
  removedProperties: string[];
}

/**
 * docs/rules.md §3.4: `appName` set aside and re-added last; `properties` always kept; every other key kept
 * only when its value is a string.
 */
export function cleanContext(context: Record<string, unknown>): CleanedContext {
  const cleaned: Record<string, unknown> = {};
  const removedProperties: string[] = [];
  for (const key of Object.keys(context)) {
    if (key === 'appName') continue;
    const value = context[key];
    if (key === 'properties' || typeof value === 'string') setOwn(cleaned, key, value);
    else removedProperties.push(key);
  }
  if (context.appName !== undefined) setOwn(cleaned, 'appName', context.appName);
  return { context: cleaned, removedProperties };
}

/**
 * The value lists to combine: one list per key (key order as a JavaScript object orders its keys,
 * like Unleash's), strings split on ',' without trimming, other values as one-item lists, and the
 * entries of an object-valued `properties` merged into the top level.
 */
export interface CombinationSpace {
  readonly keys: readonly string[];
  readonly lists: readonly (readonly unknown[])[];
  /** Product of the list lengths; 1 for an empty context (one empty combination). */
  readonly count: number;
}

export function combinationSpace(cleanedContext: Record<string, unknown>): CombinationSpace {
  const lists: Record<string, unknown[]> = {};
  collectValueLists(cleanedContext, lists);
  const keys = Object.keys(lists);
  const valueLists = keys.map((key) => lists[key]!);
  const count = valueLists.reduce((product, list) => product * list.length, 1);
  return { keys, lists: valueLists, count };
}

/** docs/rules.md §3.5 step 1, `properties` recursively flattened: later keys overwrite, keeping position. */
function collectValueLists(source: Record<string, unknown>, into: Record<string, unknown[]>): void {
  for (const key of Object.keys(source)) {
    const value = source[key];
    if (key === 'properties' && isObject(value)) collectValueLists(value, into);
    else setOwn(into, key, typeof value === 'string' ? value.split(',') : [value]);
  }
}

/**
 * The `index`-th combination (0-based) of the cartesian product, first key varying slowest and
 * the last key fastest: a mixed-radix decoding of `index`.
 */
export function combinationAt(space: CombinationSpace, index: number): Record<string, unknown> {
  const combination: Record<string, unknown> = {};
  const picks: unknown[] = new Array(space.keys.length);
  let rest = index;
  for (let k = space.keys.length - 1; k >= 0; k--) {
    const list = space.lists[k]!;
    picks[k] = list[rest % list.length];
    rest = Math.floor(rest / list.length);
  }
  for (let k = 0; k < space.keys.length; k++) setOwn(combination, space.keys[k]!, picks[k]);
  return combination;
}
