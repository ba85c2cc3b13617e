/**
 * Compilation of a configuration snapshot (done once per revision, inside the worker that holds
 * it) and copy-on-write overlays for change-request previews.
 *
 * Compiling takes ownership of the snapshot: the compiled form keeps references to stored objects
 * (variant definitions, constraint values) instead of copying them, so callers must not mutate a
 * snapshot after compiling it.
 */
import { compileConstraints, type CompiledConstraint } from './constraints.js';
import { isObject, jsonPrefixBeforeKey, jsonString } from './json.js';
import { CompiledStrategy } from './strategies.js';
import type {
  DependencyConfig,
  FlagConfig,
  FlagEnvironmentConfig,
  SegmentConfig,
  Snapshot,
  StrategyConfig,
} from './types.js';
import { compileEnvironmentVariants, type CompiledVariantSet } from './variants.js';

export class CompiledSegment {
  readonly id: number;
  readonly name: string;
  readonly constraints: readonly CompiledConstraint[];
  /** `{"name":…,"id":…,"result":` — the report object's static head. */
  readonly reportHeadJson: string;
  /** Serializer cache of rendered reports by constraint outcomes (see serialize.ts). */
  readonly reportMemo = new Map<number, string>();

  constructor(config: SegmentConfig) {
    this.id = config.id;
    this.name = config.name;
    this.constraints = compileConstraints(config.constraints, 'segment');
    this.reportHeadJson = jsonPrefixBeforeKey({ name: config.name, id: config.id }, 'result');
  }
}

export interface CompiledDependency {
  readonly feature: string;
  /** Default true (docs/rules.md §3.11). */
  readonly enabled: boolean;
  /** Null when absent or empty: then the parent's strategies must pass instead. */
  readonly variants: readonly string[] | null;
}

export interface CompiledFlagEnvironment {
  readonly enabled: boolean;
  /** In evaluation order: sortOrder ascending, ties by id (docs/rules.md §3.3). Disabled ones included. */
  readonly strategies: readonly CompiledStrategy[];
  readonly variants: CompiledVariantSet;
}

/** What a flag is in an environment it has no configuration for: off, no strategies, no variants. */
const OFF_ENVIRONMENT: CompiledFlagEnvironment = Object.freeze({
  enabled: false,
  strategies: [],
  variants: compileEnvironmentVariants([], ''),
});

/**
 * `config` is typed as the snapshot declares it; the checks stay for stored data that does not
 * match (an entry that is not an object is skipped, as the flag's dependencies are).
 */
function compileFlagEnvironment(project: string, flag: string, name: string, config: FlagEnvironmentConfig): CompiledFlagEnvironment {
  if (!isObject(config)) return OFF_ENVIRONMENT;
  const strategies: StrategyConfig[] = Array.isArray(config.strategies) ? config.strategies.filter(isObject) : [];
  const location = { project, flag, environment: name };
  return {
    enabled: config.enabled === true,
    strategies: sortStrategies(strategies).map((strategy) => new CompiledStrategy(strategy, location)),
    variants: compileEnvironmentVariants(config.variants, flag),
  };
}

export class CompiledFlag {
  readonly name: string;
  readonly project: string;
  readonly createdAtMs: number;
  /** Canonical array index value of the name ("0" … "4294967294"), or -1 (docs/rules.md §3.3 ordering). */
  readonly arrayIndex: number;
  readonly dependencies: readonly CompiledDependency[];
  readonly nameJson: string;
  readonly projectJson: string;
  /** Each environment's stored configuration, compiled on first use (`environment`). */
  private readonly environmentConfigs: Readonly<Record<string, FlagEnvironmentConfig>>;
  private readonly environments = new Map<string, CompiledFlagEnvironment>();

  constructor(config: FlagConfig) {
    this.name = String(config.name);
    this.project = String(config.project);
    const createdAtMs = Date.parse(config.createdAt);
    this.createdAtMs = Number.isNaN(createdAtMs) ? Number.NEGATIVE_INFINITY : createdAtMs;
    this.arrayIndex = canonicalArrayIndex(this.name);
    this.dependencies = (Array.isArray(config.dependencies) ? config.dependencies : [])
      .filter(isObject)
      .map(compileDependency);
    this.environmentConfigs = isObject(config.environments) ? config.environments : {};
    this.nameJson = jsonString(this.name);
    this.projectJson = jsonString(this.project);
  }

