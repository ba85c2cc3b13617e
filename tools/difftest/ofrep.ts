/**
 * Differential tester, part 6: docs/rules.md §10 (OFREP) written down independently of
 * src/features/ofrep — an OpenFeature context as the frontend API's input, a flag's value type, and
 * the OFREP evaluation a frontend API toggle stands for. Used by the `ofrep-*` surfaces (vane-run.ts)
 * and by the OFREP tests (test/features/ofrep/helpers.ts).
 */
import type { Random } from './config.js';

export type Kind = 'boolean' | 'string' | 'number' | 'object' | 'variant';

export interface Payload { type: string; value: string }
interface Variant { name?: string; weight?: number; payload?: Payload; overrides?: Array<{ contextName: string; values: string[] }> }
/** A flag as `/api/client/features` shows it in the token's environment. */
export interface ClientFeature {
  name: string;
  enabled: boolean;
  strategies: Array<{ variants?: Variant[] }>;
  variants?: Variant[] | null;
}
/** A toggle of `/api/frontend/all`. */
export interface Toggle { name: string; enabled: boolean; variant: { name: string; enabled: boolean; payload?: Payload } }

const asText = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? `${value}` : undefined;

/** §10.2 as a rule: targetingKey is the userId unless one is given; numbers and booleans as text; anything else left out. */
export function mappedContext(context: Record<string, unknown>): Record<string, unknown> {
  const entries = Object.entries(context).filter(([key]) => key !== 'targetingKey').flatMap(([key, value]): Array<[string, unknown]> => {
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

/**
 * An OpenFeature context from one of difftest's: its userId sometimes moved to targetingKey,
 * sometimes beside a targetingKey it overrides, sometimes left as it is.
 */
export function ofrepContext(random: Random, source: Record<string, unknown>): Record<string, unknown> {
  const context = { ...source };
  const choice = random.int(0, 2);
  if (choice === 0 && context.userId !== undefined) {
    context.targetingKey = context.userId;
    delete context.userId;
  } else if (choice === 1) {
    context.targetingKey = `tk-${random.int(0, 99)}`;
  }
  return context;
}

/** The variant lists an SDK sees for the flag: the environment's, then each strategy's. */
function variantLists(feature: ClientFeature): Variant[][] {
  return [feature.variants ?? [], ...feature.strategies.map((s) => s.variants ?? [])].filter((list) => list.length > 0);
}

/** §10.3 as a rule, from the flag as the client API shows it in the token's environment. */
export function kindOf(feature: ClientFeature): Kind {
  const variants = variantLists(feature).flat();
  if (variants.length === 0) return 'boolean';
  const kinds = new Set(variants.map(({ payload }): Kind => {
    if (payload === undefined) return 'variant';
    if (payload.type === 'string' || payload.type === 'csv') return 'string';
    if (payload.type === 'number') return payload.value.trim() !== '' && !Number.isNaN(Number(payload.value)) ? 'number' : 'variant';
    if (payload.type === 'json') {
      try {
        const parsed: unknown = JSON.parse(payload.value);
        return typeof parsed === 'object' && parsed !== null ? 'object' : 'variant';
      } catch {
        return 'variant';
      }
    }
    return 'variant';
  }));
  return kinds.size === 1 ? [...kinds][0]! : 'variant';
}

export function valueOf(kind: Kind, variant: Toggle['variant']): unknown {
  if (kind === 'variant') return variant.name;
  const text = variant.payload!.value;
  return kind === 'number' ? Number(text) : kind === 'object' ? JSON.parse(text) : text;
}

/** Either reason: the toggle does not tell which list its variant came from. */
export const SPLIT_OR_MATCH = 'SPLIT|TARGETING_MATCH';
const FRONTEND_TOP_LEVEL = new Set(['appName', 'environment', 'userId', 'sessionId', 'remoteAddress']);

/**
 * §10.4 for a flag on for the context with variant `name` (or none): SPLIT when picked by hashing
 * from a list with more than one variant of positive weight, TARGETING_MATCH otherwise (an override,
 * a single variant, no variant). `context` is the frontend API's input, read as §9.1 reads it.
 */
function matchReason(feature: ClientFeature, name: string | null, context: Record<string, unknown>): string {
  if (name === null) return 'TARGETING_MATCH';
  const properties = (context.properties ?? {}) as Record<string, unknown>;
  const resolve = (field: string) => (FRONTEND_TOP_LEVEL.has(field) ? context[field] : properties[field] ?? context[field]);
  const reasons = new Set(variantLists(feature).flatMap((list) => {
    const variant = list.find((v) => v.name === name);
    if (variant === undefined) return [];
    const byOverride = (variant.overrides ?? []).some((o) => o.values.includes(resolve(o.contextName) as string));
    return [!byOverride && list.filter((v) => (v.weight ?? 0) > 0).length > 1 ? 'SPLIT' : 'TARGETING_MATCH'];
  }));
  return reasons.size === 1 ? [...reasons][0]! : SPLIT_OR_MATCH;
}

/**
 * The OFREP evaluation (§10.3–10.4, key order as sent) that a frontend API toggle stands for;
 * `reason` is SPLIT_OR_MATCH where the toggle cannot tell.
 */
export function expectedEvaluation(feature: ClientFeature, toggle: Toggle, context: Record<string, unknown>): Record<string, unknown> {
  const kind = kindOf(feature);
  const variant = kind !== 'boolean' && toggle.enabled && toggle.variant.enabled ? toggle.variant : null;
  const reason = !feature.enabled ? 'DISABLED' : !toggle.enabled ? 'DEFAULT' : matchReason(feature, variant?.name ?? null, context);
  if (kind === 'boolean') return { key: toggle.name, value: toggle.enabled, reason };
  if (variant === null) return { key: toggle.name, reason, metadata: { enabled: toggle.enabled } };
  const payload = kind === 'variant' && variant.payload !== undefined ? { payloadType: variant.payload.type, payload: variant.payload.value } : {};
  return { key: toggle.name, value: valueOf(kind, variant), reason, variant: variant.name, metadata: { enabled: true, ...payload } };
}

/** Whether an OFREP evaluation (as JSON text) is the expected one, a SPLIT_OR_MATCH reason taking either. */
export function sameEvaluation(expected: string | undefined, actual: string | undefined): boolean {
  if (expected === actual) return true;
  if (expected === undefined || actual === undefined || !expected.includes(SPLIT_OR_MATCH)) return false;
  return ['SPLIT', 'TARGETING_MATCH'].some((reason) => expected.replace(`"reason":"${SPLIT_OR_MATCH}"`, `"reason":"${reason}"`) === actual);
}
