/**
 * Flag evaluation (docs/rules.md §3.8–§3.11) in two modes over the same compiled data:
 *
 * - the **SDK decision** path (`isEnabled`, `getVariant`) stops at the first passing strategy and
 *   reports nothing: it is what the client specification suite checks and what the throughput
 *   target is measured on;
 * - the **playground** path (`evaluateSelection`) evaluates every strategy, constraint and segment
 *   and keeps each outcome, for the result objects (result-objects.ts) and the fast JSON
 *   serializer (serialize.ts).
 *
 * Both apply the same rules, so a playground answer predicts an SDK's (D2, docs/glossary.md).
 */
import type { CompiledFlag, CompiledFlagEnvironment, CompiledSegment, CompiledSnapshot, CompiledDependency } from './compile.js';
import { allConstraintsHold, constraintHolds, type CompiledConstraint } from './constraints.js';
import { ContextReader, type SdkRules } from './context-reader.js';
import { jsonString } from './json.js';
import { activationHolds, StrategyKind, type CompiledStrategy } from './strategies.js';
import type { SdkVariant, StrategyOutcome } from './types.js';
import { selectVariant, type CompiledVariant, type CompiledVariantSet } from './variants.js';

// ---------------------------------------------------------------------------------------------
// Flag selection

export interface FlagSelection {
  /** In response order (docs/rules.md §3.3). */
  readonly flags: readonly CompiledFlag[];
}

const allFlagsSelections = new WeakMap<CompiledSnapshot, FlagSelection>();

/** Non-archived flags of the given projects (undefined = all projects), in response order. */
export function selectFlags(compiled: CompiledSnapshot, projects?: readonly string[]): FlagSelection {
  if (projects === undefined) {
    let selection = allFlagsSelections.get(compiled);
    if (selection === undefined) {
      selection = { flags: compiled.ordered };
      allFlagsSelections.set(compiled, selection);
    }
    return selection;
  }
  const wanted = new Set(projects);
  return { flags: compiled.ordered.filter((flag) => wanted.has(flag.project)) };
}

// ---------------------------------------------------------------------------------------------
// Dependencies (docs/rules.md §3.11), shared by both paths

/** What a dependency needs to know about its parent in the same environment and context. */
interface ParentOutcome {
  readonly flag: CompiledFlag;
  readonly environmentEnabled: boolean;
  /** `strategies.result === true`. */
  strategiesPass(): boolean;
  /** The parent's variant name: its picked variant when enabled, else "disabled". */
  variantName(): string;
}

/**
 * Rule 1 (parent selected) is the caller's: it passes undefined for an unselected parent. By D2,
 * `enabled: false` is satisfied exactly when the parent is not enabled (client specification 17).
 */
function dependencySatisfied(dependency: CompiledDependency, parent: ParentOutcome | undefined, rules: SdkRules): boolean {
  if (parent === undefined) return false;
  if (parent.flag.dependencies.length > 0) return false;
  if (rules === 'frontend') return frontendDependencySatisfied(dependency, parent);
  if (!dependency.enabled) return !(parent.environmentEnabled && parent.strategiesPass());
  if (!parent.environmentEnabled) return false;
  if (dependency.variants !== null) return dependency.variants.includes(parent.variantName());
  return parent.strategiesPass();
}

/**
 * docs/rules.md §9.3: Unleash's frontend API holds only the flags enabled in the token's
 * environment, so its SDK finds no parent that is off there, and a dependency on a missing parent
 * is unsatisfied whatever it asks (`enabled: false` too). A `variants` list needs the parent on for
 * the context (the SDK checks `feature_enabled` before the name, so "disabled" never matches).
 */
function frontendDependencySatisfied(dependency: CompiledDependency, parent: ParentOutcome): boolean {
  if (!parent.environmentEnabled) return false;
  if (!dependency.enabled) return !parent.strategiesPass();
  if (!parent.strategiesPass()) return false;
  return dependency.variants === null || dependency.variants.includes(parent.variantName());
}

// ---------------------------------------------------------------------------------------------
// SDK decision path

const SDK_DISABLED_FLAG_OFF: Readonly<SdkVariant> = Object.freeze({
  name: 'disabled',
  enabled: false,
  feature_enabled: false,
});
const SDK_DISABLED_FLAG_ON: Readonly<SdkVariant> = Object.freeze({
  name: 'disabled',
  enabled: false,
  feature_enabled: true,
});

