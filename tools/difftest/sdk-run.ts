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
import { InMemStorageProvider, Unleash, type Context } from 'unleash-client';
import { InMemoryStorageProvider, UnleashClient } from 'unleash-proxy-client';
import { generateSdkContexts } from './contexts.js';
import {
  askFrontend, compareAnswers, createToken, frontendAnswers, frontendQuery, Tally, type Answers, type FrontendRequest,
} from './surfaces.js';

const SURFACES = ['frontend-post', 'frontend-get', 'browser-sdk', 'server-sdk', 'server-sdk-delta'] as const;
export type Surface = (typeof SURFACES)[number];
type Side = 'vane' | 'peer';

export interface SdkRunOptions {
  seed: number;
  contexts: number;
  /** Every flag name of the configuration (archived ones too). */
  flags: readonly string[];
  base: Record<Side, string>;
  adminToken: Record<Side, string>;
  surfaces: readonly Surface[];
}

const ENVIRONMENTS = ['development', 'production'] as const;

export function parseSurfaces(list: string): Surface[] {
  const wanted = list.split(',').map((s) => s.trim()).filter(Boolean);
  for (const surface of wanted) if (!(SURFACES as readonly string[]).includes(surface)) throw new Error(`unknown surface ${surface}; known: ${SURFACES.join(', ')}`);
  return wanted as Surface[];
}

/** A server SDK on one server and environment, synchronised, or undefined when it does not synchronise in 15 s. */
async function serverSdk(base: string, token: string, delta: boolean): Promise<Unleash | undefined> {
  const sdk = new Unleash({
    appName: 'difftest', url: `${base}/api/`, customHeaders: { Authorization: token }, refreshInterval: 600_000,
    disableMetrics: true, storageProvider: new InMemStorageProvider(), skipInstanceCountWarning: true,
    ...(delta ? { experimentalMode: { type: 'polling' as const, format: 'delta' as const } } : {}),
  });
  sdk.on('error', () => undefined);
  sdk.on('warn', () => undefined);
  const synchronized = once(sdk, 'synchronized').then(() => true);
  const ok = await Promise.race([synchronized, sleep(15_000).then(() => false)]);
  if (ok) return sdk;
  sdk.destroy();
  return undefined;
}

function sdkAnswers(flags: readonly string[], decide: (flag: string) => { enabled: boolean; variant: unknown }): Answers {
  return new Map(flags.map((flag) => [flag, JSON.stringify(decide(flag))]));
}

/** The browser SDK's context: what it can send (scalars; it adds appName, environment and a sessionId of its own). */
function browserContext(context: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(context)) {
    if (key === 'appName') continue;
    if (key === 'properties') out.properties = Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, String(v)]));
    else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out[key] = String(value);
  }
  return out;
}

async function askBrowserSdk(base: string, token: string, context: Record<string, unknown>, flags: readonly string[]): Promise<Answers> {
  const client = new UnleashClient({
    url: `${base}/api/frontend`, clientKey: token, appName: typeof context.appName === 'string' ? context.appName : 'difftest-browser',
    // unleash-proxy-client's declarations import './storage-provider-inmemory' without the extension NodeNext needs:
    // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call
    context: browserContext(context), disableRefresh: true, disableMetrics: true, storageProvider: new InMemoryStorageProvider(),
  });
  let failure: unknown;
  client.on('error', (err: unknown) => (failure = err));
  await client.start();
  client.stop();
  if (failure !== undefined) return new Map([['<error>', JSON.stringify(failure)]]);
  return sdkAnswers(flags, (flag) => ({ enabled: client.isEnabled(flag), variant: client.getVariant(flag) }));
}

export async function compareSdkSurfaces(options: SdkRunOptions): Promise<{ tally: Tally; skipped: string[] }> {
  const { base, adminToken, flags } = options;
  const sides: Side[] = ['vane', 'peer'];
  const tokens = new Map<string, string>();
  const sdks = new Map<string, Unleash | undefined>();
  const skipped: string[] = [];
  for (const environment of ENVIRONMENTS) {
    for (const side of sides) {
      tokens.set(`frontend ${side} ${environment}`, await createToken(base[side], adminToken[side], 'frontend', environment, ['*']));
      const client = await createToken(base[side], adminToken[side], 'client', environment, ['*']);
      for (const [surface, delta] of [['server-sdk', false], ['server-sdk-delta', true]] as const) {
        if (!options.surfaces.includes(surface)) continue;
        const sdk = await serverSdk(base[side], client, delta && side === 'vane');
        if (sdk === undefined) skipped.push(`${surface} on ${side} (${environment}): the SDK did not synchronise`);
        sdks.set(`${surface} ${side} ${environment}`, sdk);
      }
    }
  }
  // Unleash's frontend API reads a cache refreshed on the next configuration revision.
  await sleep(3000);

  const tally = new Tally(options.surfaces);
  const contexts = generateSdkContexts(options.seed, options.contexts);
  for (const [index, context] of contexts.entries()) {
    for (const environment of ENVIRONMENTS) {
      const token = (side: Side) => tokens.get(`frontend ${side} ${environment}`)!;
      const asks: Array<[Surface, (side: Side) => Promise<Answers>]> = [];
      const frontend = (request: FrontendRequest) => async (side: Side) => frontendAnswers(await askFrontend(base[side], token(side), request));
      asks.push(['frontend-post', frontend({ method: 'POST', context })]);
      asks.push(['frontend-get', frontend({ method: 'GET', query: frontendQuery(context) })]);
      asks.push(['browser-sdk', (side) => askBrowserSdk(base[side], token(side), context, flags)]);
      for (const surface of ['server-sdk', 'server-sdk-delta'] as const) {
        const vane = sdks.get(`${surface} vane ${environment}`);
        const peer = sdks.get(`${surface} peer ${environment}`);
        if (vane === undefined || peer === undefined) continue;
        const sdkContext = context as Context;
        asks.push([surface, async (side) => {
          const sdk = side === 'vane' ? vane : peer;
          return sdkAnswers(flags, (flag) => ({ enabled: sdk.isEnabled(flag, sdkContext), variant: sdk.getVariant(flag, sdkContext) }));
        }]);
      }
      for (const [surface, ask] of asks) {
        if (options.surfaces.includes(surface)) tally.add({ case: index, environment, surface, context }, await compareAnswers(ask, flags));
      }
    }
  }
  for (const sdk of sdks.values()) sdk?.destroy();
  return { tally, skipped };
}

export { SURFACES };
