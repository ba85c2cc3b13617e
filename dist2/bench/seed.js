/**
 * Seeds a realistic 100-flag configuration through the admin API — the same requests work
 * against Vane and against the Unleash reference server, so both are measured on one setup.
 *
 * Per flag, in `development` and `production`: 1–3 strategies (flexibleRollout, default,
 * remoteAddress, userWithId-free — Unleash 8 cannot create the legacy types), constraints cycling
 * through every operator, one of 5 segments on some strategies, strategy variants on some,
 * environment variants on every fifth flag, and every tenth flag depends on its predecessor.
 */
import { seededRandom } from './random.js';
export const OPERATORS = [
    { operator: 'IN', contextName: 'userId', values: ['1', '2', '3', '123', '77'] },
    { operator: 'NOT_IN', contextName: 'region', values: ['antarctica'] },
    { operator: 'STR_CONTAINS', contextName: 'email', values: ['@example'], caseInsensitive: true },
    { operator: 'STR_STARTS_WITH', contextName: 'userId', values: ['1', '4'] },
    { operator: 'STR_ENDS_WITH', contextName: 'email', values: ['.com', '.org'] },
    { operator: 'NUM_GT', contextName: 'age', value: '18' },
    { operator: 'NUM_LTE', contextName: 'age', value: '65' },
    { operator: 'NUM_EQ', contextName: 'plan', value: '3' },
    { operator: 'DATE_AFTER', contextName: 'currentTime', value: '2020-01-01T00:00:00.000Z' },
    { operator: 'DATE_BEFORE', contextName: 'currentTime', value: '2099-01-01T00:00:00.000Z' },
    { operator: 'SEMVER_GT', contextName: 'version', value: '1.2.3' },
    { operator: 'SEMVER_LT', contextName: 'version', value: '9.0.0' },
    { operator: 'SEMVER_EQ', contextName: 'version', value: '2.0.0', inverted: true },
    { operator: 'SEMVER_GTE', contextName: 'version', value: '1.0.0' },
    { operator: 'SEMVER_LTE', contextName: 'version', value: '5.0.0' },
    { operator: 'REGEX', contextName: 'email', value: '^[a-z]+@example\\.(com|org)$' },
    { operator: 'NUM_GTE', contextName: 'age', value: '21' },
    { operator: 'NUM_LT', contextName: 'age', value: '99' },
];
export async function call(target, method, path, body) {
    const res = await fetch(target.url + path, {
        method,
        headers: { authorization: target.token, 'content-type': 'application/json', accept: 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (res.status >= 300)
        throw new Error(`${target.name} ${method} ${path} → ${res.status} ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : undefined;
}
const constraint = (i) => {
    const c = OPERATORS[i % OPERATORS.length];
    return { values: [], ...c };
};
export const SEED_PREFIX = 'bench';
export const FLAG_COUNT = 100;
export async function seed(target, prefix = SEED_PREFIX) {
    const segmentIds = [];
    for (let s = 0; s < 5; s++) {
        const segment = (await call(target, 'POST', '/api/admin/segments', {
            name: `${prefix}-segment-${s}`,
            constraints: [constraint(s * 3), constraint(s * 3 + 1)],
        }));
        segmentIds.push(segment.id);
    }
    for (let i = 0; i < FLAG_COUNT; i++) {
        const name = `${prefix}.flag.${String(i).padStart(3, '0')}`;
        await call(target, 'POST', '/api/admin/projects/default/features', { name, description: `bench flag ${i}` });
        for (const environment of ['development', 'production']) {
            const base = `/api/admin/projects/default/features/${name}/environments/${environment}`;
            const strategies = 1 + (i % 3);
            for (let k = 0; k < strategies; k++) {
                const kind = (i + k) % 3;
                const body = kind === 0
                    ? {
                        name: 'flexibleRollout',
                        parameters: { rollout: String(20 + ((i * 7 + k * 13) % 80)), stickiness: 'default', groupId: name },
                        constraints: [constraint(i + k), constraint(i + k + 5)],
                        segments: i % 4 === 0 ? [segmentIds[i % 5]] : [],
                        variants: i % 2 === 0
                            ? [
                                { name: 'red', weight: 500, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: 'r' } },
                                { name: 'blue', weight: 500, weightType: 'variable', stickiness: 'default' },
                            ]
                            : [],
                    }
                    : kind === 1
                        ? { name: 'default', parameters: {}, constraints: [constraint(i + k + 2)] }
                        : { name: 'remoteAddress', parameters: { IPs: '10.0.0.0/8, 192.168.1.1' }, constraints: [] };
                await call(target, 'POST', `${base}/strategies`, body);
            }
            if (i % 5 === 0) {
                await call(target, 'PUT', `${base}/variants`, [
                    { name: 'a', weight: 340, weightType: 'variable', stickiness: 'default', overrides: [{ contextName: 'userId', values: ['1'] }] },
                    { name: 'b', weight: 330, weightType: 'variable', stickiness: 'default', payload: { type: 'json', value: '{"x":1}' } },
                    { name: 'c', weight: 100, weightType: 'fix', stickiness: 'default' },
                ]);
            }
            await call(target, 'POST', `${base}/on`);
        }
        if (i % 10 === 9) {
            const parent = `${prefix}.flag.${String(i - 1).padStart(3, '0')}`;
            await call(target, 'POST', `/api/admin/projects/default/features/${name}/dependencies`, { feature: parent, enabled: true });
        }
    }
}
/** 400 frontend contexts, the same on both servers and in every run (seeded): bench/sdk.ts F1/F2, bench/frontend-dispatch.ts. */
export function frontendContexts() {
    const random = seededRandom(15);
    const regions = ['eu', 'us', 'apac', 'antarctica'];
    return Array.from({ length: 400 }, (_, i) => ({
        userId: String(Math.floor(random() * 1000)),
        sessionId: `s-${i}`,
        properties: { region: regions[i % 4], email: `u${i}@example.com`, age: String(Math.floor(random() * 90)), version: `${i % 5}.${i % 3}.0`, plan: String(i % 5) },
    }));
}
export async function firstFlagName(prefix = SEED_PREFIX) {
    return `${prefix}.flag.000`;
}
//# sourceMappingURL=seed.js.map