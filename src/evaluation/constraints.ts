/**
 * Constraints (docs/rules.md §3.7): compiled once per configuration revision, evaluated per context.
 *
 * Compilation does every parse that does not depend on the context: cleaned value sets
 * (lower-cased when case-insensitive), numbers, dates, versions, CIDR ranges and RE2 programs, plus
 * the JSON echo of the constraint minus its `result`. Evaluation is then a switch on an integer
 * operator code and a few comparisons.
 */
import { RE2JS } from 're2js';
import type { ContextReader } from './context-reader.js';
import type { ConstraintConfig } from './types.js';
import { jsonPrefixBeforeKey, setOwn } from './json.js';
import { Interner } from './intern.js';
import { ipInRange, parseDateValue, parseIpRange, parseSemver, type IpRange, type SemVer } from './parse.js';

const enum Op {
  Unknown,
  In,
  NotIn,
  StartsWith,
  EndsWith,
  Contains,
  NumEq,
  NumGt,
  NumGte,
  NumLt,
  NumLte,
  DateAfter,
  DateBefore,
  SemverEq,
  SemverGt,
  SemverLt,
  SemverGte,
  SemverLte,
  Regex,
  InCidr,
}

/** A Map, not an object literal, so that operator names like "constructor" stay unknown. */
const OPERATOR_CODES = new Map<unknown, Op>([
  ['IN', Op.In],
  ['NOT_IN', Op.NotIn],
  ['STR_STARTS_WITH', Op.StartsWith],
  ['STR_ENDS_WITH', Op.EndsWith],
  ['STR_CONTAINS', Op.Contains],
  ['NUM_EQ', Op.NumEq],
  ['NUM_GT', Op.NumGt],
  ['NUM_GTE', Op.NumGte],
  ['NUM_LT', Op.NumLt],
  ['NUM_LTE', Op.NumLte],
  ['DATE_AFTER', Op.DateAfter],
  ['DATE_BEFORE', Op.DateBefore],
  ['SEMVER_EQ', Op.SemverEq],
  ['SEMVER_GT', Op.SemverGt],
  ['SEMVER_LT', Op.SemverLt],
  ['SEMVER_GTE', Op.SemverGte],
  ['SEMVER_LTE', Op.SemverLte],
  ['REGEX', Op.Regex],
  // Not creatable through Unleash's API, but SDKs implement it (client specification 22, D2; docs/glossary.md).
  ['IN_CIDR', Op.InCidr],
]);

/** Where a constraint is echoed: strategy constraints get Unleash's defaults, segment ones do not. */
export type ConstraintOwner = 'strategy' | 'segment';

export class CompiledConstraint {
  readonly op: Op;
  readonly contextName: string;
  readonly inverted: boolean;
  readonly caseInsensitive: boolean;
  /** IN / NOT_IN: cleaned values (lower-cased when case-insensitive). */
  readonly valueSet: ReadonlySet<string>;
  /** IN / NOT_IN: cleaned values as stored (`valueSet` itself unless case-insensitive). */
  readonly exactValueSet: ReadonlySet<string>;
  /** STR_*: cleaned values (locale-lower-cased when case-insensitive). */
  readonly valueList: readonly string[];
  /** NUM_*: `Number(value)`; DATE_*: `Date(value)` as a time value. NaN makes the constraint fail. */
  readonly number: number;
  readonly version: SemVer | null;
  readonly pattern: RE2JS | null;
  /** REGEX: recent search results by field value (see regexFinds). */
  readonly regexMemo: Map<string, boolean> | null;
  readonly ranges: readonly IpRange[];
  /** The result object minus `result`, in Unleash's key order (shared by all evaluations). */
  readonly echo: Readonly<Record<string, unknown>>;
  /** JSON of `echo` up to and including `"result":`. */
  readonly echoJsonPrefix: string;
  /** The id of the last context reader this constraint was evaluated for, and its result (`constraintHolds`). */
  memoReader = 0;
  memoResult = false;

