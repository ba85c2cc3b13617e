/**
 * Pure validation and normalisation rules for flags, strategies, constraints and variants
 * (docs/rules.md §1.4 S4/S6, §3.9, §6). No I/O: the live endpoints and change requests share them.
 */
import { randomBytes } from 'node:crypto';
import { schemaValidationError, validationError } from '../../errors.js';
import { assertStrategyConstraintLimits, CONSTRAINT_OPERATORS, normaliseConstraints } from '../constraints/index.js';
import { isUrlFriendly } from '../shared.js';
import type { ConstraintConfig, StrategyVariantConfig, VariantConfig } from '../../evaluation/types.js';
import { jsonbOrder } from '../../json.js';

export const FLAG_TYPES = ['experiment', 'kill-switch', 'release', 'operational', 'permission', 'sunset'] as const;

export const OPERATORS = CONSTRAINT_OPERATORS;

export const LIMITS = {
  flags: 5000,
  strategiesPerEnvironment: 30,
  constraintsPerStrategy: 30,
  valuesPerConstraint: 250,
  segmentsPerStrategy: 5,
  valuesPerSegment: 1000,
} as const;

/** Flag-name rules of docs/rules.md §6 step 1 (handler 400s whose message is the reason itself). */
export function checkFlagName(name: string): void {
  const fail = (reason: string) => schemaValidationError([{ message: reason }]);
  if (name.length === 0) throw fail('"name" is not allowed to be empty.');
  if (name.length > 100) throw fail(`"name" length must be less than or equal to 100 characters long. You provided "${name}".`);
  if (!isUrlFriendly(name)) throw fail(`"name" must be URL friendly. You provided "${name}".`);
}

export { jsonbOrder };

// ---------------------------------------------------------------------------------------------
// Constraints: the shared rules of src/features/constraints, plus the per-strategy limits.

export type ConstraintInput = Record<string, unknown>;

export function normaliseStrategyConstraints(inputs: unknown): ConstraintConfig[] {
  const constraints = normaliseConstraints(inputs);
  assertStrategyConstraintLimits(constraints);
  return constraints;
}

// ---------------------------------------------------------------------------------------------
// Variants (docs/rules.md §3.9 weight normalisation)

interface WeightedInput {
  name: string;
  weight: number;
  weightType?: string;
  [key: string]: unknown;
}

/**
 * Drops variants without a weight type, checks fixed weights, spreads the remaining 1000 over the
 * variable variants (the first `remainder` get one more, in input order) and sorts by name.
 * Keeps each variant's keys in their incoming order (only `weight` changes in place).
 */
export function normaliseWeights<T extends WeightedInput>(variants: T[]): T[] {
  const typed = variants.filter((v) => v.weightType === 'variable' || v.weightType === 'fix');
  if (typed.length === 0) return [];
  const variable = typed.filter((v) => v.weightType === 'variable');
  if (variable.length === 0) throw validationError('There must be at least one "variable" variant');
  const fixedSum = typed.filter((v) => v.weightType === 'fix').reduce((sum, v) => sum + Number(v.weight), 0);
  if (fixedSum > 1000) throw validationError('The traffic distribution total must equal 100%');
  const share = Math.floor((1000 - fixedSum) / variable.length);
  let remainder = (1000 - fixedSum) % variable.length;
  const out = typed.map((v) => {
    if (v.weightType !== 'variable') return { ...v };
    const extra = remainder > 0 ? 1 : 0;
    remainder -= extra;
    return { ...v, weight: share + extra };
  });
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

export interface StrategyVariantInput {
  name: string;
  weight: number;
  weightType: 'variable' | 'fix';
  stickiness: string;
  payload?: { type: string; value: string };
}

export function normaliseStrategyVariants(inputs: StrategyVariantInput[] | undefined): StrategyVariantConfig[] {
  if (!inputs || inputs.length === 0) return [];
  return jsonbOrder(normaliseWeights(inputs.map((v) => ({ ...v }))));
}

export interface VariantInput {
  name: string;
  weight: number;
  weightType?: string;
  stickiness?: string;
  payload?: { type: string; value: string };
  overrides?: Array<{ contextName: string; values: string[] }>;
}

/** Environment variants: unique names, JSON payloads must parse, weights normalised. */
export function normaliseEnvironmentVariants(inputs: VariantInput[]): VariantConfig[] {
  const seen = new Set<string>();
  for (const [index, v] of inputs.entries()) {
    if (typeof v?.name !== 'string' || v.name.length === 0) throw validationError(`"[${index}].name" is required`);
    if (seen.has(v.name)) throw validationError(`"[${index}]" contains a duplicate value`);
    seen.add(v.name);
    if (v.payload?.type === 'json') {
      try {
        JSON.parse(v.payload.value);
      } catch {
        throw validationError(`"[${index}].payload.value" must be a valid JSON string`);
      }
    }
  }
  return normaliseWeights(inputs.map((v) => ({ ...v }))) as VariantConfig[];
}

// ---------------------------------------------------------------------------------------------
// Ids

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
let lastTime = -1;
let lastRandom: number[] = [];

/** A 26-character ULID, monotonic within a millisecond (strategy ids, docs/rules.md §1.4 S4 step 6). */
export function ulid(now = Date.now()): string {
  let random: number[];
  if (now === lastTime) {
    random = [...lastRandom];
    for (let i = random.length - 1; i >= 0; i--) {
      if (random[i]! < 31) {
        random[i]!++;
        break;
      }
      random[i] = 0;
    }
  } else {
    const bytes = randomBytes(16);
    random = Array.from({ length: 16 }, (_, i) => bytes[i]! & 31);
  }
  lastTime = now;
  lastRandom = random;
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  return time + random.map((r) => CROCKFORD[r]).join('');
}
