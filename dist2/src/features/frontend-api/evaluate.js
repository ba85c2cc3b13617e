/**
 * The frontend API's answer for one context: every flag of the token's projects decided by the
 * engine's SDK path (src/evaluation), rendered as Unleash 8's `{toggles: [...]}`.
 *
 * Pure: the same answer, byte for byte, on the main thread or in a worker (`FrontendSource` is
 * what both hold). Where each answer is computed is dispatch.ts's decision.
 */
import { hash } from 'node:crypto';
import { ContextReader, decide, finishHash, mixBlock, } from '../../evaluation/index.js';
import { isAllProjects } from '../client-api/features.js';
const STANDARD_FIELDS = new Set(['userId', 'sessionId', 'remoteAddress', 'appName', 'environment', 'currentTime']);
/**
 * An SDK context from the frontend API's input: standard fields stay at the top, `properties`
 * (an object, or `properties[x]` query keys) and every other field go into `properties`, as
 * Unleash's frontend API does.
 */
export function frontendContext(input, remoteAddress) {
    const context = {};
    const properties = {};
    for (const [key, value] of Object.entries(input)) {
        if (value === undefined)
            continue;
        if (STANDARD_FIELDS.has(key)) {
            context[key] = value;
        }
        else if (key === 'properties' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
            Object.assign(properties, value);
        }
        else {
            const match = /^properties\[(.+)\]$/.exec(key);
            properties[match ? match[1] : key] = value;
        }
    }
    context.remoteAddress ??= remoteAddress;
    context.properties = properties;
    return context;
}
function piece(json) {
    const digest = hash('sha1', json, 'buffer');
    return { json, high: digest.readInt32LE(0), low: digest.readInt32LE(4) };
}
const variantPieces = new WeakMap();
/** The variant as the frontend API shows it: payload after `enabled` for a strategy's variant, before it for the environment's. */
function pickedVariant(variant, strategyVariant) {
    let pair = variantPieces.get(variant);
    if (pair === undefined) {
        const name = JSON.stringify(variant.name);
        const payload = variant.payload === undefined ? '' : `,"payload":${JSON.stringify(variant.payload)}`;
        const tail = '"feature_enabled":true,"featureEnabled":true}';
        pair = [piece(`{"name":${name}${payload},"enabled":true,${tail}`), piece(`{"name":${name},"enabled":true${payload},${tail}`)];
        variantPieces.set(variant, pair);
    }
    return strategyVariant ? pair[1] : pair[0];
}
const DISABLED_ON = '{"name":"disabled","enabled":false,"feature_enabled":true,"featureEnabled":true}';
const DISABLED_OFF = '{"name":"disabled","enabled":false,"feature_enabled":false,"featureEnabled":false}';
/**
 * The flags a token sees, in the state's order, memoized on the state per scope: the per-request
 * loop then does no look-ups and renders no constant JSON (F1 of bench/sdk.ts: the frontend
 * answer's own string building was a third of its evaluation time before).
 */
function scopedFlags(state, scope) {
    const key = `frontend\0${scope.environment}\0${scope.projects.join(',')}`;
    const memo = state.memo.get(key);
    if (memo)
        return memo;
    const all = isAllProjects(scope.projects);
    const flags = [];
    for (const data of state.flags) {
        if (!all && !scope.projects.includes(data.project))
            continue;
        const flag = state.compiled.flags.get(data.name);
        if (flag === undefined)
            continue;
        const name = JSON.stringify(data.name);
        const head = `{"name":${name},"enabled":true,"variant":`;
        const tail = `,"impressionData":${data.impressionData}}`;
        flags.push({
            flag,
            env: flag.environment(scope.environment),
            around: piece(`${head}\0${tail}`),
            head,
            tail,
            enabledPlain: piece(`${head}${DISABLED_ON}${tail}`),
            disabled: piece(`{"name":${name},"enabled":false,"variant":${DISABLED_OFF}${tail}`),
        });
    }
    state.memo.set(key, flags);
    return flags;
}
/** The answer to one question, wherever it is computed (main thread or worker, dispatch.ts). */
export function answerQuestion(source, { scope, context, all }) {
    return frontendToggles(source, scope, context, all);
}
/** `{"toggles":[…]}` for one context: only enabled flags, or every flag when `all`. */
export function frontendToggles(state, scope, context, all) {
    const compiled = state.compiled;
    const environment = scope.environment;
    // One reader for every flag: the context's derived values are computed once per request.
    const reader = new ContextReader(context);
    let out = '{"toggles":[';
    let separator = '';
    // Two 32-bit lanes over the parts' fingerprints, in order: 64 bits of the body's content.
    let high = all ? 1 : 0;
    let low = all ? 1 : 0;
    let parts = 0;
    for (const scoped of scopedFlags(state, scope)) {
        const decision = decide(compiled, environment, scoped.flag, reader, scoped.env);
        let part;
        if (!decision.enabled) {
            if (!all)
                continue;
            part = scoped.disabled;
            out += separator + part.json;
        }
        else if (decision.variant === null) {
            part = scoped.enabledPlain;
            out += separator + part.json;
        }
        else {
            const variant = pickedVariant(decision.variant, decision.strategyVariant);
            high = mixBlock(high, scoped.around.high);
            low = mixBlock(low, scoped.around.low);
            parts++;
            part = variant;
            out += separator + scoped.head + variant.json + scoped.tail;
        }
        high = mixBlock(high, part.high);
        low = mixBlock(low, part.low);
        parts++;
        separator = ',';
    }
    const body = out + ']}';
    return { body, etag: `"${body.length.toString(36)}-${hex8(finishHash(high, parts))}${hex8(finishHash(low, parts))}"` };
}
function hex8(n) {
    return n.toString(16).padStart(8, '0');
}
//# sourceMappingURL=evaluate.js.map