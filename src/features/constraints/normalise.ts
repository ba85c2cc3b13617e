/**
 * Constraint validation and normalisation shared by strategies and segments (docs/rules.md §1.4 strategies
 * item 3, segments S9). Pure functions: no database, no request. Failures are thrown as the 400s
 * Unleash answers with, through src/errors.ts:
 *
 * - what Unleash checks with joi (types, operator, value lengths, numbers, dates, non-empty value
 *   lists) → `schemaValidationError([{message}])`, the joi text plus `. You provided {json}.`
 *   (or a bare `.` when the offending value is empty), as Unleash's `fromJoiError` renders it;
 * - what Unleash throws as a plain `BadDataError(reason)` (single-value rule, semver, regex)
 *   → `validationError(reason)`.
 *
 * The result is stored as is: keys in Postgres-JSONB order (`value, values, inverted, operator,
 * contextName, caseInsensitive`, docs/rules.md §3.7), `values` always present (`[]` when missing),
 * `value`/`inverted`/`caseInsensitive` only when sent.
 */
import { RE2JS } from 're2js';
import semver from 'semver';
import { exceedsLimit, schemaValidationError, validationError } from '../../errors.js';
import type { ConstraintConfig } from '../../evaluation/types.js';

export const CONSTRAINT_OPERATORS = [
  'NOT_IN', 'IN', 'STR_ENDS_WITH', 'STR_STARTS_WITH', 'STR_CONTAINS',
  'NUM_EQ', 'NUM_GT', 'NUM_GTE', 'NUM_LT', 'NUM_LTE',
  'DATE_AFTER', 'DATE_BEFORE',
  'SEMVER_EQ', 'SEMVER_GT', 'SEMVER_LT', 'SEMVER_GTE', 'SEMVER_LTE',
  'REGEX',
] as const;

export type ConstraintOperator = (typeof CONSTRAINT_OPERATORS)[number];

const OPERATORS: ReadonlySet<string> = new Set(CONSTRAINT_OPERATORS);
const NUM_OPERATORS: ReadonlySet<string> = new Set(['NUM_EQ', 'NUM_GT', 'NUM_GTE', 'NUM_LT', 'NUM_LTE']);
const DATE_OPERATORS: ReadonlySet<string> = new Set(['DATE_AFTER', 'DATE_BEFORE']);
const SEMVER_OPERATORS: ReadonlySet<string> = new Set(['SEMVER_EQ', 'SEMVER_GT', 'SEMVER_LT', 'SEMVER_GTE', 'SEMVER_LTE']);
const STRING_OPERATORS: ReadonlySet<string> = new Set(['IN', 'NOT_IN', 'STR_ENDS_WITH', 'STR_STARTS_WITH', 'STR_CONTAINS']);

/** Unleash's defaults (resource limits): per strategy, per constraint, per segment. */
export const CONSTRAINT_LIMITS = {
  constraintsPerStrategy: 30,
  valuesPerConstraint: 250,
  valuesPerSegment: 1000,
} as const;

export const SINGLE_VALUE_REQUIRED = 'Single-value constraint operators require a non-empty value.';
export const REGEX_NOT_INVERTIBLE = 'REGEX constraints cannot be inverted.';

export interface NormaliseOptions {
  /**
   * Prefix of joi labels. Unleash validates a segment body as a whole first, so its messages name
   * `constraints[0].values[0]`; strategy constraints are validated one by one (`values[0]`).
   */
  labelPrefix?: string;
}

/** A joi-style failure as Unleash's fromJoiError renders it. */
function joiError(label: string, text: string, value: unknown): never {
  const end = value ? `. You provided ${JSON.stringify(value)}.` : '.';
  throw schemaValidationError([{ message: `"${label}" ${text}${end}` }]);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** joi.number() on a string: a plain decimal (optionally signed, with exponent), finite and safe. */
const DECIMAL = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?\s*$/i;

function numberProblem(value: unknown): string | null {
  if (typeof value === 'number') return Number.isFinite(value) ? null : 'must be a number';
  if (typeof value !== 'string' || !DECIMAL.test(value)) return 'must be a number';
  const parsed = Number(value);
  if (!Number.isFinite(parsed)) return 'must be a number';
  if (Math.abs(parsed) > Number.MAX_SAFE_INTEGER) return 'must be a safe number';
  return null;
}

/** joi.date() on a string: a numeric string is a timestamp, anything else goes through `new Date`. */
function isJoiDate(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'string' || /^\s*$/.test(value)) return false;
  if (/^[+-]?\d+(\.\d+)?$/.test(value)) return !Number.isNaN(new Date(Number.parseFloat(value)).getTime());
  return !Number.isNaN(new Date(value).getTime());
}

/**
 * Strict semver as Unleash checks it: valid, with no `v`/`=` prefix and no surrounding spaces.
 * Build metadata is fine (`1.2.3+build.5`, measured on the reference; `semver.clean` would drop it).
 */
function isStrictSemver(value: string): boolean {
  return semver.valid(value) !== null && /^[0-9]/.test(value) && value.trim() === value;
}