  /**
   * The flag in one environment; a missing environment is an off one without strategies.
   *
   * Compiled on first use, not with the flag: a reader asks for one environment of every flag in
   * turn (the frontend API's scope, the deprecated playground), so that environment's strategies,
   * constraints and variants are made one flag after another and lie together in memory. Compiled
   * with the flag, each flag's environments were made together, and an answer over one
   * environment read its objects spread among the others': at 5 000 bench flags in two
   * environments the frontend API's answer took 7.0–8.1 ms against 4.6–5.3 with the other
   * environment left out of the same configuration, and 4.0–4.8 compiled this way with the other
   * environment compiled after it (in process, on the server's own configuration; evaluating
   * 5 000 flags is bound by memory, not arithmetic: 0.31 µs a flag at 100 flags, 0.56–0.86 at
   * 5 000). An environment nobody asks for is never compiled.
   */
  environment(name: string): CompiledFlagEnvironment {
    let env = this.environments.get(name);
    if (env === undefined) {
      if (!Object.hasOwn(this.environmentConfigs, name)) return OFF_ENVIRONMENT;
      env = compileFlagEnvironment(this.project, this.name, name, this.environmentConfigs[name]!);
      this.environments.set(name, env);
    }
    return env;
  }
}

export interface CompiledSnapshot {
  /** Non-archived flags by name. */
  readonly flags: ReadonlyMap<string, CompiledFlag>;
  /** Non-archived flags in response order (docs/rules.md §3.3). */
  readonly ordered: readonly CompiledFlag[];
  readonly segments: ReadonlyMap<number, CompiledSegment>;
}

export function compile(snapshot: Snapshot): CompiledSnapshot {
  const flags = new Map<string, CompiledFlag>();
  for (const config of snapshot.flags) {
    if (config.archived !== true) flags.set(String(config.name), compileFlag(config));
  }
  const segments = new Map<number, CompiledSegment>();
  for (const config of snapshot.segments) segments.set(config.id, compileSegment(config));
  return assemble(flags, segments);
}

export function compileFlag(config: FlagConfig): CompiledFlag {
  return new CompiledFlag(config);
}

export function compileSegment(config: SegmentConfig): CompiledSegment {
  return new CompiledSegment(config);
}

export interface SnapshotChanges {
  /** Replace (by name) or add. An archived flag is removed. */
  flags?: readonly FlagConfig[];
  removedFlags?: readonly string[];
  /** Replace (by id) or add. */
  segments?: readonly SegmentConfig[];
  removedSegments?: readonly number[];
}

/**
 * A new compiled snapshot with `changes` applied, sharing every unchanged compiled flag and
 * segment with `base` (which is not modified). Strategies look segments up by id at evaluation
 * time, so flags using a changed segment see the new version without being recompiled.
 */
export function overlay(base: CompiledSnapshot, changes: SnapshotChanges): CompiledSnapshot {
  const flags = new Map(base.flags);
  // Whether every flag keeps its place in the order: none added or removed, none created anew.
  let inPlace = (changes.removedFlags ?? []).length === 0;
  const replaced: CompiledFlag[] = [];
  for (const name of changes.removedFlags ?? []) flags.delete(name);
  for (const config of changes.flags ?? []) {
    const name = String(config.name);
    if (config.archived === true) {
      inPlace = false;
      flags.delete(name);
    } else {
      const compiled = compileFlag(config);
      const before = flags.get(name);
      if (before === undefined || before.createdAtMs !== compiled.createdAtMs) inPlace = false;
      else replaced.push(before);
      flags.set(name, compiled);
    }
  }
  const segments = new Map(base.segments);
  for (const id of changes.removedSegments ?? []) segments.delete(id);
  for (const config of changes.segments ?? []) segments.set(config.id, compileSegment(config));
  // A write that changes flags in place (the usual one) keeps the order without sorting it again.
  if (inPlace) return { flags, ordered: orderedInPlace(base.ordered, replaced, flags), segments };
  return assemble(flags, segments);
}

