/**
 * The frontend API's answer for one context: every flag of the token's projects decided by the
 * engine's SDK path (src/evaluation), rendered as Unleash 8's `{toggles: [...]}`.
 *
 * Pure: the same answer, byte for byte, on the main thread or in a worker (`FrontendSource` is
 * what both hold). Where each answer is computed is dispatch.ts's decision.
 */
import { hash, randomBytes } from 'node:crypto';
import {
  ContextReader, decide, finishHash, mixBlock, type CompiledFlag, type CompiledFlagEnvironment, type CompiledSnapshot, type CompiledVariant,
  type SdkDecision,
} from '../../evaluation/index.js';
import { isAllProjects, type TokenScope } from '../client-api/features.js';
import type { LiveFlag } from '../flags/read-model.js';

/** The fields Unleash's frontend API leaves at the top of the context (its `createContext`). */
export const ROOT_FIELDS = ['appName', 'environment', 'userId', 'sessionId', 'remoteAddress'] as const;

/** `properties[x]` query keys: x is a property. */
export const PROPERTY_KEY = /^properties\[(.+)\]$/;

/**
 * The SDK context Unleash's frontend API evaluates (docs/rules.md §9.1), from a POST body's
 * `context` or a GET query:
 * - `appName`, `environment`, `userId`, `sessionId` and `remoteAddress` stay at the top when they
 *   are set (`""` is not); a missing `remoteAddress` is the caller's address, a missing `sessionId`
 *   a random one (so `sessionId` stickiness is random without one), a missing `appName` the name
 *   Unleash's SDK gives itself there, `frontend-api`;
 * - every other field — `currentTime` included, so it never moves the clock of date constraints —
 *   goes into `properties`, where `properties` (an object, or `properties[x]` query keys) wins over
 *   a top-level field of the same name;
 * - values are read as that SDK reads them: as strings (`5` is `"5"`, `true` is `"true"`).
 */
export function frontendContext(input: Record<string, unknown>, remoteAddress: string): Record<string, unknown> {
  const moved: Record<string, unknown> = {};
  const given: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined || value === null || (ROOT_FIELDS as readonly string[]).includes(key)) continue;
    if (key === 'properties' && typeof value === 'object' && !Array.isArray(value)) {
      for (const [name, inner] of Object.entries(value)) if (inner !== undefined && inner !== null) given[name] = sdkString(inner);
      continue;
    }
    const match = PROPERTY_KEY.exec(key);
    if (match) given[match[1]!] = sdkString(value);
    else moved[key] = sdkString(value);
  }
  const context: Record<string, unknown> = {};
  for (const field of ROOT_FIELDS) {
    const value = input[field];
    const text = value === undefined || value === null ? '' : sdkString(value);
    if (text !== '') context[field] = text;
  }
  return completeContext(context, remoteAddress, Object.assign(moved, given));
}

/** The rest of `frontendContext` once the top fields are set: the defaults of the fields left unset, then `properties`. */
export function completeContext(context: Record<string, unknown>, remoteAddress: string, properties: Record<string, unknown>): Record<string, unknown> {
  context.appName ??= 'frontend-api';
  context.remoteAddress ??= remoteAddress;
  context.sessionId ??= randomBytes(18).toString('hex');
  context.properties = properties;
  return context;
}

/** A context value as Unleash's Node SDK compares it (`String(value)`). */
function sdkString(value: unknown): string {
  return typeof value === 'string' ? value : String(value);
}

/**
 * A constant part of an answer with a content fingerprint: 64 bits of the SHA-1 of its JSON, taken
 * once per part and state. An answer's ETag combines its parts' fingerprints in order
 * (`frontendToggles`) instead of hashing the whole body on every request: SHA-1 of a 9 KB body
 * was 8 % of the frontend API's CPU (bench/sdk.ts F1 profile), the combination ~100 multiplies.
 * Equal bodies get equal ETags on every instance (the fingerprints are of content only).
 */
export interface Piece {
  readonly json: string;
  readonly high: number;
  readonly low: number;
}

export function piece(json: string): Piece {
  const digest = hash('sha1', json, 'buffer');
  return { json, high: digest.readInt32LE(0), low: digest.readInt32LE(4) };
}