  constructor(config: ConstraintConfig, owner: ConstraintOwner) {
    const op = OPERATOR_CODES.get(config.operator) ?? Op.Unknown;
    const caseInsensitive = config.caseInsensitive === true;
    const cleaned = cleanValues(config.values);
    this.op = op;
    this.contextName = typeof config.contextName === 'string' ? config.contextName : String(config.contextName);
    this.inverted = config.inverted === true;
    this.caseInsensitive = caseInsensitive;
    this.exactValueSet = new Set(op === Op.In || op === Op.NotIn ? cleaned : []);
    this.valueSet = caseInsensitive ? new Set([...this.exactValueSet].map(lowerCase)) : this.exactValueSet;
    this.valueList =
      op >= Op.StartsWith && op <= Op.Contains
        ? caseInsensitive
          ? cleaned.map(localeLowerCase)
          : cleaned
        : [];
    this.number =
      op >= Op.NumEq && op <= Op.NumLte
        ? toNumber(config.value)
        : op === Op.DateAfter || op === Op.DateBefore
          ? parseDateValue(config.value)
          : Number.NaN;
    this.version =
      op >= Op.SemverEq && op <= Op.SemverLte && typeof config.value === 'string'
        ? parseSemver(config.value)
        : null;
    this.pattern = op === Op.Regex ? compileRegex(config.value, caseInsensitive) : null;
    this.regexMemo = this.pattern === null ? null : new Map();
    this.ranges = op === Op.InCidr ? cleaned.map(parseIpRange).filter(isRange) : [];
    this.echo = constraintEcho(config, owner);
    this.echoJsonPrefix = jsonPrefixBeforeKey(this.echo, 'result');
  }
}

export function compileConstraints(constraints: unknown, owner: ConstraintOwner): CompiledConstraint[] {
  if (!Array.isArray(constraints)) return [];
  const compiled: CompiledConstraint[] = [];
  for (const constraint of constraints) {
    if (typeof constraint === 'object' && constraint !== null) compiled.push(internedConstraint(constraint as ConstraintConfig, owner));
  }
  return compiled;
}

/**
 * One compiled constraint per distinct definition in this thread (same owner, same stored JSON),
 * shared by every strategy and segment that holds it, in every live snapshot: with the per-context
 * memo of `constraintHolds`, a constraint repeated across flags (a region, a user list, a version
 * floor: real configurations repeat a few of them across thousands of flags) is evaluated once
 * per context. Definitions that differ only in key order are not recognised as equal; they are
 * then only compiled twice.
 *
 * Measured on the frontend API at 5 000 flags (bench/seed.ts's configuration, 18 distinct
 * constraints over ~17 000): one answer 8.3 → 4.1 ms in process, and 104 → 155 req/s
 * through the server (16 connections). The memo's cost where nothing repeats is one comparison
 * and two stores per evaluation.
 */
function internedConstraint(config: ConstraintConfig, owner: ConstraintOwner): CompiledConstraint {
  let key: string;
  try {
    key = `${owner}\0${JSON.stringify(config)}`;
  } catch {
    return new CompiledConstraint(config, owner);
  }
  return interned.get(key, () => new CompiledConstraint(config, owner));
}

const interned = new Interner<CompiledConstraint>();

/**
 * Constraint passes: the operator's answer, negated when inverted; unknown operators always fail.
 * Remembered for the last context it was evaluated for (its reader's id): a constraint shared by
 * many strategies and segments (`internedConstraint`) is evaluated once per context. Evaluations
 * for several contexts interleaved only miss the memo.
 */
export function constraintHolds(constraint: CompiledConstraint, context: ContextReader): boolean {
  if (constraint.memoReader === context.id) return constraint.memoResult;
  // docs/rules.md §3.7: an unknown operator is false and inversion is not applied to it.
  const result = constraint.op !== Op.Unknown && operatorHolds(constraint, context) !== constraint.inverted;
  constraint.memoReader = context.id;
  constraint.memoResult = result;
  return result;
}

/** Every constraint holds (an empty list holds). Short-circuits: for decisions, not reports. */
export function allConstraintsHold(constraints: readonly CompiledConstraint[], context: ContextReader): boolean {
  for (let i = 0; i < constraints.length; i++) {
    if (!constraintHolds(constraints[i]!, context)) return false;
  }
  return true;
}

function operatorHolds(c: CompiledConstraint, context: ContextReader): boolean {
  switch (c.op) {
    case Op.In:
    case Op.NotIn: {
      // The frontend API's SDK compares exactly, whatever `caseInsensitive` says (docs/rules.md §9.2).
      const folded = c.caseInsensitive && context.rules === 'specification';
      const value = folded ? context.lowerOf(c.contextName) : context.resolve(c.contextName);
      const isIn = value !== undefined && value !== null && (folded ? c.valueSet : c.exactValueSet).has(value);
      return c.op === Op.In ? isIn : !isIn;
    }
    case Op.StartsWith:
    case Op.EndsWith:
    case Op.Contains: {
      const value = c.caseInsensitive ? context.localeLowerOf(c.contextName) : context.resolve(c.contextName);
      if (value === undefined || value === null) return false;
      return stringOperatorHolds(c.op, c.valueList, value);
    }
    case Op.NumEq:
    case Op.NumGt:
    case Op.NumGte:
    case Op.NumLt:
    case Op.NumLte: {
      const field = context.resolve(c.contextName);
      return field !== undefined && compareNumbers(c.op, Number(field), c.number);
    }
    case Op.DateAfter:
      return context.currentTimeMs() > c.number;
    case Op.DateBefore:
      return context.currentTimeMs() < c.number;
    case Op.SemverEq:
    case Op.SemverGt:
    case Op.SemverLt:
    case Op.SemverGte:
    case Op.SemverLte: {
      if (c.version === null) return false;
      const version = context.semverOf(c.contextName);
      return version !== null && compareVersions(c.op, version.compare(c.version));
    }
    case Op.Regex: {
      const value = context.resolve(c.contextName);
      return value !== undefined && c.pattern !== null && regexFinds(c.pattern, c.regexMemo!, value);
    }
    case Op.InCidr: {
      const ip = context.ipOf(c.contextName);
      if (ip === null) return false;
      for (const range of c.ranges) if (ipInRange(ip, range)) return true;
      return false;
    }
    default:
      return false;
  }
}

