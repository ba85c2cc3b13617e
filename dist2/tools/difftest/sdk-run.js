/**
 * Differential tester, part 5: the surfaces SDKs read, on the configuration run.ts applied, for
 * random contexts (contexts.ts `generateSdkContext`) in both environments:
 * - `frontend-post`, `frontend-get`: `/api/frontend` asked directly (toggles compared by name,
 *   each toggle's JSON as sent);
 * - `browser-sdk`: `unleash-proxy-client` on `/api/frontend` (isEnabled and getVariant of every flag);
 * - `server-sdk`, `server-sdk-delta`: `unleash-client` on `/api/client/features`, and on Vane's
 *   `/api/client/delta` against the reference's `/api/client/features` (the open-source reference
 *   has no delta route: its controller is Enterprise's) — isEnabled and getVariant of every flag,
 *   evaluated by the SDK, so what is compared is what each server serves.
 * Random answers are detected and set apart by `compareAnswers` (surfaces.ts).
 */
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { InMemStorageProvider, Unleash } from 'unleash-client';
import { InMemoryStorageProvider, UnleashClient } from 'unleash-proxy-client';
import { generateSdkContexts } from './contexts.js';
import { askFrontend, compareAnswers, createToken, frontendAnswers, frontendQuery, } from './surfaces.js';
const SURFACES = ['frontend-post', 'frontend-get', 'browser-sdk', 'server-sdk', 'server-sdk-delta'];
const ENVIRONMENTS = ['development', 'production'];
export function parseSurfaces(list) {
    const wanted = list.split(',').map((s) => s.trim()).filter(Boolean);
    for (const surface of wanted)
        if (!SURFACES.includes(surface))
            throw new Error(`unknown surface ${surface}; known: ${SURFACES.join(', ')}`);
    return wanted;
}
/** A server SDK on one server and environment, synchronised, or undefined when it does not synchronise in 15 s. */
async function serverSdk(base, token, delta) {
    const sdk = new Unleash({
        appName: 'difftest', url: `${base}/api/`, customHeaders: { Authorization: token }, refreshInterval: 600_000,
        disableMetrics: true, storageProvider: new InMemStorageProvider(), skipInstanceCountWarning: true,
        ...(delta ? { experimentalMode: { type: 'polling', format: 'delta' } } : {}),
    });
    sdk.on('error', () => undefined);
    sdk.on('warn', () => undefined);
    const synchronized = once(sdk, 'synchronized').then(() => true);
    const ok = await Promise.race([synchronized, sleep(15_000).then(() => false)]);
    if (ok)
        return sdk;
    sdk.destroy();
    return undefined;
}
function sdkAnswers(flags, decide) {
    return new Map(flags.map((flag) => [flag, JSON.stringify(decide(flag))]));
}
/** The browser SDK's context: what it can send (scalars; it adds appName, environment and a sessionId of its own). */
function browserContext(context) {
    const out = {};
    for (const [key, value] of Object.entries(context)) {
        if (key === 'appName')
            continue;
        if (key === 'properties')
            out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)]));
        else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
            out[key] = String(value);
    }
    return out;
}
async function askBrowserSdk(base, token, context, flags) {
    const client = new UnleashClient({
        url: `${base}/api/frontend`, clientKey: token, appName: typeof context.appName === 'string' ? context.appName : 'difftest-browser',
        context: browserContext(context), disableRefresh: true, disableMetrics: true, storageProvider: new InMemoryStorageProvider(),
    });
    let failure;
    client.on('error', (err) => (failure = err));
    await client.start();
    client.stop();
    if (failure !== undefined)
        return new Map([['<error>', JSON.stringify(failure)]]);
    return sdkAnswers(flags, (flag) => ({ enabled: client.isEnabled(flag), variant: client.getVariant(flag) }));
}
export async function compareSdkSurfaces(options) {
    const { base, adminToken, flags } = options;
    const sides = ['vane', 'peer'];
    const tokens = new Map();
    const sdks = new Map();
    const skipped = [];
    for (const environment of ENVIRONMENTS) {
        for (const side of sides) {
            tokens.set(`frontend ${side} ${environment}`, await createToken(base[side], adminToken[side], 'frontend', environment, ['*']));
            const client = await createToken(base[side], adminToken[side], 'client', environment, ['*']);
            for (const [surface, delta] of [['server-sdk', false], ['server-sdk-delta', true]]) {
                if (!options.surfaces.includes(surface))
                    continue;
                const sdk = await serverSdk(base[side], client, delta && side === 'vane');
                if (sdk === undefined)
                    skipped.push(`${surface} on ${side} (${environment}): the SDK did not synchronise`);
                sdks.set(`${surface} ${side} ${environment}`, sdk);
            }
        }
    }
    // Unleash's frontend API reads a cache refreshed on the next configuration revision.
    await sleep(3000);
    const summary = new Map(options.surfaces.map((s) => [s, { questions: 0, compared: 0, random: 0, differing: 0, differingQuestions: 0 }]));
    const findings = [];
    const contexts = generateSdkContexts(options.seed, options.contexts);
    for (const [index, context] of contexts.entries()) {
        for (const environment of ENVIRONMENTS) {
            const token = (side) => tokens.get(`frontend ${side} ${environment}`);
            const asks = [];
            const frontend = (request) => async (side) => frontendAnswers(await askFrontend(base[side], token(side), request));
            asks.push(['frontend-post', frontend({ method: 'POST', context })]);
            asks.push(['frontend-get', frontend({ method: 'GET', query: frontendQuery(context) })]);
            asks.push(['browser-sdk', (side) => askBrowserSdk(base[side], token(side), context, flags)]);
            for (const surface of ['server-sdk', 'server-sdk-delta']) {
                const vane = sdks.get(`${surface} vane ${environment}`);
                const peer = sdks.get(`${surface} peer ${environment}`);
                if (vane === undefined || peer === undefined)
                    continue;
                const sdkContext = context;
                asks.push([surface, async (side) => {
                        const sdk = side === 'vane' ? vane : peer;
                        return sdkAnswers(flags, (flag) => ({ enabled: sdk.isEnabled(flag, sdkContext), variant: sdk.getVariant(flag, sdkContext) }));
                    }]);
            }
            for (const [surface, ask] of asks) {
                const totals = summary.get(surface);
                if (totals === undefined)
                    continue;
                const result = await compareAnswers(ask, flags);
                totals.questions++;
                totals.compared += result.compared;
                totals.random += result.random.length;
                totals.differing += result.differences.length;
                if (result.differences.length > 0) {
                    totals.differingQuestions++;
                    findings.push({ case: index, environment, surface, context, differences: result.differences });
                }
            }
        }
    }
    for (const sdk of sdks.values())
        sdk?.destroy();
    return { summary, findings, skipped };
}
export { SURFACES };
//# sourceMappingURL=sdk-run.js.map