import { ADMIN_TOKEN } from '../../helpers/app.js';
import { applyConfiguration, generateConfiguration, generateConstraint, Random } from '../../../tools/difftest/config.js';
import { generateContext } from '../../../tools/difftest/contexts.js';
/** §10.2 as a rule: targetingKey is the userId unless one is given; numbers and booleans as text; anything else left out. */
export function mappedContext(context) {
    const asText = (value) => typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? `${value}` : undefined;
    const entries = Object.entries(context).filter(([key]) => key !== 'targetingKey').flatMap(([key, value]) => {
        if (key === 'properties' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
            return [[key, Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asText(v)]).filter(([, v]) => v !== undefined))]];
        }
        const text = asText(value);
        return text === undefined ? [] : [[key, text]];
    });
    const mapped = Object.fromEntries(entries);
    const targetingKey = asText(context.targetingKey);
    return mapped.userId === undefined && targetingKey !== undefined ? { ...mapped, userId: targetingKey } : mapped;
}
/** §10.3 as a rule, from the flag as the client API shows it in the token's environment. */
export function kindOf(feature) {
    const variants = [...(feature.variants ?? []), ...feature.strategies.flatMap((s) => s.variants ?? [])];
    if (variants.length === 0)
        return 'boolean';
    const kinds = new Set(variants.map(({ payload }) => {
        if (payload === undefined)
            return 'variant';
        if (payload.type === 'string' || payload.type === 'csv')
            return 'string';
        if (payload.type === 'number')
            return payload.value.trim() !== '' && !Number.isNaN(Number(payload.value)) ? 'number' : 'variant';
        if (payload.type === 'json') {
            try {
                const parsed = JSON.parse(payload.value);
                return typeof parsed === 'object' && parsed !== null ? 'object' : 'variant';
            }
            catch {
                return 'variant';
            }
        }
        return 'variant';
    }));
    return kinds.size === 1 ? [...kinds][0] : 'variant';
}
function valueOf(kind, variant) {
    if (kind === 'variant')
        return variant.name;
    const text = variant.payload.value;
    return kind === 'number' ? Number(text) : kind === 'object' ? JSON.parse(text) : text;
}
/** The client API's view of the flags (a client token of the same scope): what decides each flag's kind. */
export async function clientFeatures(app, clientToken) {
    const res = await app.inject({ method: 'GET', url: '/api/client/features', headers: { authorization: clientToken } });
    return new Map(res.json().features.map((feature) => [feature.name, feature]));
}
/** Every flag the frontend API lists for the mapped context, as OFREP should report it. */
export async function expectedEvaluations(app, frontendToken, features, context) {
    const res = await app.inject({
        method: 'POST', url: '/api/frontend/all', headers: { authorization: frontendToken, 'content-type': 'application/json' },
        payload: { context: mappedContext(context) },
    });
    const expected = new Map();
    for (const toggle of res.json().toggles) {
        const feature = features.get(toggle.name);
        const kind = kindOf(feature);
        const reason = !feature.enabled ? 'DISABLED' : !toggle.enabled ? 'DEFAULT' : 'MATCH';
        if (kind === 'boolean')
            expected.set(toggle.name, { kind, value: toggle.enabled, variant: undefined, reason });
        else if (!toggle.variant.enabled)
            expected.set(toggle.name, { kind, value: undefined, variant: undefined, reason });
        else
            expected.set(toggle.name, { kind, value: valueOf(kind, toggle.variant), variant: toggle.variant.name, reason });
    }
    return expected;
}
/**
 * Flags whose variants all carry one kind of payload (number, JSON, string, CSV), or none, so every
 * value type occurs; the difftest configuration mixes payload kinds within a flag.
 */
function kindFlags(random, count) {
    const requests = [];
    const payloads = {
        number: () => ({ type: 'number', value: String(random.pick([0, 1.5, 42, -7, 1000])) }),
        json: () => ({ type: 'json', value: JSON.stringify(random.chance(0.8) ? { tier: random.pick(['a', 'b']), n: random.int(0, 9) } : [1, 2]) }),
        string: () => ({ type: 'string', value: random.pick(['red', 'blue', 'on']) }),
        csv: () => ({ type: 'csv', value: 'a,b' }),
        none: () => undefined,
    };
    for (let i = 0; i < count; i++) {
        const kind = random.pick(Object.keys(payloads));
        const name = `kind-${kind}-${i}`;
        const base = `/api/admin/projects/default/features/${name}/environments/development`;
        const variants = (n) => Array.from({ length: n }, (_, v) => {
            const payload = payloads[kind]();
            return { name: `v${v}`, weight: Math.floor(1000 / n), weightType: 'variable', stickiness: 'default', ...(payload ? { payload } : {}) };
        });
        requests.push({ method: 'POST', path: '/api/admin/projects/default/features', body: { name } });
        if (random.chance(0.6)) {
            requests.push({ method: 'POST', path: `${base}/strategies`, body: {
                    name: 'flexibleRollout', parameters: { rollout: String(random.pick([50, 100])), stickiness: 'default', groupId: name },
                    constraints: random.chance(0.5) ? [generateConstraint(random)] : [], ...(random.chance(0.5) ? { variants: variants(random.int(1, 3)) } : {}),
                } });
        }
        if (random.chance(0.7))
            requests.push({ method: 'PUT', path: `${base}/variants`, body: variants(random.int(1, 3)) });
        if (random.chance(0.8))
            requests.push({ method: 'POST', path: `${base}/on` });
    }
    return requests;
}
/** A random configuration (difftest's, plus `kindFlags`) applied to a listening server. */
export async function randomConfiguration(base, seed) {
    const requests = [...generateConfiguration(seed, { flags: 24 }), ...kindFlags(new Random(seed), 14)];
    const statuses = await applyConfiguration(base, ADMIN_TOKEN, requests);
    // Some of difftest's requests are refused on purpose (archiving a parent is a 403); none may fail on the server.
    const failed = statuses.map((status, i) => [status, requests[i]]).filter(([status]) => status >= 500);
    if (failed.length > 0)
        throw new Error(`configuration: ${JSON.stringify(failed.slice(0, 3))}`);
}
/**
 * An OpenFeature context from difftest's random ones (numbers, booleans, objects, arrays among the
 * values): its userId sometimes moved to targetingKey, sometimes beside a targetingKey it overrides.
 */
export function randomOfrepContext(random) {
    const context = generateContext(random);
    const choice = random.int(0, 2);
    if (choice === 0) {
        context.targetingKey = context.userId;
        delete context.userId;
    }
    else if (choice === 1) {
        context.targetingKey = `tk-${random.int(0, 99)}`;
    }
    return context;
}
export { Random };
//# sourceMappingURL=helpers.js.map