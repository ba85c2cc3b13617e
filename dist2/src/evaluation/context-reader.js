/**
 * Read access to one evaluation context (docs/rules.md §3.6).
 *
 * The raw context may be any JSON value. Field resolution is: a non-empty top-level string, else a
 * non-empty string in `properties`, else missing. Non-string values count as missing, which is why
 * no operator ever sees anything but a string (and why evaluation cannot throw on odd input).
 *
 * Derived values (current time, parsed versions and IP addresses, lower-cased values) are computed
 * lazily, at most once per context, and only when some constraint needs them: the playground
 * evaluates every flag against the same reader, so a semver field used by ten flags is parsed once.
 */
import { isObject } from './json.js';
import { parseContextTime, parseIpAddress, parseSemver } from './parse.js';
const lowerCase = (value) => value.toLowerCase();
const localeLowerCase = (value) => value.toLocaleLowerCase();
export class ContextReader {
    rules;
    top;
    properties;
    nowMs = Number.NaN;
    currentTimeResolved = false;
    /** Derived values by field name, one map per kind, created on first use; null = missing. */
    versions;
    addresses;
    lowerCased;
    localeLowerCased;
    constructor(raw, 
    /** Read by the constraints (IN / NOT_IN) and the dependencies that depend on it (§9.2). */
    rules = 'specification') {
        this.rules = rules;
        this.top = isObject(raw) ? raw : {};
        const properties = this.top.properties;
        this.properties = isObject(properties) ? properties : undefined;
    }
    /**
     * docs/rules.md §3.6 `resolve(name)`: the field as a non-empty string, or undefined when missing.
     * `environment` defaults to "default" (not the evaluated environment): Unleash sets that default
     * at the top level, so it also shadows `properties.environment`.
     */
    resolve(name) {
        if (name === 'environment')
            return this.topLevel('environment') ?? 'default';
        const topValue = this.top[name];
        if (typeof topValue === 'string' && topValue !== '')
            return topValue;
        if (this.properties === undefined)
            return undefined;
        const propertyValue = this.properties[name];
        return typeof propertyValue === 'string' && propertyValue !== '' ? propertyValue : undefined;
    }
    /** A field read from the top level only (userId, sessionId, remoteAddress for stickiness). */
    topLevel(name) {
        const value = this.top[name];
        return typeof value === 'string' && value !== '' ? value : undefined;
    }
    /** The instant DATE_* constraints compare: `currentTime` when given, else now (read once). */
    currentTimeMs() {
        if (!this.currentTimeResolved) {
            this.currentTimeResolved = true;
            const given = this.top.currentTime;
            this.nowMs = typeof given === 'string' && given !== '' ? parseContextTime(given) : Date.now();
        }
        return this.nowMs;
    }
    semverOf(name) {
        return this.derive((this.versions ??= new Map()), name, parseSemver);
    }
    ipOf(name) {
        return this.derive((this.addresses ??= new Map()), name, parseIpAddress);
    }
    /** Lower-cased with `toLowerCase` (IN / NOT_IN with caseInsensitive). */
    lowerOf(name) {
        return this.derive((this.lowerCased ??= new Map()), name, lowerCase);
    }
    /** Lower-cased locale-aware (STR_* with caseInsensitive, as Unleash does). */
    localeLowerOf(name) {
        return this.derive((this.localeLowerCased ??= new Map()), name, localeLowerCase);
    }
    /** Derives a value from a field once per context; a missing field derives to null. */
    derive(memo, name, derivation) {
        const cached = memo.get(name);
        if (cached !== undefined)
            return cached;
        const value = this.resolve(name);
        const result = value === undefined ? null : derivation(value);
        memo.set(name, result);
        return result;
    }
}
//# sourceMappingURL=context-reader.js.map