/** Is the flag enabled for this context in this environment, exactly as an SDK decides. */
export function isEnabled(compiled: CompiledSnapshot, environment: string, flagName: string, context: unknown): boolean {
  const flag = compiled.flags.get(flagName);
  if (flag === undefined) return false;
  const reader = new ContextReader(context);
  const env = flag.environment(environment);
  return decideEnabled(compiled, flag, env, environment, reader, firstPassingStrategy(env, compiled.segments, reader));
}

/**
 * The variant an SDK returns (shared frozen objects): the winning strategy's variant, else the
 * environment's, else the disabled variant (`feature_enabled` telling whether the flag is on).
 * `context` may be a ContextReader, shared by the calls for one context.
 */
export function getVariant(
  compiled: CompiledSnapshot,
  environment: string,
  flagName: string,
  context: unknown,
): Readonly<SdkVariant> {
  const flag = compiled.flags.get(flagName);
  if (flag === undefined) return SDK_DISABLED_FLAG_OFF;
  // A ContextReader may be passed to share parsed fields across flags (batch playground).
  const reader = context instanceof ContextReader ? context : new ContextReader(context);
  const env = flag.environment(environment);
  const winner = firstPassingStrategy(env, compiled.segments, reader);
  if (!decideEnabled(compiled, flag, env, environment, reader, winner)) return SDK_DISABLED_FLAG_OFF;
  const variant = pickFlagVariant(winner, env, reader);
  return variant === null ? SDK_DISABLED_FLAG_ON : variant.sdkVariant;
}

/** One flag decided as an SDK does, with where its variant came from (the frontend API shows them differently). */
export interface SdkDecision {
  readonly enabled: boolean;
  /** The picked variant (null: none, so the "disabled" variant). */
  readonly variant: CompiledVariant | null;
  /** True when the variant came from the winning strategy rather than the environment's list. */
  readonly strategyVariant: boolean;
}

const SDK_DECISION_OFF: SdkDecision = Object.freeze({ enabled: false, variant: null, strategyVariant: false });
const SDK_DECISION_ON: SdkDecision = Object.freeze({ enabled: true, variant: null, strategyVariant: false });

/**
 * `isEnabled` and `getVariant` in one pass (the frontend API needs both per flag). `context` may
 * be a ContextReader shared by the calls for one context: the frontend API decides every flag for
 * one context, and a shared reader parses its address, versions and time once, not once per flag.
 * `env` may be passed when the caller already holds `flag.environment(environment)`.
 */
export function decide(
  compiled: CompiledSnapshot,
  environment: string,
  flag: CompiledFlag,
  context: unknown,
  env: CompiledFlagEnvironment = flag.environment(environment),
): SdkDecision {
  const reader = context instanceof ContextReader ? context : new ContextReader(context);
  const winner = firstPassingStrategy(env, compiled.segments, reader);
  if (!decideEnabled(compiled, flag, env, environment, reader, winner)) return SDK_DECISION_OFF;
  if (winner !== null && winner.variants !== null) {
    const variant = selectVariant(winner.variants, reader);
    if (variant !== null) return { enabled: true, variant, strategyVariant: true };
  }
  const variant = selectVariant(env.variants, reader);
  return variant === null ? SDK_DECISION_ON : { enabled: true, variant, strategyVariant: false };
}

/**
 * `decide`'s answer when no context can change it, else undefined: off in the environment (or
 * every strategy disabled or unimplemented), or on for everyone — no dependency, the first usable
 * strategy a `default` one without constraints or segments (or no strategies at all), and no
 * variant to pick. An answer that lists every flag (OFREP's bulk evaluation) renders such flags
 * once per state instead of deciding them per request; flags off in an environment are the
 * common case.
 */
export function constantDecision(flag: CompiledFlag, env: CompiledFlagEnvironment): SdkDecision | undefined {
  if (!env.enabled) return SDK_DECISION_OFF;
  const winner = env.strategies.find((strategy) => !strategy.disabled && strategy.kind !== StrategyKind.Unimplemented);
  if (winner === undefined && env.strategies.length > 0) return SDK_DECISION_OFF;
  if (winner !== undefined && !(winner.kind === StrategyKind.Default && winner.constraints.length === 0 && winner.segmentIds.length === 0)) return undefined;
  if (flag.dependencies.length > 0 || env.variants.totalWeight > 0 || (winner?.variants?.totalWeight ?? 0) > 0) return undefined;
  return SDK_DECISION_ON;
}