function stringOperatorHolds(op: Op, values: readonly string[], value: string): boolean {
  for (let i = 0; i < values.length; i++) {
    const candidate = values[i]!;
    if (op === Op.StartsWith ? value.startsWith(candidate) : op === Op.EndsWith ? value.endsWith(candidate) : value.includes(candidate)) {
      return true;
    }
  }
  return false;
}

/** NaN on either side fails every comparison, as JavaScript's operators already do. */
function compareNumbers(op: Op, field: number, value: number): boolean {
  switch (op) {
    case Op.NumEq:
      return field === value;
    case Op.NumGt:
      return field > value;
    case Op.NumGte:
      return field >= value;
    case Op.NumLt:
      return field < value;
    default:
      return field <= value;
  }
}

function compareVersions(op: Op, order: number): boolean {
  switch (op) {
    case Op.SemverEq:
      return order === 0;
    case Op.SemverGt:
      return order > 0;
    case Op.SemverLt:
      return order < 0;
    case Op.SemverGte:
      return order >= 0;
    default:
      return order <= 0;
  }
}

/**
 * Unanchored search, like Unleash and SDKs: `^`/`$` in the pattern anchor when wanted.
 *
 * Performance: re2js runs a linear-time automaton in JavaScript, 0.2–1 µs per search on short
 * values — as much as the rest of an SDK decision. Values repeat heavily (one playground request
 * evaluates the same field for every flag and combination; SDK traffic repeats its users), so each
 * constraint remembers its last results, bounded to REGEX_MEMO_LIMIT entries (dropped whole when
 * full, so the worst case is the plain search).
 */
function regexFinds(pattern: RE2JS, memo: Map<string, boolean>, value: string): boolean {
  let found = memo.get(value);
  if (found === undefined) {
    try {
      found = pattern.test(value);
    } catch {
      found = false;
    }
    if (memo.size >= REGEX_MEMO_LIMIT) memo.clear();
    memo.set(value, found);
  }
  return found;
}

const REGEX_MEMO_LIMIT = 1024;

/** RE2 syntax keeps matching linear-time whatever a user types; invalid patterns never match. */
function compileRegex(source: unknown, caseInsensitive: boolean): RE2JS | null {
  if (typeof source !== 'string') return null;
  try {
    return RE2JS.compile(source, caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
  } catch {
    return null;
  }
}

/** docs/rules.md §3.7 "cleaned values": empty strings removed, the rest trimmed (in that order). */
function cleanValues(values: unknown): string[] {
  if (!Array.isArray(values)) return [];
  const cleaned: string[] = [];
  for (const value of values) {
    if (typeof value === 'string' && value !== '') cleaned.push(value.trim());
  }
  return cleaned;
}

function toNumber(value: unknown): number {
  if (value === undefined || value === null || typeof value === 'object') return Number.NaN;
  return Number(value);
}

function isRange(range: IpRange | null): range is IpRange {
  return range !== null;
}

function lowerCase(value: string): string {
  return value.toLowerCase();
}

function localeLowerCase(value: string): string {
  return value.toLocaleLowerCase();
}

/**
 * The echoed constraint minus `result` (docs/rules.md §3.7). Strategy constraints first get Unleash's
 * defaults `inverted: false, values: []` (so those two keys lead), then the stored keys in stored
 * order; segment constraints are echoed as stored. `value` is rendered as a string.
 */
function constraintEcho(config: ConstraintConfig, owner: ConstraintOwner): Record<string, unknown> {
  const echo: Record<string, unknown> = owner === 'strategy' ? { inverted: false, values: [] } : {};
  // Every stored key, those outside ConstraintConfig included (the client specification has some).
  for (const [key, value] of Object.entries(config) as [string, unknown][]) {
    if (key === 'result' || value === undefined) continue;
    if (key === 'value') {
      if (value !== null) setOwn(echo, key, String(value));
      continue;
    }
    setOwn(echo, key, value);
  }
  return Object.freeze(echo);
}
