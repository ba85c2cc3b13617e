/**
 * How Unleash's flags look through OpenFeature (docs/rules.md §10): the context an OFREP provider
 * sends, turned into the frontend API's input; the value type of each flag; the reason of an
 * evaluation; and each evaluation rendered as OFREP JSON. Pure: the main thread and the worker
 * threads render the same bytes.
 */
import type { CompiledFlagEnvironment, CompiledVariant, CompiledVariantSet, ContextReader, SdkDecision } from '../../evaluation/index.js';
import { completeContext, piece, PROPERTY_KEY, ROOT_FIELDS, type Piece } from '../frontend-api/evaluate.js';
import type { Reason } from './schemas.js';

/** A context value as Unleash reads it: strings as they are, numbers and booleans as their text; anything else is left out. */
function contextString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The frontend API's input for an OpenFeature evaluation context (§10.2): `targetingKey` becomes
 * `userId` unless a `userId` is given; numbers and booleans become their text (`42`, `1.5`,
 * `true`), at the top and inside a `properties` object; objects, arrays and null are left out
 * (Unleash's context holds strings only: the frontend API would ignore them too). The result goes
 * through the frontend API's own context building, so every other rule is the frontend API's.
 */
export function frontendInput(context: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const key of Object.keys(context)) {
    if (key === 'targetingKey') continue;
    const value = context[key];
    if (key === 'properties' && isRecord(value)) {
      const properties: Record<string, string> = {};
      for (const name of Object.keys(value)) {
        const text = contextString(value[name]);
        if (text !== undefined) properties[name] = text;
      }
      input.properties = properties;
      continue;
    }
    const text = contextString(value);
    if (text !== undefined) input[key] = text;
  }
  const targetingKey = contextString(context.targetingKey);
  if (input.userId === undefined && targetingKey !== undefined) input.userId = targetingKey;
  return input;
}

/**
 * `frontendContext(frontendInput(context), remoteAddress)` in one pass: the frontend API's context
 * for an OpenFeature one, built without the intermediate input object (every bulk request builds
 * one; test/features/ofrep/evaluate.test.ts checks the two agree). Callgrind on the 400 contexts
 * of bench:ofrep (20 000 contexts after 20 000 warm-up ones): 6.6 k instructions per
 * context, against 16.9 k for the two calls (12.3 k of them `frontendContext`'s); the bulk answer
 * with its context, 289 k → 280 k per request (bench/seed.ts's 100 flags, both versions in
 * alternating phases of one callgrind process).
 */
export function ofrepFrontendContext(context: Readonly<Record<string, unknown>>, remoteAddress: string): Record<string, unknown> {
  const moved: Record<string, unknown> = {};
  const given: Record<string, unknown> = {};
  for (const key of Object.keys(context)) {
    if (key === 'targetingKey' || (ROOT_FIELDS as readonly string[]).includes(key)) continue;
    const value = context[key];
    if (key === 'properties' && isRecord(value)) {
      for (const name of Object.keys(value)) {
        const text = contextString(value[name]);
        if (text !== undefined) given[name] = text;
      }
      continue;
    }
    const text = contextString(value);
    if (text === undefined) continue;
    const match = PROPERTY_KEY.exec(key);
    if (match) given[match[1]!] = text;
    else moved[key] = text;
  }
  const top: Record<string, unknown> = {};
  for (const field of ROOT_FIELDS) {
    let text = contextString(context[field]);
    if (field === 'userId' && text === undefined) text = contextString(context.targetingKey);
    if (text !== undefined && text !== '') top[field] = text;
  }
  return completeContext(top, remoteAddress, Object.assign(moved, given));
}

/**
 * A flag's OFREP value type in one environment, from its configuration there (§10.3), so it never
 * changes from one context to the next: `boolean` without variants; with variants, the payload's
 * type when every variant has a payload of one kind (`number`, `object` for JSON objects and
 * arrays, `string` for string and CSV payloads), else `variant`: the variant's name, a string.
 */
export type ValueKind = 'boolean' | 'string' | 'number' | 'object' | 'variant';

function payloadKind(variant: CompiledVariant): ValueKind {
  const payload = variant.payload;
  if (payload === undefined || typeof payload.value !== 'string') return 'variant';
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

function parsesToObject(text: string): boolean {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object';
  } catch {
    return false;
  }
}

/**
 * The variant lists of a flag in an environment, as an SDK sees them (the client API): its own list
 * and each strategy's, disabled strategies left out.
 */
function variantLists(env: CompiledFlagEnvironment): CompiledVariantSet[] {
  const lists = [env.variants];
  for (const strategy of env.strategies) if (!strategy.disabled && strategy.variants !== null) lists.push(strategy.variants);
  return lists;
}

export function valueKind(env: CompiledFlagEnvironment): ValueKind {
  const variants = variantLists(env).flatMap((list) => list.variants);
  if (variants.length === 0) return 'boolean';
  const kinds = new Set(variants.map(payloadKind));
  return kinds.size === 1 ? [...kinds][0]! : 'variant';
}

