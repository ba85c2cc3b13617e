/**
 * Variant definitions and selection (docs/rules.md §3.9), compiled once per revision.
 *
 * Every JSON shape a picked variant can appear in is static per definition, so it is rendered at
 * compile time: in a strategy result, as a flag variant won through a strategy, and as a flag
 * variant picked from the environment's variants.
 */
import type { ContextReader } from './context-reader.js';
import { randomIntString, variantBucket } from './hash.js';
import { isObject } from './json.js';
import type { PlaygroundVariant, SdkVariant, StrategyVariantResult, VariantPayload } from './types.js';

/** Where the variant list lives: it decides the stickiness source and the flag-variant JSON shape. */
export type VariantOwner = 'strategy' | 'environment';

interface CompiledOverride {
  readonly contextName: string;
  readonly values: ReadonlySet<string>;
}

export class CompiledVariant {
  /** Position in its variant list (part of the serializer's memo keys). */
  readonly index: number;
  readonly name: string;
  readonly weight: number;
  readonly payload: VariantPayload | undefined;
  readonly overrides: readonly CompiledOverride[];
  /** `{"name","enabled":true,"payload"?}` inside a strategy result. */
  readonly strategyResult: StrategyVariantResult;
  readonly strategyResultJson: string;
  /** Flag-level `variant` (docs/rules.md §3.10 step 5) when this variant is picked. */
  readonly flagVariant: Readonly<PlaygroundVariant>;
  readonly flagVariantJson: string;
  /** What an SDK's getVariant returns for this variant. */
  readonly sdkVariant: Readonly<SdkVariant>;

  constructor(definition: Record<string, unknown>, owner: VariantOwner, index: number) {
    const payload = isPayload(definition.payload) ? (definition.payload as VariantPayload) : undefined;
    this.index = index;
    this.name = String(definition.name);
    this.weight = toWeight(definition.weight);
    this.payload = payload;
    this.overrides = compileOverrides(definition.overrides);
    this.strategyResult = Object.freeze(
      payload === undefined ? { name: this.name, enabled: true as const } : { name: this.name, enabled: true as const, payload },
    );
    this.strategyResultJson = JSON.stringify(this.strategyResult);
    // Key orders are Unleash's, which differ between the two sources [peer 42, 45].
    this.flagVariant = Object.freeze(
      owner === 'strategy'
        ? payload === undefined
          ? { name: this.name, enabled: true, feature_enabled: true }
          : { name: this.name, enabled: true, payload, feature_enabled: true }
        : payload === undefined
          ? { name: this.name, enabled: true, feature_enabled: true, featureEnabled: true }
          : { name: this.name, payload, enabled: true, feature_enabled: true, featureEnabled: true },
    );
    this.flagVariantJson = JSON.stringify(this.flagVariant);
    this.sdkVariant = Object.freeze(
      payload === undefined
        ? { name: this.name, enabled: true, feature_enabled: true }
        : { name: this.name, payload, enabled: true, feature_enabled: true },
    );
  }
}

export class CompiledVariantSet {
  readonly variants: readonly CompiledVariant[];
  readonly totalWeight: number;
  readonly groupId: string;
  readonly stickiness: string;
  readonly hasOverrides: boolean;
  /** The definitions exactly as stored, and their JSON (the `variants` arrays of §3.8/§3.10). */
  readonly definitions: readonly unknown[];
  readonly definitionsJson: string;

  constructor(definitions: readonly unknown[], owner: VariantOwner, groupId: string, stickiness: string) {
    const variants = definitions.map(
      (definition, index) => new CompiledVariant(isObject(definition) ? definition : {}, owner, index),
    );
    this.variants = variants;
    this.totalWeight = variants.reduce((sum, variant) => sum + variant.weight, 0);
    this.groupId = groupId;
    this.stickiness = stickiness;
    this.hasOverrides = variants.some((variant) => variant.overrides.length > 0);
    this.definitions = definitions;
    this.definitionsJson = JSON.stringify(definitions);
  }
}