function decideEnabled(
  compiled: CompiledSnapshot,
  flag: CompiledFlag,
  env: CompiledFlagEnvironment,
  environment: string,
  reader: ContextReader,
  winner: CompiledStrategy | null,
): boolean {
  if (!env.enabled || !strategiesPass(env, winner !== null)) return false;
  return flag.dependencies.length === 0 || sdkDependenciesSatisfied(compiled, flag, environment, reader);
}

/**
 * First strategy that is on: not disabled, implemented, constraints and segments passing,
 * activation passing — checked in that order so the cheap tests short-circuit the hashing.
 */
function firstPassingStrategy(
  env: CompiledFlagEnvironment,
  segments: ReadonlyMap<number, CompiledSegment>,
  reader: ContextReader,
): CompiledStrategy | null {
  const strategies = env.strategies;
  for (let i = 0; i < strategies.length; i++) {
    const strategy = strategies[i]!;
    if (strategy.disabled || strategy.kind === StrategyKind.Unimplemented) continue;
    if (!allConstraintsHold(strategy.constraints, reader)) continue;
    if (!segmentsHold(strategy.segmentIds, segments, reader)) continue;
    if (activationHolds(strategy, reader)) return strategy;
  }
  return null;
}

/** docs/rules.md §3.10 step 1 as a boolean: no strategies means the environment's on/off state. */
function strategiesPass(env: CompiledFlagEnvironment, someStrategyOn: boolean): boolean {
  return env.strategies.length === 0 ? env.enabled : someStrategyOn;
}

/** A missing segment fails its strategy (client specification 15, D2; Unleash skips it). */
function segmentsHold(ids: readonly number[], segments: ReadonlyMap<number, CompiledSegment>, reader: ContextReader): boolean {
  for (let i = 0; i < ids.length; i++) {
    const segment = segments.get(ids[i]!);
    if (segment === undefined || !allConstraintsHold(segment.constraints, reader)) return false;
  }
  return true;
}

/** The winner's strategy variant when it picks one, else the environment variants' pick. */
function pickFlagVariant(
  winner: CompiledStrategy | null,
  env: CompiledFlagEnvironment,
  reader: ContextReader,
): CompiledVariant | null {
  if (winner !== null && winner.variants !== null) {
    const variant = selectVariant(winner.variants, reader);
    if (variant !== null) return variant;
  }
  return selectVariant(env.variants, reader);
}

function sdkDependenciesSatisfied(
  compiled: CompiledSnapshot,
  flag: CompiledFlag,
  environment: string,
  reader: ContextReader,
): boolean {
  for (const dependency of flag.dependencies) {
    const parentFlag = compiled.flags.get(dependency.feature);
    const parent = parentFlag && new ParentDecision(compiled, parentFlag, environment, reader);
    if (!dependencySatisfied(dependency, parent, reader.rules)) return false;
  }
  return true;
}

/** A parent decided the SDK way, its variant picked only if a dependency asks for it. */
class ParentDecision implements ParentOutcome {
  readonly environmentEnabled: boolean;
  private readonly env: CompiledFlagEnvironment;
  private readonly winner: CompiledStrategy | null;

  constructor(
    compiled: CompiledSnapshot,
    readonly flag: CompiledFlag,
    environment: string,
    private readonly reader: ContextReader,
  ) {
    this.env = flag.environment(environment);
    this.environmentEnabled = this.env.enabled;
    this.winner = firstPassingStrategy(this.env, compiled.segments, reader);
  }

  strategiesPass(): boolean {
    return strategiesPass(this.env, this.winner !== null);
  }

  variantName(): string {
    if (!this.environmentEnabled || !this.strategiesPass()) return 'disabled';
    return pickFlagVariant(this.winner, this.env, this.reader)?.name ?? 'disabled';
  }
}

// ---------------------------------------------------------------------------------------------
// Playground path: full evaluation with every intermediate outcome kept

export const enum EvaluationStatus {
  Complete,
  Incomplete,
  Unevaluated,
}

export interface SegmentEvaluation {
  readonly segment: CompiledSegment;
  readonly result: boolean;
  readonly constraintResults: readonly boolean[];
}

export interface StrategyEvaluation {
  readonly strategy: CompiledStrategy;
  readonly enabled: StrategyOutcome;
  readonly status: EvaluationStatus;
  /** The strategy variant picked (even when `enabled` is false, docs/rules.md §3.8), or null. */
  readonly variant: CompiledVariant | null;
  readonly constraintResults: readonly boolean[];
  /** Existing segments only, in attachment order. */
  readonly segments: readonly SegmentEvaluation[];
}

