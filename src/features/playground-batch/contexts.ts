/**
 * Where the contexts of a batch or impact request come from, produced one at a time by index so
 * a worker can make its own share of a large population (only the spec crosses the thread
 * boundary, never 100 000 context objects) and the main thread can count them first.
 */
import { combinationAt, combinationSpace, type CombinationSpace } from '../../evaluation/index.js';

/** An inclusive integer range, expanded to its decimal strings. */
export interface PopulationRange {
  from: number;
  to: number;
}

/**
 * `{userId: {from, to}, region: ["eu", "us"], "properties.plan": ["1", "2"]}`: every combination,
 * the first key varying slowest (as the advanced playground's comma expansion orders them).
 * A key `properties.x` sets `properties.x`; any other key a top-level field.
 */
export type PopulationSpec = Record<string, PopulationRange | string[]>;

export type ContextSource =
  /** Explicit contexts, evaluated as given. */
  | { kind: 'list'; contexts: Array<Record<string, unknown>> }
  /** A cleaned advanced-playground context: its comma-separated values expanded. */
  | { kind: 'combinations'; context: Record<string, unknown> }
  | { kind: 'population'; spec: PopulationSpec };

function isRange(value: PopulationRange | string[]): value is PopulationRange {
  return !Array.isArray(value);
}

function axisLength(value: PopulationRange | string[]): number {
  return isRange(value) ? Math.max(0, value.to - value.from + 1) : value.length;
}

/** Number of contexts in a population: the product of its axes (0 when one is empty). */
export function populationCount(spec: PopulationSpec): number {
  return Object.values(spec).reduce((product, axis) => product * axisLength(axis), 1);
}

/** The `index`-th context of a population: a mixed-radix decoding, last key fastest. */
export function populationAt(spec: PopulationSpec, index: number): Record<string, unknown> {
  const keys = Object.keys(spec);
  const picks = new Array<string>(keys.length);
  let rest = index;
  for (let k = keys.length - 1; k >= 0; k--) {
    const axis = spec[keys[k]!]!;
    const length = axisLength(axis);
    const i = rest % length;
    rest = Math.floor(rest / length);
    picks[k] = isRange(axis) ? String(axis.from + i) : axis[i]!;
  }
  const context: Record<string, unknown> = {};
  let properties: Record<string, unknown> | undefined;
  keys.forEach((key, k) => {
    if (key.startsWith('properties.')) {
      properties ??= {};
      properties[key.slice('properties.'.length)] = picks[k];
    } else {
      context[key] = picks[k];
    }
  });
  if (properties) context.properties = properties;
  return context;
}

/** How many contexts a source yields. */
export function sourceCount(source: ContextSource): number {
  switch (source.kind) {
    case 'list':
      return source.contexts.length;
    case 'combinations':
      return combinationSpace(source.context).count;
    case 'population':
      return populationCount(source.spec);
  }
}

/**
 * A reader of contexts [start, end) of a source. For a list, `start` is the index of its first
 * context (a task carries only its own slice of the list).
 */
export class ContextCursor {
  private readonly space: CombinationSpace | undefined;

  constructor(private readonly source: ContextSource, private readonly offset = 0) {
    this.space = source.kind === 'combinations' ? combinationSpace(source.context) : undefined;
  }

  at(index: number): Record<string, unknown> {
    switch (this.source.kind) {
      case 'list':
        return this.source.contexts[index - this.offset]!;
      case 'combinations':
        return combinationAt(this.space!, index);
      case 'population':
        return populationAt(this.source.spec, index);
    }
  }
}