/** A piece of a frontend answer, with its JSON in UTF-8 as `frontendToggles` copies it into the body. */
interface BytePiece extends Piece {
  readonly bytes: Buffer;
}

function bytePiece(json: string): BytePiece {
  const { high, low } = piece(json);
  return { json, bytes: Buffer.from(json), high, low };
}

const variantPieces = new WeakMap<CompiledVariant, [BytePiece, BytePiece]>();

/** The variant as the frontend API shows it: payload after `enabled` for a strategy's variant, before it for the environment's. */
function pickedVariant(variant: CompiledVariant, strategyVariant: boolean): BytePiece {
  let pair = variantPieces.get(variant);
  if (pair === undefined) {
    const name = JSON.stringify(variant.name);
    const payload = variant.payload === undefined ? '' : `,"payload":${JSON.stringify(variant.payload)}`;
    const tail = '"feature_enabled":true,"featureEnabled":true}';
    pair = [bytePiece(`{"name":${name}${payload},"enabled":true,${tail}`), bytePiece(`{"name":${name},"enabled":true${payload},${tail}`)];
    variantPieces.set(variant, pair);
  }
  return strategyVariant ? pair[1] : pair[0];
}

const DISABLED_ON = '{"name":"disabled","enabled":false,"feature_enabled":true,"featureEnabled":true}';
const DISABLED_OFF = '{"name":"disabled","enabled":false,"feature_enabled":false,"featureEnabled":false}';

type FlagEntry = Pick<LiveFlag, 'name' | 'project' | 'impressionData'>;

/** What a frontend answer reads of the SDK state (src/features/client-api/state.ts). */
export interface FrontendSource {
  readonly flags: readonly FlagEntry[];
  readonly compiled: CompiledSnapshot;
  /** Per-state memo: the scoped flag lists live there and go with the state. */
  readonly memo: Map<string, unknown>;
  /** The source this one was built from, while it is the previous one (see `derivedScope`). */
  readonly step?: SourceStep | undefined;
}

export interface SourceStep {
  readonly basis: FrontendSource;
  /**
   * The flags a write changed, when every other flag kept its entry, its compiled form and its
   * place (none added, removed or moved); undefined otherwise. A changed segment changes no
   * compiled flag: strategies look segments up by id when they are evaluated (compile.ts overlay).
   */
  readonly changed: readonly FlagEntry[] | undefined;
}

/** A flag a token sees, with its compiled form for the token's environment. */
export interface ScopeFlag {
  readonly data: FlagEntry;
  readonly flag: CompiledFlag;
  readonly env: CompiledFlagEnvironment;
}

/**
 * The flags a token sees, in the state's order, memoized on the state per scope: the per-request
 * loop then does no look-ups. What each answer format renders of a flag once per state (the
 * frontend API's toggle parts, OFREP's evaluation parts) is kept in `rendered`, one entry per
 * format, aligned with `flags`.
 */
export interface ScopeFlags {
  readonly flags: readonly ScopeFlag[];
  /** A flag's index in `flags` by name (OFREP's single-flag evaluation). */
  readonly byName: ReadonlyMap<string, number>;
  readonly rendered: Map<string, unknown>;
}

export function scopeFlags(state: FrontendSource, scope: TokenScope): ScopeFlags {
  const key = `scope\0${scope.environment}\0${scope.projects.join(',')}`;
  const memo = state.memo.get(key) as ScopeFlags | undefined;
  if (memo) return memo;
  const scoped = derivedScope(state, scope, key) ?? wholeScope(state, scope);
  state.memo.set(key, scoped);
  return scoped;
}

function wholeScope(state: FrontendSource, scope: TokenScope): ScopeFlags {
  const all = isAllProjects(scope.projects);
  const flags: ScopeFlag[] = [];
  const byName = new Map<string, number>();
  for (const data of state.flags) {
    if (!all && !scope.projects.includes(data.project)) continue;
    const flag = state.compiled.flags.get(data.name);
    if (flag === undefined) continue;
    byName.set(data.name, flags.length);
    flags.push({ data, flag, env: flag.environment(scope.environment) });
  }
  return { flags, byName, rendered: new Map() };
}