/** State shared by the flags of one evaluation: one context, one environment, one selection. */
interface PlaygroundRun {
  readonly reader: ContextReader;
  readonly segments: ReadonlyMap<number, CompiledSegment>;
  /** Selected flags' evaluations by name; built only when some selected flag has a dependency. */
  byName: Map<string, FlagEvaluation> | undefined;
}

export class FlagEvaluation implements ParentOutcome {
  readonly environmentEnabled: boolean;
  readonly strategies: readonly StrategyEvaluation[];
  readonly result: StrategyOutcome;
  /** The first strategy with `enabled === true`. */
  readonly winner: StrategyEvaluation | null;
  private finalized = false;
  private unsatisfiedDependency = false;
  private enabled = false;
  private pickedVariant: CompiledVariant | null = null;

  constructor(
    private readonly run: PlaygroundRun,
    readonly flag: CompiledFlag,
    readonly environment: string,
    /** JSON of `environment`, shared by the flags of one run. */
    readonly environmentJson: string,
    private readonly env: CompiledFlagEnvironment,
  ) {
    this.environmentEnabled = env.enabled;
    const strategies = new Array<StrategyEvaluation>(env.strategies.length);
    let winner: StrategyEvaluation | null = null;
    let anyUnknown = false;
    for (let i = 0; i < strategies.length; i++) {
      const evaluation = evaluateStrategy(env.strategies[i]!, run);
      strategies[i] = evaluation;
      if (evaluation.enabled === true) winner ??= evaluation;
      else if (evaluation.enabled === 'unknown') anyUnknown = true;
    }
    this.strategies = strategies;
    this.winner = winner;
    this.result =
      strategies.length === 0 ? env.enabled : winner !== null ? true : anyUnknown ? 'unknown' : false;
  }

  get hasUnsatisfiedDependency(): boolean {
    this.finalize();
    return this.unsatisfiedDependency;
  }

  get isEnabled(): boolean {
    this.finalize();
    return this.enabled;
  }

  /** The flag-level variant picked, or null for the disabled variant (docs/rules.md §3.10 step 5). */
  get variant(): CompiledVariant | null {
    this.finalize();
    return this.pickedVariant;
  }

  /** The `variants` reported: the winner's strategy variants when it picked one, else the environment's. */
  get reportedVariants(): CompiledVariantSet {
    const winner = this.winner;
    return winner !== null && winner.variant !== null && winner.strategy.variants !== null
      ? winner.strategy.variants
      : this.env.variants;
  }

  strategiesPass(): boolean {
    return this.result === true;
  }

  variantName(): string {
    return this.variant?.name ?? 'disabled';
  }

  /**
   * Dependencies, `isEnabled` and the flag variant. Lazy because a child needs its parent's
   * variant: a parent is finalized on demand, and a parent with dependencies of its own fails
   * rule 2 before anything of it is read, so this never recurses more than one level.
   */
  private finalize(): void {
    if (this.finalized) return;
    this.finalized = true;
    const dependencies = this.flag.dependencies;
    if (dependencies.length > 0) {
      const byName = (this.run.byName ??= new Map<string, FlagEvaluation>());
      for (const dependency of dependencies) {
        if (!dependencySatisfied(dependency, byName.get(dependency.feature), 'specification')) {
          this.unsatisfiedDependency = true;
          break;
        }
      }
    }
    this.enabled = this.result === true && this.environmentEnabled && !this.unsatisfiedDependency;
    if (this.enabled) {
      this.pickedVariant = this.winner?.variant ?? selectVariant(this.env.variants, this.run.reader);
    }
  }
}

/**
 * Evaluates every selected flag in one environment for one context (a raw context, or a
 * ContextReader to share parsed fields across calls). Results are in selection order.
 */
export function evaluateSelection(
  compiled: CompiledSnapshot,
  selection: FlagSelection,
  environment: string,
  context: unknown,
): FlagEvaluation[] {
  return evaluateRange(compiled, selection, environment, context, 0, selection.flags.length);
}

/**
 * Evaluates every constraint (the playground reports each result, so no short-circuit), writing
 * the results into `into`; true when all hold. Fills a caller-made array: no allocation per call.
 */
function evaluateConstraints(constraints: readonly CompiledConstraint[], reader: ContextReader, into: boolean[]): boolean {
  let all = true;
  for (let i = 0; i < constraints.length; i++) {
    const holds = constraintHolds(constraints[i]!, reader);
    into[i] = holds;
    if (!holds) all = false;
  }
  return all;
}

