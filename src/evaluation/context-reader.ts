/**
 * Read access to one evaluation context (docs/rules.md §3.6).
 *
 * The raw context may be any JSON value. Field resolution is: a non-empty top-level string, else a
 * non-empty string in `properties`, else missing. Non-string values count as missing, which is why
 * no operator ever sees anything but a string (and why evaluation cannot throw on odd input).
 *
 * Derived values (current time, parsed versions and IP addresses, lower-cased values) are computed
 * lazily, at most once per context, and only when some constraint needs them: the playground
 * evaluates every flag against the same reader, so a semver field used by ten flags is parsed once.
 */
import { isObject } from './json.js';
import { parseContextTime, parseIpAddress, parseSemver, type IpAddress, type SemVer } from './parse.js';

type JsonObject = Record<string, unknown>;

/**
 * Whose reading of a configuration an SDK-path evaluation follows: the client specification's
 * (every SDK; the playground's, by D2 of docs/glossary.md), or Unleash's frontend API's, which evaluates with its Node
 * SDK (`unleash-client` 6) over the flags enabled in the token's environment (docs/rules.md §9).
 */
export type SdkRules = 'specification' | 'frontend';

const lowerCase = (value: string): string => value.toLowerCase();
const localeLowerCase = (value: string): string => value.toLocaleLowerCase();

/** The last reader's id in this thread (ids start at 1: 0 is "no reader" in the memos that key on them). */
let lastReaderId = 0;

export class ContextReader {
  /**
   * Unique in this thread, for memos of context-only results (constraints.ts `constraintHolds`):
   * comparing a number keeps no reference to the context alive.
   */
  readonly id = ++lastReaderId;
  private readonly top: JsonObject;
  private readonly properties: JsonObject | undefined;
  private nowMs = Number.NaN;
  private currentTimeResolved = false;
  /** Derived values by field name, one map per kind, created on first use; null = missing. */
  private versions: Map<string, SemVer | null> | undefined;
  private addresses: Map<string, IpAddress | null> | undefined;
  private lowerCased: Map<string, string | null> | undefined;
  private localeLowerCased: Map<string, string | null> | undefined;

  constructor(
    raw: unknown,
    /** Read by the constraints (IN / NOT_IN) and the dependencies that depend on it (§9.2). */
    readonly rules: SdkRules = 'specification',
  ) {
    this.top = isObject(raw) ? raw : {};
    const properties = this.top.properties;
    this.properties = isObject(properties) ? properties : undefined;
  }

  /**
   * docs/rules.md §3.6 `resolve(name)`: the field as a non-empty string, or undefined when missing.
   * `environment` defaults to "default" (not the evaluated environment): Unleash sets that default
   * at the top level, so it also shadows `properties.environment`.
   */
  resolve(name: string): string | undefined {
    if (name === 'environment') return this.topLevel('environment') ?? 'default';
    const topValue = this.top[name];
    if (typeof topValue === 'string' && topValue !== '') return topValue;
    if (this.properties === undefined) return undefined;
    const propertyValue = this.properties[name];
    return typeof propertyValue === 'string' && propertyValue !== '' ? propertyValue : undefined;
  }

  /** A field read from the top level only (userId, sessionId, remoteAddress for stickiness). */
  topLevel(name: string): string | undefined {
    const value = this.top[name];
    return typeof value === 'string' && value !== '' ? value : undefined;
  }

  /** The instant DATE_* constraints compare: `currentTime` when given, else now (read once). */
  currentTimeMs(): number {
    if (!this.currentTimeResolved) {
      this.currentTimeResolved = true;
      const given = this.top.currentTime;
      this.nowMs = typeof given === 'string' && given !== '' ? parseContextTime(given) : Date.now();
    }
    return this.nowMs;
  }

  semverOf(name: string): SemVer | null {
    return this.derive((this.versions ??= new Map<string, SemVer | null>()), name, parseSemver);
  }

  ipOf(name: string): IpAddress | null {
    return this.derive((this.addresses ??= new Map<string, IpAddress | null>()), name, parseIpAddress);
  }

  /** Lower-cased with `toLowerCase` (IN / NOT_IN with caseInsensitive). */
  lowerOf(name: string): string | null {
    return this.derive((this.lowerCased ??= new Map<string, string | null>()), name, lowerCase);
  }

  /** Lower-cased locale-aware (STR_* with caseInsensitive, as Unleash does). */
  localeLowerOf(name: string): string | null {
    return this.derive((this.localeLowerCased ??= new Map<string, string | null>()), name, localeLowerCase);
  }

  /** Derives a value from a field once per context; a missing field derives to null. */
  private derive<T>(memo: Map<string, T | null>, name: string, derivation: (value: string) => T | null): T | null {
    const cached = memo.get(name);
    if (cached !== undefined) return cached;
    const value = this.resolve(name);
    const result = value === undefined ? null : derivation(value);
    memo.set(name, result);
    return result;
  }
}