/**
 * The scope's list after a write, from the previous state's (when it made one and the write kept
 * every other flag in its place): a copy with the changed flags' places replaced, and the frontend
 * API's toggle pieces the same way. Built whole, the list and the pieces cost look-ups of every
 * flag of the scope, paid by the first answer after each write: 0.65 ms of CPU at 2 000 flags in
 * the server (`--cpu-prof`, a toggle then a frontend read, 300 times); derived, the list
 * takes 0.08 ms instead of 0.83 at 2 000 flags and 0.09 instead of 1.96 at 5 000 (bench/readers.ts).
 */
function derivedScope(state: FrontendSource, scope: TokenScope, key: string): ScopeFlags | undefined {
  const step = state.step;
  if (step?.changed === undefined) return undefined;
  const basis = step.basis.memo.get(key) as ScopeFlags | undefined;
  if (basis === undefined) return undefined;
  if (step.changed.length === 0) return basis;
  const all = isAllProjects(scope.projects);
  const flags = basis.flags.slice();
  const places: number[] = [];
  for (const data of step.changed) {
    const at = basis.byName.get(data.name);
    const inScope = all || scope.projects.includes(data.project);
    if (at === undefined && !inScope) continue;
    // A flag that entered or left the scope (moved to another project): the list is built whole.
    if (at === undefined || !inScope) return undefined;
    const flag = state.compiled.flags.get(data.name);
    if (flag === undefined) return undefined;
    flags[at] = { data, flag, env: flag.environment(scope.environment) };
    places.push(at);
  }
  const rendered = new Map<string, unknown>();
  const toggles = basis.rendered.get(TOGGLES) as TogglePieces[] | undefined;
  if (toggles !== undefined) {
    const copy = toggles.slice();
    for (const at of places) copy[at] = togglePiecesOf(flags[at]!.data);
    rendered.set(TOGGLES, copy);
  }
  return { flags, byName: basis.byName, rendered };
}

/**
 * How the frontend API decides one flag of the scope for one context: the engine's SDK path, with
 * one ContextReader for every flag of a request (the context's derived values are computed once).
 * OFREP calls this too, so both APIs answer from the same decision.
 */
export function decideScoped(state: FrontendSource, environment: string, scoped: ScopeFlag, reader: ContextReader): SdkDecision {
  return decide(state.compiled, environment, scoped.flag, reader, scoped.env);
}

/** The constant parts of a flag's toggle, pre-rendered once per state (F1 of bench/sdk.ts: the frontend answer's own string building was a third of its evaluation time before). */
interface TogglePieces {
  /** `{"name":…,"enabled":true,"variant":` and `,"impressionData":…}`, around a variant; fingerprinted together. */
  around: Piece;
  head: Buffer;
  tail: Buffer;
  /** The whole toggle when enabled without a variant, and when disabled (`/all`). */
  enabledPlain: BytePiece;
  disabled: BytePiece;
}

/**
 * A flag's toggle parts, made once per flag revision object (they depend on its name and
 * impressionData only): a new state re-renders only the flags a write changed, where rendering
 * all of them (three SHA-1 fingerprints each) made the first answer after a write at 5 000
 * flags cost 5 times a steady one in CPU (bench/readers.ts).
 */
const flagToggles = new WeakMap<object, TogglePieces>();

function togglePiecesOf(data: FlagEntry): TogglePieces {
  let pieces = flagToggles.get(data);
  if (pieces === undefined) {
    const name = JSON.stringify(data.name);
    const head = `{"name":${name},"enabled":true,"variant":`;
    const tail = `,"impressionData":${data.impressionData}}`;
    pieces = {
      around: piece(`${head}\0${tail}`),
      head: Buffer.from(head),
      tail: Buffer.from(tail),
      enabledPlain: bytePiece(`${head}${DISABLED_ON}${tail}`),
      disabled: bytePiece(`{"name":${name},"enabled":false,"variant":${DISABLED_OFF}${tail}`),
    };
    flagToggles.set(data, pieces);
  }
  return pieces;
}