/**
 * `ordered` with the `replaced` flags' places taken by their new versions. A few are found by
 * identity (a native scan), so the usual write's order costs a copy, not a Map look-up per flag;
 * many are looked up flag by flag. This, with client-api/state.ts's one Map copy fewer, takes the
 * SDK state after a one-flag write from 0.81 to 0.45 ms of CPU at 2 000 flags and from 2.04 to
 * 1.23 at 5 000 (`npm run bench:readers`).
 */
function orderedInPlace(ordered: readonly CompiledFlag[], replaced: readonly CompiledFlag[], flags: ReadonlyMap<string, CompiledFlag>): CompiledFlag[] {
  if (replaced.length > 8) return ordered.map((flag) => flags.get(flag.name)!);
  const copy = ordered.slice();
  for (const before of replaced) {
    const at = copy.indexOf(before);
    if (at >= 0) copy[at] = flags.get(before.name)!;
  }
  return copy;
}

/**
 * The changes of several steps in order as one: a later step's version of a flag or segment wins,
 * and a removal followed by a change (or the reverse) leaves what the last step says. Applying the
 * result once is `overlay` of each step in turn, with one copy and one sort of the flags instead of
 * one per step.
 */
export function mergeChanges(steps: readonly SnapshotChanges[]): SnapshotChanges {
  if (steps.length === 1) return steps[0]!;
  const flags = new Map<string, FlagConfig | null>();
  const segments = new Map<number, SegmentConfig | null>();
  for (const step of steps) {
    for (const name of step.removedFlags ?? []) flags.set(name, null);
    for (const config of step.flags ?? []) flags.set(String(config.name), config);
    for (const id of step.removedSegments ?? []) segments.set(id, null);
    for (const config of step.segments ?? []) segments.set(config.id, config);
  }
  const merged = { flags: [] as FlagConfig[], removedFlags: [] as string[], segments: [] as SegmentConfig[], removedSegments: [] as number[] };
  for (const [name, config] of flags) {
    if (config === null) merged.removedFlags.push(name);
    else merged.flags.push(config);
  }
  for (const [id, config] of segments) {
    if (config === null) merged.removedSegments.push(id);
    else merged.segments.push(config);
  }
  return merged;
}

function assemble(flags: Map<string, CompiledFlag>, segments: Map<number, CompiledSegment>): CompiledSnapshot {
  const ordered = [...flags.values()].sort(compareFlagOrder);
  return { flags, ordered, segments };
}

/**
 * docs/rules.md §3.3: names that are canonical array indices first (ascending numerically, as a JavaScript
 * object keyed by name would list them), then newest created first, then by name.
 */
export function compareFlagOrder(a: CompiledFlag, b: CompiledFlag): number {
  if (a.arrayIndex >= 0 || b.arrayIndex >= 0) {
    if (a.arrayIndex < 0) return 1;
    if (b.arrayIndex < 0) return -1;
    return a.arrayIndex - b.arrayIndex;
  }
  if (a.createdAtMs !== b.createdAtMs) return a.createdAtMs > b.createdAtMs ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

const MAX_ARRAY_INDEX = 4294967294;

function canonicalArrayIndex(name: string): number {
  if (!/^(?:0|[1-9][0-9]{0,9})$/.test(name)) return -1;
  const index = Number(name);
  return index <= MAX_ARRAY_INDEX ? index : -1;
}

/** sortOrder ascending (missing counts as 0), ties by id in locale order, else stored order. */
function sortStrategies(strategies: StrategyConfig[]): StrategyConfig[] {
  return [...strategies].sort((a, b) => {
    const byOrder = sortOrderOf(a) - sortOrderOf(b);
    if (byOrder !== 0) return byOrder;
    return typeof a.id === 'string' && typeof b.id === 'string' ? a.id.localeCompare(b.id) : 0;
  });
}

function sortOrderOf(strategy: StrategyConfig): number {
  return typeof strategy.sortOrder === 'number' && Number.isFinite(strategy.sortOrder) ? strategy.sortOrder : 0;
}

function compileDependency(config: DependencyConfig): CompiledDependency {
  const variants = Array.isArray(config.variants) && config.variants.length > 0 ? config.variants.map(String) : null;
  return { feature: String(config.feature), enabled: config.enabled !== false, variants };
}