/**
 * Environment (flag) variants: group = flag name, stickiness = the first variant's (docs/rules.md §3.9).
 */
export function compileEnvironmentVariants(definitions: unknown, flagName: string): CompiledVariantSet {
  const list: unknown[] = Array.isArray(definitions) ? definitions : [];
  const first = list[0];
  const stickiness = isObject(first) && typeof first.stickiness === 'string' && first.stickiness !== '' ? first.stickiness : 'default';
  return new CompiledVariantSet(list, 'environment', flagName, stickiness);
}

/**
 * Strategy variants: group = the `groupId` parameter as is (the literal "undefined" when absent,
 * as SDKs concatenate it); stickiness = the first variant's `stickiness` when set, else the
 * strategy's `stickiness` parameter (Node SDK 6.x: `variants[0].stickiness || parameters.stickiness`;
 * Unleash's playground also takes the first variant's; only the fallback to the parameter is D2 (docs/glossary.md),
 * client specification 16), else `default`.
 */
export function compileStrategyVariants(
  definitions: unknown,
  parameters: Readonly<Record<string, string>>,
): CompiledVariantSet {
  const list: unknown[] = Array.isArray(definitions) ? definitions : [];
  const groupId = Object.hasOwn(parameters, 'groupId') ? parameters.groupId! : 'undefined';
  const first = list[0];
  const own = isObject(first) && typeof first.stickiness === 'string' && first.stickiness !== '' ? first.stickiness : '';
  const inherited = Object.hasOwn(parameters, 'stickiness') && parameters.stickiness !== '' ? parameters.stickiness! : 'default';
  return new CompiledVariantSet(list, 'strategy', groupId, own !== '' ? own : inherited);
}

/**
 * docs/rules.md §3.9 `select`: null when the total weight is not positive; else the first override match;
 * else the weighted bucket of the sticky value.
 */
export function selectVariant(set: CompiledVariantSet, context: ContextReader): CompiledVariant | null {
  if (!(set.totalWeight > 0)) return null;
  if (set.hasOverrides) {
    const overridden = findOverride(set.variants, context);
    if (overridden !== null) return overridden;
  }
  const target = variantBucket(stickyValue(set.stickiness, context), set.groupId, set.totalWeight);
  let running = 0;
  for (const variant of set.variants) {
    if (variant.weight === 0) continue;
    running += variant.weight;
    if (running >= target) return variant;
  }
  return null;
}

function findOverride(variants: readonly CompiledVariant[], context: ContextReader): CompiledVariant | null {
  for (const variant of variants) {
    for (const override of variant.overrides) {
      const value = context.resolve(override.contextName);
      if (value !== undefined && override.values.has(value)) return variant;
    }
  }
  return null;
}

/** `default`: first of userId, sessionId, remoteAddress (top level); else the named field; else random. */
function stickyValue(stickiness: string, context: ContextReader): string {
  const value =
    stickiness === 'default'
      ? (context.topLevel('userId') ?? context.topLevel('sessionId') ?? context.topLevel('remoteAddress'))
      : context.resolve(stickiness);
  return value ?? randomIntString(0, 100000);
}

function compileOverrides(overrides: unknown): CompiledOverride[] {
  if (!Array.isArray(overrides)) return [];
  const compiled: CompiledOverride[] = [];
  for (const override of overrides) {
    if (!isObject(override) || !Array.isArray(override.values)) continue;
    compiled.push({
      contextName: String(override.contextName),
      values: new Set(override.values.filter((value): value is string => typeof value === 'string')),
    });
  }
  return compiled;
}

/** Weights are numbers in stored data; anything else weighs nothing rather than poisoning the sum. */
function toWeight(weight: unknown): number {
  return typeof weight === 'number' && Number.isFinite(weight) ? weight : 0;
}

function isPayload(payload: unknown): boolean {
  return payload !== undefined && payload !== null;
}
