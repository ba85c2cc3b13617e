/**
 * The frontend API's answer for one context: every flag of the token's projects decided by the
 * engine's SDK path (src/evaluation), rendered as Unleash 8's `{toggles: [...]}`.
 */
import { decide, type CompiledSnapshot, type CompiledVariant } from '../../evaluation/index.js';
import { isAllProjects, type TokenScope } from '../client-api/features.js';
import type { SdkState } from '../client-api/state.js';

const STANDARD_FIELDS = new Set(['userId', 'sessionId', 'remoteAddress', 'appName', 'environment', 'currentTime']);

/**
 * An SDK context from the frontend API's input: standard fields stay at the top, `properties`
 * (an object, or `properties[x]` query keys) and every other field go into `properties`, as
 * Unleash's frontend API does.
 */
export function frontendContext(input: Record<string, unknown>, remoteAddress: string): Record<string, unknown> {
  const context: Record<string, unknown> = {};
  const properties: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    if (STANDARD_FIELDS.has(key)) {
      context[key] = value;
    } else if (key === 'properties' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      Object.assign(properties, value);
    } else {
      const match = /^properties\[(.+)\]$/.exec(key);
      properties[match ? match[1]! : key] = value;
    }
  }
  context.remoteAddress ??= remoteAddress;
  context.properties = properties;
  return context;
}

const variantJson = new WeakMap<CompiledVariant, [string, string]>();

/** The variant as the frontend API shows it: payload after `enabled` for a strategy's variant, before it for the environment's. */
function pickedVariantJson(variant: CompiledVariant, strategyVariant: boolean): string {
  let pair = variantJson.get(variant);
  if (pair === undefined) {
    const name = JSON.stringify(variant.name);
    const payload = variant.payload === undefined ? '' : `,"payload":${JSON.stringify(variant.payload)}`;
    const tail = '"feature_enabled":true,"featureEnabled":true}';
    pair = [`{"name":${name}${payload},"enabled":true,${tail}`, `{"name":${name},"enabled":true${payload},${tail}`];
    variantJson.set(variant, pair);
  }
  return strategyVariant ? pair[1] : pair[0];
}

const DISABLED_ON = '{"name":"disabled","enabled":false,"feature_enabled":true,"featureEnabled":true}';
const DISABLED_OFF = '{"name":"disabled","enabled":false,"feature_enabled":false,"featureEnabled":false}';

interface ScopedFlag {
  nameJson: string;
  name: string;
  impressionData: boolean;
}

/** The flags a token sees, in the state's order; memoized on the state per scope. */
function scopedFlags(state: SdkState, scope: TokenScope): ScopedFlag[] {
  const key = `frontend\0${scope.projects.join(',')}`;
  const memo = state.memo.get(key) as ScopedFlag[] | undefined;
  if (memo) return memo;
  const all = isAllProjects(scope.projects);
  const flags = state.flags
    .filter((flag) => all || scope.projects.includes(flag.project))
    .map((flag) => ({ nameJson: JSON.stringify(flag.name), name: flag.name, impressionData: flag.impressionData }));
  state.memo.set(key, flags);
  return flags;
}

/** `{"toggles":[…]}` for one context: only enabled flags, or every flag when `all`. */
export function frontendToggles(state: SdkState, scope: TokenScope, context: Record<string, unknown>, all: boolean): string {
  const compiled: CompiledSnapshot = state.compiled;
  const parts: string[] = [];
  for (const flag of scopedFlags(state, scope)) {
    const compiledFlag = compiled.flags.get(flag.name);
    if (compiledFlag === undefined) continue;
    const decision = decide(compiled, scope.environment, compiledFlag, context);
    if (!decision.enabled && !all) continue;
    const variant = !decision.enabled
      ? DISABLED_OFF
      : decision.variant === null
        ? DISABLED_ON
        : pickedVariantJson(decision.variant, decision.strategyVariant);
    parts.push(`{"name":${flag.nameJson},"enabled":${decision.enabled},"variant":${variant},"impressionData":${flag.impressionData}}`);
  }
  return `{"toggles":[${parts.join(',')}]}`;
}