function compilesAsRe2(value: string): boolean {
  try {
    RE2JS.compile(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * Validates one constraint and returns it in stored form. `input` is what the request carried
 * (normally already shape-checked by the route schema; checked again here so other callers get
 * the same answers).
 */
export function normaliseConstraint(input: unknown, options: NormaliseOptions & { index?: number } = {}): ConstraintConfig {
  const prefix = options.labelPrefix !== undefined ? `${options.labelPrefix}[${options.index ?? 0}].` : '';
  if (!isPlainObject(input)) joiError(options.labelPrefix !== undefined ? `${options.labelPrefix}[${options.index ?? 0}]` : 'value', 'must be of type object', input);
  const { contextName, operator, values, value, inverted, caseInsensitive } = input;

  // The joi constraint schema, key by key in its declaration order (abortEarly: first error wins).
  if (contextName === undefined) joiError(`${prefix}contextName`, 'is required', undefined);
  if (typeof contextName !== 'string') joiError(`${prefix}contextName`, 'must be a string', contextName);
  if (contextName === '') joiError(`${prefix}contextName`, 'is not allowed to be empty', contextName);
  if (operator === undefined) joiError(`${prefix}operator`, 'is required', undefined);
  if (typeof operator !== 'string' || !OPERATORS.has(operator)) {
    joiError(`${prefix}operator`, `must be one of [${CONSTRAINT_OPERATORS.join(', ')}]`, operator);
  }
  if (values !== undefined && values !== null) {
    if (!Array.isArray(values)) joiError(`${prefix}values`, 'must be an array', values);
    values.forEach((item, i) => {
      const label = `${prefix}values[${i}]`;
      if (typeof item !== 'string') joiError(label, 'must be a string', item);
      if (item === '') joiError(label, 'is not allowed to be empty', item);
      if (item.length > 100) joiError(label, 'length must be less than or equal to 100 characters long', item);
    });
  } else if (values === null) {
    joiError(`${prefix}values`, 'must be an array', values);
  }
  if (caseInsensitive !== undefined && typeof caseInsensitive !== 'boolean') {
    joiError(`${prefix}caseInsensitive`, 'must be a boolean', caseInsensitive);
  }
  if (inverted !== undefined && typeof inverted !== 'boolean') joiError(`${prefix}inverted`, 'must be a boolean', inverted);
  const list = (values ?? []) as string[];

  // Per-operator rules (Unleash's constraint validator), in its order.
  if (NUM_OPERATORS.has(operator) || DATE_OPERATORS.has(operator) || SEMVER_OPERATORS.has(operator)) {
    if (value === undefined || value === null || value === '') throw validationError(SINGLE_VALUE_REQUIRED);
  }
  if (NUM_OPERATORS.has(operator)) {
    const problem = numberProblem(value);
    if (problem) joiError('value', problem, value);
  }
  if (STRING_OPERATORS.has(operator) && list.length === 0) joiError('value', 'must contain at least 1 items', list);
  if (SEMVER_OPERATORS.has(operator)) {
    if (typeof value !== 'string') throw validationError('the provided value is not a string.');
    if (!isStrictSemver(value)) {
      throw validationError(`the provided value is not a valid semver format. The value provided was: ${value}`);
    }
  }
  if (DATE_OPERATORS.has(operator) && !isJoiDate(value)) joiError('value', 'must be a valid date', value);
  if (operator === 'REGEX') {
    if (value === undefined || value === null || value === '') throw validationError(SINGLE_VALUE_REQUIRED);
    if (typeof value !== 'string') throw validationError('the provided value is not a string.');
    if (inverted === true) throw validationError(REGEX_NOT_INVERTIBLE);
    if (!compilesAsRe2(value)) {
      throw validationError(`the provided value is not a valid regular expression. The value provided was: ${value}`);
    }
  }

  // Stored form, Postgres-JSONB key order.
  const out: ConstraintConfig = {} as ConstraintConfig;
  if (value !== undefined) out.value = typeof value === 'string' ? value : String(value);
  out.values = [...list];
  if (inverted !== undefined) out.inverted = inverted;
  out.operator = operator;
  out.contextName = contextName;
  if (caseInsensitive !== undefined) out.caseInsensitive = caseInsensitive;
  return out;
}

/**
 * Validates and normalises a constraint list (missing list → `[]`). Throws the first failure,
 * in list order, as Unleash does.
 */
export function normaliseConstraints(input: unknown, options: NormaliseOptions = {}): ConstraintConfig[] {
  if (input === undefined || input === null) return [];
  if (!Array.isArray(input)) joiError(options.labelPrefix ?? 'value', 'must be an array', input);
  return input.map((item, index) => normaliseConstraint(item, { ...options, index }));
}

/** Total of `values` entries over a list (what the segment limit counts). */
export function countConstraintValues(constraints: readonly ConstraintConfig[]): number {
  return constraints.reduce((sum, c) => sum + (c.values?.length ?? 0), 0);
}

/**
 * Strategy limits (docs/rules.md §1.4 strategies item 8): at most 30 constraints, at most 250 values in one
 * constraint → 400 ExceedsLimitError.
 */
export function assertStrategyConstraintLimits(constraints: readonly ConstraintConfig[]): void {
  if (constraints.length > CONSTRAINT_LIMITS.constraintsPerStrategy) {
    throw exceedsLimit('constraints', CONSTRAINT_LIMITS.constraintsPerStrategy);
  }
  for (const c of constraints) {
    if ((c.values?.length ?? 0) > CONSTRAINT_LIMITS.valuesPerConstraint) {
      throw exceedsLimit(`constraint values for ${c.contextName}`, CONSTRAINT_LIMITS.valuesPerConstraint);
    }
  }
}

/** Segment limit (docs/rules.md §1.4 S9): at most 1000 constraint values over the whole segment. */
export function assertSegmentValuesLimit(constraints: readonly ConstraintConfig[]): void {
  if (countConstraintValues(constraints) > CONSTRAINT_LIMITS.valuesPerSegment) {
    throw validationError(`Segments may not have more than ${CONSTRAINT_LIMITS.valuesPerSegment} values`);
  }
}
