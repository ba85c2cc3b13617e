/**
 * Constraints (docs/rules.md §3.7): compiled once per configuration revision, evaluated per context.
 *
 * Compilation does every parse that does not depend on the context: cleaned value sets
 * (lower-cased when case-insensitive), numbers, dates, versions, CIDR ranges and RE2 programs, plus
 * the JSON echo of the constraint minus its `result`. Evaluation is then a switch on an integer
 * operator code and a few comparisons.
 */
import { RE2JS } from 're2js';
import { jsonPrefixBeforeKey, setOwn } from './json.js';
import { ipInRange, parseDateValue, parseIpRange, parseSemver } from './parse.js';
/** A Map, not an object literal, so that operator names like "constructor" stay unknown. */
const OPERATOR_CODES = new Map([
    ['IN', 1 /* Op.In */],
    ['NOT_IN', 2 /* Op.NotIn */],
    ['STR_STARTS_WITH', 3 /* Op.StartsWith */],
    ['STR_ENDS_WITH', 4 /* Op.EndsWith */],
    ['STR_CONTAINS', 5 /* Op.Contains */],
    ['NUM_EQ', 6 /* Op.NumEq */],
    ['NUM_GT', 7 /* Op.NumGt */],
    ['NUM_GTE', 8 /* Op.NumGte */],
    ['NUM_LT', 9 /* Op.NumLt */],
    ['NUM_LTE', 10 /* Op.NumLte */],
    ['DATE_AFTER', 11 /* Op.DateAfter */],
    ['DATE_BEFORE', 12 /* Op.DateBefore */],
    ['SEMVER_EQ', 13 /* Op.SemverEq */],
    ['SEMVER_GT', 14 /* Op.SemverGt */],
    ['SEMVER_LT', 15 /* Op.SemverLt */],
    ['SEMVER_GTE', 16 /* Op.SemverGte */],
    ['SEMVER_LTE', 17 /* Op.SemverLte */],
    ['REGEX', 18 /* Op.Regex */],
    // Not creatable through Unleash's API, but SDKs implement it (client specification 22, D2).
    ['IN_CIDR', 19 /* Op.InCidr */],
]);
export class CompiledConstraint {
    op;
    contextName;
    inverted;
    caseInsensitive;
    /** IN / NOT_IN: cleaned values (lower-cased when case-insensitive). */
    valueSet;
    /** IN / NOT_IN: cleaned values as stored (`valueSet` itself unless case-insensitive). */
    exactValueSet;
    /** STR_*: cleaned values (locale-lower-cased when case-insensitive). */
    valueList;
    /** NUM_*: `Number(value)`; DATE_*: `Date(value)` as a time value. NaN makes the constraint fail. */
    number;
    version;
    pattern;
    /** REGEX: recent search results by field value (see regexFinds). */
    regexMemo;
    ranges;
    /** The result object minus `result`, in Unleash's key order (shared by all evaluations). */
    echo;
    /** JSON of `echo` up to and including `"result":`. */
    echoJsonPrefix;
    constructor(config, owner) {
        const op = OPERATOR_CODES.get(config.operator) ?? 0 /* Op.Unknown */;
        const caseInsensitive = config.caseInsensitive === true;
        const cleaned = cleanValues(config.values);
        this.op = op;
        this.contextName = typeof config.contextName === 'string' ? config.contextName : String(config.contextName);
        this.inverted = config.inverted === true;
        this.caseInsensitive = caseInsensitive;
        this.exactValueSet = new Set(op === 1 /* Op.In */ || op === 2 /* Op.NotIn */ ? cleaned : []);
        this.valueSet = caseInsensitive ? new Set([...this.exactValueSet].map(lowerCase)) : this.exactValueSet;
        this.valueList =
            op >= 3 /* Op.StartsWith */ && op <= 5 /* Op.Contains */
                ? caseInsensitive
                    ? cleaned.map(localeLowerCase)
                    : cleaned
                : [];
        this.number =
            op >= 6 /* Op.NumEq */ && op <= 10 /* Op.NumLte */
                ? toNumber(config.value)
                : op === 11 /* Op.DateAfter */ || op === 12 /* Op.DateBefore */
                    ? parseDateValue(config.value)
                    : Number.NaN;
        this.version =
            op >= 13 /* Op.SemverEq */ && op <= 17 /* Op.SemverLte */ && typeof config.value === 'string'
                ? parseSemver(config.value)
                : null;
        this.pattern = op === 18 /* Op.Regex */ ? compileRegex(config.value, caseInsensitive) : null;
        this.regexMemo = this.pattern === null ? null : new Map();
        this.ranges = op === 19 /* Op.InCidr */ ? cleaned.map(parseIpRange).filter(isRange) : [];
        this.echo = constraintEcho(config, owner);
        this.echoJsonPrefix = jsonPrefixBeforeKey(this.echo, 'result');
    }
}
export function compileConstraints(constraints, owner) {
    if (!Array.isArray(constraints))
        return [];
    const compiled = [];
    for (const constraint of constraints) {
        if (typeof constraint === 'object' && constraint !== null)
            compiled.push(new CompiledConstraint(constraint, owner));
    }
    return compiled;
}
/** Constraint passes: the operator's answer, negated when inverted; unknown operators always fail. */
export function constraintHolds(constraint, context) {
    // docs/rules.md §3.7: an unknown operator is false and inversion is not applied to it.
    if (constraint.op === 0 /* Op.Unknown */)
        return false;
    return operatorHolds(constraint, context) !== constraint.inverted;
}
/** Every constraint holds (an empty list holds). Short-circuits: for decisions, not reports. */
export function allConstraintsHold(constraints, context) {
    for (let i = 0; i < constraints.length; i++) {
        if (!constraintHolds(constraints[i], context))
            return false;
    }
    return true;
}
function operatorHolds(c, context) {
    switch (c.op) {
        case 1 /* Op.In */:
        case 2 /* Op.NotIn */: {
            // The frontend API's SDK compares exactly, whatever `caseInsensitive` says (docs/rules.md §9.2).
            const folded = c.caseInsensitive && context.rules === 'specification';
            const value = folded ? context.lowerOf(c.contextName) : context.resolve(c.contextName);
            const isIn = value !== undefined && value !== null && (folded ? c.valueSet : c.exactValueSet).has(value);
            return c.op === 1 /* Op.In */ ? isIn : !isIn;
        }
        case 3 /* Op.StartsWith */:
        case 4 /* Op.EndsWith */:
        case 5 /* Op.Contains */: {
            const value = c.caseInsensitive ? context.localeLowerOf(c.contextName) : context.resolve(c.contextName);
            if (value === undefined || value === null)
                return false;
            return stringOperatorHolds(c.op, c.valueList, value);
        }
        case 6 /* Op.NumEq */:
        case 7 /* Op.NumGt */:
        case 8 /* Op.NumGte */:
        case 9 /* Op.NumLt */:
        case 10 /* Op.NumLte */: {
            const field = context.resolve(c.contextName);
            return field !== undefined && compareNumbers(c.op, Number(field), c.number);
        }
        case 11 /* Op.DateAfter */:
            return context.currentTimeMs() > c.number;
        case 12 /* Op.DateBefore */:
            return context.currentTimeMs() < c.number;
        case 13 /* Op.SemverEq */:
        case 14 /* Op.SemverGt */:
        case 15 /* Op.SemverLt */:
        case 16 /* Op.SemverGte */:
        case 17 /* Op.SemverLte */: {
            if (c.version === null)
                return false;
            const version = context.semverOf(c.contextName);
            return version !== null && compareVersions(c.op, version.compare(c.version));
        }
        case 18 /* Op.Regex */: {
            const value = context.resolve(c.contextName);
            return value !== undefined && c.pattern !== null && regexFinds(c.pattern, c.regexMemo, value);
        }
        case 19 /* Op.InCidr */: {
            const ip = context.ipOf(c.contextName);
            if (ip === null)
                return false;
            for (const range of c.ranges)
                if (ipInRange(ip, range))
                    return true;
            return false;
        }
        default:
            return false;
    }
}
function stringOperatorHolds(op, values, value) {
    for (let i = 0; i < values.length; i++) {
        const candidate = values[i];
        if (op === 3 /* Op.StartsWith */ ? value.startsWith(candidate) : op === 4 /* Op.EndsWith */ ? value.endsWith(candidate) : value.includes(candidate)) {
            return true;
        }
    }
    return false;
}
/** NaN on either side fails every comparison, as JavaScript's operators already do. */
function compareNumbers(op, field, value) {
    switch (op) {
        case 6 /* Op.NumEq */:
            return field === value;
        case 7 /* Op.NumGt */:
            return field > value;
        case 8 /* Op.NumGte */:
            return field >= value;
        case 9 /* Op.NumLt */:
            return field < value;
        default:
            return field <= value;
    }
}
function compareVersions(op, order) {
    switch (op) {
        case 13 /* Op.SemverEq */:
            return order === 0;
        case 14 /* Op.SemverGt */:
            return order > 0;
        case 15 /* Op.SemverLt */:
            return order < 0;
        case 16 /* Op.SemverGte */:
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
function regexFinds(pattern, memo, value) {
    let found = memo.get(value);
    if (found === undefined) {
        try {
            found = pattern.test(value);
        }
        catch {
            found = false;
        }
        if (memo.size >= REGEX_MEMO_LIMIT)
            memo.clear();
        memo.set(value, found);
    }
    return found;
}
const REGEX_MEMO_LIMIT = 1024;
/** RE2 syntax keeps matching linear-time whatever a user types; invalid patterns never match. */
function compileRegex(source, caseInsensitive) {
    if (typeof source !== 'string')
        return null;
    try {
        return RE2JS.compile(source, caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
    }
    catch {
        return null;
    }
}
/** docs/rules.md §3.7 "cleaned values": empty strings removed, the rest trimmed (in that order). */
function cleanValues(values) {
    if (!Array.isArray(values))
        return [];
    const cleaned = [];
    for (const value of values) {
        if (typeof value === 'string' && value !== '')
            cleaned.push(value.trim());
    }
    return cleaned;
}
function toNumber(value) {
    if (value === undefined || value === null || typeof value === 'object')
        return Number.NaN;
    return Number(value);
}
function isRange(range) {
    return range !== null;
}
function lowerCase(value) {
    return value.toLowerCase();
}
function localeLowerCase(value) {
    return value.toLocaleLowerCase();
}
/**
 * The echoed constraint minus `result` (docs/rules.md §3.7). Strategy constraints first get Unleash's
 * defaults `inverted: false, values: []` (so those two keys lead), then the stored keys in stored
 * order; segment constraints are echoed as stored. `value` is rendered as a string.
 */
function constraintEcho(config, owner) {
    const echo = owner === 'strategy' ? { inverted: false, values: [] } : {};
    // Every stored key, those outside ConstraintConfig included (the client specification has some).
    for (const entry of Object.entries(config)) {
        const [key, value] = entry;
        if (key === 'result' || value === undefined)
            continue;
        if (key === 'value') {
            if (value !== null)
                setOwn(echo, key, String(value));
            continue;
        }
        setOwn(echo, key, value);
    }
    return Object.freeze(echo);
}
//# sourceMappingURL=constraints.js.map