/** The value JSON of a variant for a flag of `kind` (the payload parsed, or the name). */
function variantValueJson(variant: CompiledVariant, kind: ValueKind): string {
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
 * Whether the picked variant came from an override (`selectVariant` returns the first variant
 * whose override matches, so a picked variant with a matching override was picked by it).
 */
function overridden(variant: CompiledVariant, reader: ContextReader): boolean {
  for (const override of variant.overrides) {
    const value = reader.resolve(override.contextName);
    if (value !== undefined && override.values.has(value)) return true;
  }
  return false;
}

/**
 * One flag of a token's scope as OFREP renders it: its evaluations' JSON made once per state and
 * outcome, and fingerprinted (the bulk ETag combines them as the frontend API's does).
 *
 * Performance: a request looks its outcome up without hashing — the variants the flag can pick
 * are found by identity in a short array (a flag has a few), where a Set and a Map keyed by the
 * variant cost two hash look-ups per flag; outcomes without a variant are two fields. Callgrind
 * on bench/seed.ts's 100 flags and 400 contexts (instructions per bulk answer, deciding
 * the 100 flags ≈ 215 k of them): rendering on top of the decisions ≈ 38 k, ≈ 55 k with the Set and Map.
 */
export class OfrepFlag {
  readonly kind: ValueKind;
  /** The evaluation for every context when no context can change the flag's decision (`constantDecision`), else undefined. */
  readonly constant: Piece | undefined;
  private readonly keyJson: string;
  /** The variants an SDK can pick (`variantLists`), and whether each is picked by hashing among several (§10.4 SPLIT). */
  private readonly variants: CompiledVariant[] = [];
  private readonly split: boolean[] = [];
  /** Outcomes without a variant: off (DISABLED or DEFAULT, by the environment) and on. */
  private off: Piece | undefined;
  private on: Piece | undefined;
  /** Outcomes with `variants[i]`: at i × 2, TARGETING_MATCH; at i × 2 + 1, SPLIT. */
  private readonly picked: Array<Piece | undefined> = [];

  constructor(name: string, private readonly env: CompiledFlagEnvironment, constant: SdkDecision | undefined) {
    this.kind = valueKind(env);
    this.keyJson = JSON.stringify(name);
    if (this.kind !== 'boolean') {
      for (const list of variantLists(env)) {
        // Picked by hashing among several: in a list with more than one variant of positive weight.
        const split = list.variants.filter((variant) => variant.weight > 0).length > 1;
        for (const variant of list.variants) {
          this.variants.push(variant);
          this.split.push(split);
        }
      }
    }
    this.constant = constant === undefined ? undefined : this.plain(constant.enabled);
  }

  /** The evaluation's JSON and fingerprint. */
  evaluation(decision: SdkDecision, reader: ContextReader): Piece {
    const variant = this.kind === 'boolean' ? null : decision.variant;
    if (variant === null) return this.plain(decision.enabled);
    const index = this.variants.indexOf(variant);
    if (index < 0) return piece(this.render('TARGETING_MATCH', true, variant));
    // §10.4: SPLIT for a hashed pick among several, TARGETING_MATCH for an override's pick or the only one.
    const split = this.split[index]! && !(variant.overrides.length > 0 && overridden(variant, reader));
    const slot = index * 2 + (split ? 1 : 0);
    return this.picked[slot] ??= piece(this.render(split ? 'SPLIT' : 'TARGETING_MATCH', true, variant));
  }

  /** §10.4 without a variant: DISABLED when off in the environment, DEFAULT when no strategy (or parent) lets it on, else TARGETING_MATCH. */
  private plain(enabled: boolean): Piece {
    if (enabled) return this.on ??= piece(this.render('TARGETING_MATCH', true, null));
    return this.off ??= piece(this.render(this.env.enabled ? 'DEFAULT' : 'DISABLED', false, null));
  }

  private render(reason: Reason, enabled: boolean, variant: CompiledVariant | null): string {
    const head = `{"key":${this.keyJson}`;
    if (this.kind === 'boolean') return `${head},"value":${enabled},"reason":"${reason}"}`;
    // A flag with variants and none picked for this context: no value, so the provider answers
    // the code default (OFREP's codeDefaultFlag); the enabled state stays readable in metadata.
    if (variant === null) return `${head},"reason":"${reason}","metadata":{"enabled":${enabled}}}`;
    const payload = this.kind === 'variant' && variant.payload !== undefined
      ? `,"payloadType":${JSON.stringify(variant.payload.type)},"payload":${JSON.stringify(variant.payload.value)}`
      : '';
    return `${head},"value":${variantValueJson(variant, this.kind)},"reason":"${reason}","variant":${JSON.stringify(variant.name)},"metadata":{"enabled":true${payload}}}`;
  }
}