/** The frontend API's entry in `ScopeFlags.rendered`. */
const TOGGLES = 'frontend';

function togglePieces(scoped: ScopeFlags): TogglePieces[] {
  const memo = scoped.rendered.get(TOGGLES) as TogglePieces[] | undefined;
  if (memo) return memo;
  const pieces = scoped.flags.map(({ data }) => togglePiecesOf(data));
  scoped.rendered.set(TOGGLES, pieces);
  return pieces;
}

/** One frontend request as the evaluation sees it: whose flags, which context, all flags or the enabled ones. */
export interface FrontendQuestion {
  scope: TokenScope;
  context: Record<string, unknown>;
  all: boolean;
}

/** The answer to one question, wherever it is computed (main thread or worker, dispatch.ts). */
export function answerQuestion(source: FrontendSource, { scope, context, all }: FrontendQuestion): FrontendAnswer {
  return frontendToggles(source, scope, context, all);
}

/**
 * A frontend answer: its JSON, in UTF-8, and a strong ETag that differs whenever the JSON does.
 * Bytes, not a string: at 5 000 flags an answer is ~340 KB, and a string of it is walked twice
 * more on the main thread (its UTF-8 length for content-length, then its encoding into the socket:
 * 1.0 ms of a 10 ms answer); copied from pre-encoded pieces it is one memcpy, and
 * a pool thread's answer crosses to the main thread as bytes.
 */
export interface FrontendAnswer {
  body: Buffer;
  etag: string;
}

/** An answer as the main thread receives it from a pool thread: structured cloning makes its Buffer a plain Uint8Array. */
export interface ReceivedAnswer {
  body: Uint8Array;
  etag: string;
}

/** UTF-8 bytes of the fixed text around an answer's list. */
const TOGGLES_OPEN = Buffer.from('{"toggles":[');
const COMMA = Buffer.from(',');
const TOGGLES_CLOSE = Buffer.from(']}');

/** `{"toggles":[…]}` for one context: only enabled flags, or every flag when `all`. */
export function frontendToggles(state: FrontendSource, scope: TokenScope, context: Record<string, unknown>, all: boolean): FrontendAnswer {
  const environment = scope.environment;
  // One reader for every flag: the context's derived values are computed once per request.
  const reader = new ContextReader(context, 'frontend');
  const out: Buffer[] = [TOGGLES_OPEN];
  // Two 32-bit lanes over the parts' fingerprints, in order: 64 bits of the body's content.
  let high = all ? 1 : 0;
  let low = all ? 1 : 0;
  let parts = 0;
  const scoped = scopeFlags(state, scope);
  const toggles = togglePieces(scoped);
  for (let i = 0; i < scoped.flags.length; i++) {
    const decision = decideScoped(state, environment, scoped.flags[i]!, reader);
    const pieces = toggles[i]!;
    if (!decision.enabled && !all) continue;
    if (parts > 0) out.push(COMMA);
    let part: BytePiece;
    if (!decision.enabled) {
      part = pieces.disabled;
      out.push(part.bytes);
    } else if (decision.variant === null) {
      part = pieces.enabledPlain;
      out.push(part.bytes);
    } else {
      const variant = pickedVariant(decision.variant, decision.strategyVariant);
      high = mixBlock(high, pieces.around.high);
      low = mixBlock(low, pieces.around.low);
      parts++;
      part = variant;
      out.push(pieces.head, variant.bytes, pieces.tail);
    }
    high = mixBlock(high, part.high);
    low = mixBlock(low, part.low);
    parts++;
  }
  out.push(TOGGLES_CLOSE);
  const body = Buffer.concat(out);
  return { body, etag: combinedEtag(body.length, high, low, parts) };
}

/** A strong ETag from the body's length (in bytes) and the two lanes of its parts' fingerprints, mixed in order (`mixBlock`). */
export function combinedEtag(length: number, high: number, low: number, parts: number): string {
  return `"${length.toString(36)}-${hex8(finishHash(high, parts))}${hex8(finishHash(low, parts))}"`;
}

function hex8(n: number): string {
  return n.toString(16).padStart(8, '0');
}
