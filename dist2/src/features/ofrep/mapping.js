import { piece } from '../frontend-api/evaluate.js';
/** A context value as Unleash reads it: strings as they are, numbers and booleans as their text; anything else is left out. */
function contextString(value) {
    if (typeof value === 'string')
        return value;
    if (typeof value === 'number')
        return Number.isFinite(value) ? String(value) : undefined;
    if (typeof value === 'boolean')
        return value ? 'true' : 'false';
    return undefined;
}
function isRecord(value) {
    return value !== null && typeof value === 'object' && !Array.isArray(value);
}
/**
 * The frontend API's input for an OpenFeature evaluation context (§10.2): `targetingKey` becomes
 * `userId` unless a `userId` is given; numbers and booleans become their text (`42`, `1.5`,
 * `true`), at the top and inside a `properties` object; objects, arrays and null are left out
 * (Unleash's context holds strings only: the frontend API would ignore them too). The result goes
 * through the frontend API's own context building, so every other rule is the frontend API's.
 */
export function frontendInput(context) {
    const input = {};
    for (const key of Object.keys(context)) {
        if (key === 'targetingKey')
            continue;
        const value = context[key];
        if (key === 'properties' && isRecord(value)) {
            const properties = {};
            for (const name of Object.keys(value)) {
                const text = contextString(value[name]);
                if (text !== undefined)
                    properties[name] = text;
            }
            input.properties = properties;
            continue;
        }
        const text = contextString(value);
        if (text !== undefined)
            input[key] = text;
    }
    const targetingKey = contextString(context.targetingKey);
    if (input.userId === undefined && targetingKey !== undefined)
        input.userId = targetingKey;
    return input;
}
function payloadKind(variant) {
    const payload = variant.payload;
    if (payload === undefined || typeof payload.value !== 'string')
        return 'variant';
    switch (payload.type) {
        case 'string':
        case 'csv':
            return 'string';
        case 'number':
            return payload.value.trim() !== '' && Number.isFinite(Number(payload.value)) ? 'number' : 'variant';
        case 'json':
            return parsesToObject(payload.value) ? 'object' : 'variant';
        default:
            return 'variant';
    }
}
function parsesToObject(text) {
    try {
        const parsed = JSON.parse(text);
        return parsed !== null && typeof parsed === 'object';
    }
    catch {
        return false;
    }
}
/**
 * The variant lists of a flag in an environment, as an SDK sees them (the client API): its own list
 * and each strategy's, disabled strategies left out.
 */
function variantLists(env) {
    const lists = [env.variants];
    for (const strategy of env.strategies)
        if (!strategy.disabled && strategy.variants !== null)
            lists.push(strategy.variants);
    return lists;
}
export function valueKind(env) {
    const variants = variantLists(env).flatMap((list) => list.variants);
    if (variants.length === 0)
        return 'boolean';
    const kinds = new Set(variants.map(payloadKind));
    return kinds.size === 1 ? [...kinds][0] : 'variant';
}
/** The value JSON of a variant for a flag of `kind` (the payload parsed, or the name). */
function variantValueJson(variant, kind) {
    const value = variant.payload?.value ?? '';
    switch (kind) {
        case 'number':
            return JSON.stringify(Number(value));
        case 'object':
            return JSON.stringify(JSON.parse(value));
        case 'string':
            return JSON.stringify(value);
        default:
            return JSON.stringify(variant.name);
    }
}
/**
 * The variants picked by hashing among several (§10.4 SPLIT): in a list with more than one
 * variant of positive weight. A variant picked by an override is a TARGETING_MATCH (`reasonOf`).
 */
function splitVariants(env) {
    const split = new Set();
    for (const list of variantLists(env)) {
        if (list.variants.filter((variant) => variant.weight > 0).length > 1)
            for (const variant of list.variants)
                split.add(variant);
    }
    return split;
}
/**
 * Whether the picked variant came from an override (`selectVariant` returns the first variant
 * whose override matches, so a picked variant with a matching override was picked by it).
 */
function overridden(variant, reader) {
    for (const override of variant.overrides) {
        const value = reader.resolve(override.contextName);
        if (value !== undefined && override.values.has(value))
            return true;
    }
    return false;
}
const REASON_INDEX = { DISABLED: 0, DEFAULT: 1, TARGETING_MATCH: 2, SPLIT: 3 };
/**
 * One flag of a token's scope as OFREP renders it, its evaluations' JSON made once per state and
 * outcome and fingerprinted (the bulk ETag combines them as the frontend API's does).
 */
export class OfrepFlag {
    env;
    kind;
    keyJson;
    split;
    /** By reason index × 2 + enabled: outcomes without a variant. */
    plain = [];
    picked = new Map();
    constructor(name, env) {
        this.env = env;
        this.kind = valueKind(env);
        this.keyJson = JSON.stringify(name);
        this.split = this.kind === 'boolean' ? new Set() : splitVariants(env);
    }
    /** §10.4: DISABLED when off in the environment, DEFAULT when no strategy (or parent) lets it on, SPLIT for a hashed pick among several variants, else TARGETING_MATCH. */
    reasonOf(decision, reader) {
        if (!this.env.enabled)
            return 'DISABLED';
        if (!decision.enabled)
            return 'DEFAULT';
        const variant = decision.variant;
        if (variant === null || !this.split.has(variant))
            return 'TARGETING_MATCH';
        return variant.overrides.length > 0 && overridden(variant, reader) ? 'TARGETING_MATCH' : 'SPLIT';
    }
    /** The evaluation's JSON and fingerprint. */
    evaluation(decision, reader) {
        const reason = this.reasonOf(decision, reader);
        const index = REASON_INDEX[reason];
        const variant = this.kind === 'boolean' ? null : decision.variant;
        if (variant === null) {
            const slot = index * 2 + (decision.enabled ? 1 : 0);
            return (this.plain[slot] ??= piece(this.render(reason, decision.enabled, null)));
        }
        let pieces = this.picked.get(variant);
        if (pieces === undefined)
            this.picked.set(variant, (pieces = []));
        return (pieces[index] ??= piece(this.render(reason, true, variant)));
    }
    render(reason, enabled, variant) {
        const head = `{"key":${this.keyJson}`;
        if (this.kind === 'boolean')
            return `${head},"value":${enabled},"reason":"${reason}"}`;
        // A flag with variants and none picked for this context: no value, so the provider answers
        // the code default (OFREP's codeDefaultFlag); the enabled state stays readable in metadata.
        if (variant === null)
            return `${head},"reason":"${reason}","metadata":{"enabled":${enabled}}}`;
        const payload = this.kind === 'variant' && variant.payload !== undefined
            ? `,"payloadType":${JSON.stringify(variant.payload.type)},"payload":${JSON.stringify(variant.payload.value)}`
            : '';
        return `${head},"value":${variantValueJson(variant, this.kind)},"reason":"${reason}","variant":${JSON.stringify(variant.name)},"metadata":{"enabled":true${payload}}}`;
    }
}
//# sourceMappingURL=mapping.js.map