function evaluateStrategy(strategy: CompiledStrategy, run: PlaygroundRun): StrategyEvaluation {
  const reader = run.reader;
  const constraintResults = new Array<boolean>(strategy.constraints.length);
  const constraintsPass = evaluateConstraints(strategy.constraints, reader, constraintResults);
  const segments: SegmentEvaluation[] = [];
  let segmentsPass = true;
  for (const id of strategy.segmentIds) {
    const segment = run.segments.get(id);
    // D2: a missing segment fails the strategy; it is not reported (it has no name to show).
    if (segment === undefined) {
      segmentsPass = false;
      continue;
    }
    const evaluation = evaluateSegment(segment, reader);
    segments.push(evaluation);
    if (!evaluation.result) segmentsPass = false;
  }
  // The implementation check comes before the disabled one, as in Unleash's playground: a disabled
  // custom strategy is `incomplete` like an enabled one (docs/rules.md §3.8).
  if (strategy.kind === StrategyKind.Unimplemented) {
    const enabled = constraintsPass && segmentsPass ? 'unknown' : false;
    return { strategy, enabled, status: EvaluationStatus.Incomplete, variant: null, constraintResults, segments };
  }
  if (strategy.disabled) {
    return { strategy, enabled: 'unknown', status: EvaluationStatus.Unevaluated, variant: null, constraintResults, segments };
  }
  const enabled = constraintsPass && segmentsPass && activationHolds(strategy, reader);
  const variant = strategy.variants === null ? null : selectVariant(strategy.variants, reader);
  return { strategy, enabled, status: EvaluationStatus.Complete, variant, constraintResults, segments };
}

function evaluateSegment(segment: CompiledSegment, reader: ContextReader): SegmentEvaluation {
  const constraintResults = new Array<boolean>(segment.constraints.length);
  const result = evaluateConstraints(segment.constraints, reader, constraintResults);
  return { segment, result, constraintResults };
}

const selectionIndexes = new WeakMap<FlagSelection, ReadonlyMap<string, CompiledFlag>>();

function selectedByName(selection: FlagSelection): ReadonlyMap<string, CompiledFlag> {
  let byName = selectionIndexes.get(selection);
  if (byName === undefined) {
    byName = new Map(selection.flags.map((flag) => [flag.name, flag]));
    selectionIndexes.set(selection, byName);
  }
  return byName;
}

let lastEnvironment: string | undefined;
let lastEnvironmentJson = '';

/**
 * JSON of the environment name, remembered for the last name: the advanced playground worker calls
 * evaluateRange once per flag and combination, and stringifying the name each time was 7 % of its
 * CPU profile (bench:playground S2, tester seed 3: 5 000 calls per request, always the same one or two names).
 */
function environmentJsonOf(environment: string): string {
  if (environment !== lastEnvironment) {
    lastEnvironmentJson = jsonString(environment);
    lastEnvironment = environment;
  }
  return lastEnvironmentJson;
}

/**
 * Like `evaluateSelection`, for flags [start, end) of the selection only: a parent outside the
 * range is evaluated too when a flag in the range depends on it (and is not returned). Streaming
 * a huge request in flag groups uses this, so each group costs only its own flags.
 */
export function evaluateRange(
  compiled: CompiledSnapshot,
  selection: FlagSelection,
  environment: string,
  context: unknown,
  start: number,
  end: number,
): FlagEvaluation[] {
  const reader = context instanceof ContextReader ? context : new ContextReader(context);
  const run: PlaygroundRun = { reader, segments: compiled.segments, byName: undefined };
  const environmentJson = environmentJsonOf(environment);
  const flags = selection.flags;
  const evaluations: FlagEvaluation[] = [];
  let anyDependency = false;
  for (let i = start; i < end; i++) {
    const flag = flags[i]!;
    evaluations.push(new FlagEvaluation(run, flag, environment, environmentJson, flag.environment(environment)));
    if (flag.dependencies.length > 0) anyDependency = true;
  }
  if (anyDependency) {
    const byName = new Map(evaluations.map((evaluation) => [evaluation.flag.name, evaluation]));
    const selected = selectedByName(selection);
    for (const evaluation of evaluations) {
      for (const dependency of evaluation.flag.dependencies) {
        const parent = selected.get(dependency.feature);
        if (parent !== undefined && !byName.has(parent.name)) {
          byName.set(parent.name, new FlagEvaluation(run, parent, environment, environmentJson, parent.environment(environment)));
        }
      }
    }
    run.byName = byName;
  }
  return evaluations;
}
