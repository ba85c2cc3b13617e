/**
 * Flag operations as pure functions: `(flag, input, ctx) → {next, events, result}`. They hold every
 * rule of docs/rules.md §1.4 S4–S8; nothing here reads or writes the database. FlagService loads the
 * context, applies one of these and writes `next` with its events in one document write; change
 * requests (§3.13) apply the same functions in memory to preview or to apply.
 */
import { archivedFeature, exceedsLimit, invalidOperation, notFound, validationError } from '../../errors.js';
import { assertSegmentValuesLimit } from '../constraints/index.js';
import type { AuditUser, EventInput } from '../../db/outbox/index.js';
import { ADMIN_TOKEN_USER_ID, ADMIN_TOKEN_USER_NAME } from '../shared.js';
import type { ConstraintConfig, DependencyConfig, StrategyConfig, VariantConfig } from '../../evaluation/types.js';
import { applyJsonPatch, JsonPatchError, type PatchOperation } from './json-patch.js';
import {
  jsonbOrder, LIMITS, normaliseStrategyConstraints, normaliseEnvironmentVariants, normaliseStrategyVariants, ulid,
  type ConstraintInput, type StrategyVariantInput, type VariantInput,
} from './rules.js';
import type { FlagData, FlagEnvironment, FlagTag } from './read-model.js';
import { finalise } from './store.js';
import { plainTags } from './tags.js';
import { initialLifecycle, withStage } from './lifecycle.js';
import { emptyEnvironment, strategyEventView, type EnvironmentInfo } from './views.js';
import type { DefaultStrategy } from './sources.js';

export interface SegmentInfo {
  id: number;
  name: string;
  project?: string | null;
  constraints: ConstraintConfig[];
}

/** What the rules need to know beyond the flag itself; loaded by FlagService.context(). */
export interface ApplyContext {
  now: Date;
  /** Names of the registered strategy types. */
  strategyTypes: ReadonlySet<string>;
  /** Segments the input refers to (others may be absent). */
  segments: ReadonlyMap<number, SegmentInfo>;
  /** Environments connected to the flag's project. */
  environments: ReadonlyMap<string, EnvironmentInfo>;
  /** The project's default stickiness (flexibleRollout default). */
  defaultStickiness: string;
  /** The project's default strategy per environment (turning a flag on adds it). */
  defaultStrategies?: Readonly<Record<string, DefaultStrategy>>;
  newStrategyId?: () => string;
}

export interface Applied<R = undefined> {
  next: FlagData;
  events: EventInput[];
  /** Whether the events form one transactional group (docs/rules.md §4.4). */
  transactional: boolean;
  result: R;
}

export interface StrategyInput {
  name: string;
  title?: string | null;
  disabled?: boolean | null;
  sortOrder?: number;
  constraints?: ConstraintInput[];
  variants?: StrategyVariantInput[];
  parameters?: Record<string, string>;
  segments?: number[];
}

export interface DependencyInput {
  feature: string;
  enabled?: boolean;
  variants?: string[];
}

// ---------------------------------------------------------------------------------------------
// helpers

function clone(flag: FlagData): FlagData {
  return structuredClone(flag);
}

export function flagEvent(flag: FlagData, type: string, environment: string | null, data: unknown = null, preData: unknown = null): EventInput {
  return {
    type, featureName: flag.name, project: flag.project, environment, data, preData,
    tags: plainTags(flag.tags),
  };
}

/**
 * Turning an archived flag on or off is refused; Unleash 8.2 accepts its other changes (strategies,
 * variants, dependencies, its own fields: 200, measured by the differential tester).
 */
export function assertNotArchived(flag: FlagData): void {
  if (flag.archived) throw archivedFeature();
}

/** The flag's state in `environment`, or 404 when the environment is not connected to the flag. */
export function environmentOf(flag: FlagData, environment: string, ctx: ApplyContext): FlagEnvironment {
  const state = flag.environments[environment];
  if (state) return state;
  if (ctx.environments.has(environment)) return emptyEnvironment();
  throw notFound(`Could not find environment ${environment} for feature: ${flag.name}`);
}

function withEnvironment(flag: FlagData, environment: string, state: FlagEnvironment): FlagData {
  return finalise({ ...flag, environments: { ...flag.environments, [environment]: state } });
}

function maxSortOrder(strategies: StrategyConfig[]): number | undefined {
  if (strategies.length === 0) return undefined;
  return Math.max(...strategies.map((s) => s.sortOrder ?? 0));
}

function onlyDisabled(strategies: StrategyConfig[]): boolean {
  return strategies.every((s) => s.disabled === true);
}

/** Parameters as stored: flexibleRollout defaults (docs/rules.md §1.4 S4 step 4), JSONB key order. */
function normaliseParameters(flag: FlagData, name: string, parameters: Record<string, string> | undefined, ctx: ApplyContext): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(parameters ?? {})) params[k] = v === null || v === undefined ? '' : String(v);
  if (name === 'flexibleRollout') {
    if (params.rollout === undefined) params.rollout = '100';
    if (!params.stickiness) params.stickiness = ctx.defaultStickiness || 'default';
    if (!params.groupId) params.groupId = flag.name;
  }
  return jsonbOrder(params);
}

function checkSegments(flag: FlagData, ids: number[], ctx: ApplyContext): number[] {
  const unique = [...new Set(ids)];
  if (unique.length > LIMITS.segmentsPerStrategy) throw validationError('Strategies may not have more than 5 segments');
  for (const id of unique) {
    const segment = ctx.segments.get(id);
    if (!segment) throw notFound(`No segment exists with ID "${id}"`);
    if (segment.project && segment.project !== flag.project) {
      throw validationError(`The segments ${segment.name} with id ${segment.id} does not belong to project "${flag.project}"`);
    }
    assertSegmentValuesLimit(segment.constraints);
  }
  return unique;
}

/**
 * Validates and normalises a strategy body; `defaults` supplies what PUT keeps (id, sortOrder,
 * segments), and on an update `previous` the title and disabled flag an absent or null one keeps
 * (Unleash 8.2 measured: `PUT {name}` and `PATCH` removing `/title` leave the title as it was).
 */
export function buildStrategy(
  flag: FlagData,
  input: StrategyInput,
  ctx: ApplyContext,
  defaults: { id: string; sortOrder: number; segments: number[]; previous?: StrategyConfig },
): StrategyConfig {
  if (!ctx.strategyTypes.has(input.name)) throw validationError(`Could not find strategy type with name ${input.name}`);
  const segments = input.segments !== undefined ? checkSegments(flag, input.segments, ctx) : defaults.segments;
  const constraints = normaliseStrategyConstraints(input.constraints);
  const parameters = normaliseParameters(flag, input.name, input.parameters, ctx);
  const variants = normaliseStrategyVariants(input.variants);
  const { previous } = defaults;
  return {
    id: defaults.id,
    name: input.name,
    title: previous ? input.title ?? previous.title ?? null : input.title === undefined || input.title === '' ? null : input.title,
    disabled: input.disabled ?? previous?.disabled ?? false,
    sortOrder: input.sortOrder ?? defaults.sortOrder,
    parameters,
    constraints,
    variants,
    segments,
  };
}

// ---------------------------------------------------------------------------------------------
// strategies (S4; the codes: docs/glossary.md)

export function applyAddStrategy(flag: FlagData, environment: string, input: StrategyInput, ctx: ApplyContext): Applied<StrategyConfig> {
  const state = environmentOf(flag, environment, ctx);
  if (state.strategies.length >= LIMITS.strategiesPerEnvironment) throw exceedsLimit('strategy', LIMITS.strategiesPerEnvironment);
  const max = maxSortOrder(state.strategies);
  const strategy = buildStrategy(flag, input, ctx, {
    id: (ctx.newStrategyId ?? (() => ulid(ctx.now.getTime())))(),
    sortOrder: max === undefined ? 0 : max + 1,
    segments: [],
  });
  const next = withEnvironment(clone(flag), environment, { ...state, strategies: [...state.strategies, strategy] });
  return {
    next, transactional: true, result: strategy,
    events: [flagEvent(flag, 'feature-strategy-add', environment, strategyEventView(strategy))],
  };
}

function findStrategy(flag: FlagData, environment: string, strategyId: string, ctx: ApplyContext): { state: FlagEnvironment; index: number } {
  const state = environmentOf(flag, environment, ctx);
  const index = state.strategies.findIndex((s) => s.id === strategyId);
  return { state, index };
}

/**
 * PUT semantics: the body replaces the strategy; absent `segments`/`sortOrder` keep theirs. The
 * strategy is looked up in `home` (PATCH finds it by id in any environment); the event names
 * `environment`, which then goes off if no active strategy is left there (Unleash 8.2 measured: a
 * development strategy patched through the production path records `environment: "production"`).
 */
export function applyUpdateStrategy(
  flag: FlagData, environment: string, strategyId: string, input: StrategyInput, ctx: ApplyContext, home = environment,
): Applied<StrategyConfig> {
  const { state, index } = findStrategy(flag, home, strategyId, ctx);
  // Unleash's strategy store says it so ("id="), before its service's own check could (seed 5).
  if (index < 0) throw notFound(`Could not find strategy with id=${strategyId}`);
  const previous = state.strategies[index]!;
  const strategy = buildStrategy(flag, input, ctx, {
    id: previous.id, sortOrder: previous.sortOrder ?? 0, segments: previous.segments ?? [], previous,
  });
  let next = withEnvironment(clone(flag), home, { ...state, strategies: state.strategies.map((s, i) => (i === index ? strategy : s)) });
  const events = [flagEvent(flag, 'feature-strategy-update', environment, strategyEventView(strategy), strategyEventView(previous))];
  const checked = environmentOf(next, environment, ctx);
  if (onlyDisabled(checked.strategies) && checked.enabled) {
    next = withEnvironment(next, environment, { ...checked, enabled: false });
    events.push(flagEvent(flag, 'feature-environment-disabled', environment));
  }
  return { next, events, transactional: true, result: strategy };
}

/** Unknown ids are a no-op (200, no event); the environment goes off when nothing active remains. */
export function applyDeleteStrategy(flag: FlagData, environment: string, strategyId: string, ctx: ApplyContext): Applied<StrategyConfig | null> {
  const { state, index } = findStrategy(flag, environment, strategyId, ctx);
  if (index < 0) return { next: flag, events: [], transactional: true, result: null };
  const removed = state.strategies[index]!;
  const strategies = state.strategies.filter((_, i) => i !== index);
  const events: EventInput[] = [];
  let enabled = state.enabled;
  if (onlyDisabled(strategies) && state.enabled) {
    enabled = false;
    events.push(flagEvent(flag, 'feature-environment-disabled', environment));
  }
  events.push(flagEvent(flag, 'feature-strategy-remove', environment, null, { ...strategyEventView(removed), segments: [] }));
  const next = withEnvironment(clone(flag), environment, { ...state, enabled, strategies });
  return { next, events, transactional: true, result: removed };
}

/** Sets new sortOrders (change-request action `reorderStrategy`); unknown ids → 404. */
export function applyReorderStrategies(
  flag: FlagData, environment: string, order: Array<{ id: string; sortOrder: number }>, ctx: ApplyContext,
): Applied {
  const state = environmentOf(flag, environment, ctx);
  const events: EventInput[] = [];
  const strategies = state.strategies.map((s) => ({ ...s }));
  for (const { id, sortOrder } of order) {
    const strategy = strategies.find((s) => s.id === id);
    if (!strategy) throw notFound(`Could not find strategy with id ${id}`);
    if (strategy.sortOrder === sortOrder) continue;
    const before = strategyEventView(strategy);
    strategy.sortOrder = sortOrder;
    events.push(flagEvent(flag, 'feature-strategy-update', environment, strategyEventView(strategy), before));
  }
  const next = withEnvironment(clone(flag), environment, { ...state, strategies });
  return { next, events, transactional: true, result: undefined };
}

// ---------------------------------------------------------------------------------------------
// enable / disable (S5)

/** The SDKs' reports move a flag's lifecycle (lifecycle.ts; FlagService.metricsSeen asks here). */
export { lifecycleAfterMetrics } from './lifecycle.js';

/**
 * Turning on an environment without an active strategy first adds the default flexibleRollout
 * (event `feature-strategy-add`); the on/off event is emitted only when the state changes.
 * `activateDisabled` (Unleash's `shouldActivateDisabledStrategies`): when some strategy is disabled,
 * every strategy is enabled instead (`feature-strategy-update` each that changes, before the on event).
 */
export function applySetEnabled(flag: FlagData, environment: string, enabled: boolean, ctx: ApplyContext, activateDisabled = false): Applied<boolean> {
  // The environment first (measured: an archived flag in an unknown environment answers 404, not 400).
  const state = environmentOf(flag, environment, ctx);
  assertNotArchived(flag);
  const events: EventInput[] = [];
  let strategies = state.strategies;
  if (enabled && activateDisabled && strategies.some((s) => s.disabled === true)) {
    strategies = strategies.map((s) => {
      if (s.disabled !== true) return s;
      const activated = { ...s, disabled: false };
      events.push(flagEvent(flag, 'feature-strategy-update', environment, strategyEventView(activated), strategyEventView(s)));
      return activated;
    });
  } else if (enabled && onlyDisabled(strategies)) {
    const max = maxSortOrder(strategies);
    const preset = ctx.defaultStrategies?.[environment];
    // The project's default strategy as stored, with a flexible rollout's defaults where it has none,
    // as Unleash's strategy creation fills them (an empty groupId made the flag's name, measured:
    // "g" stays "g"; no rollout "100", no stickiness the project's: seed 5 of the differential tester).
    const parameters: Record<string, string> = { ...preset?.parameters };
    parameters.rollout ??= '100';
    if (!parameters.stickiness) parameters.stickiness = ctx.defaultStickiness || 'default';
    if (!parameters.groupId) parameters.groupId = flag.name;
    const strategy: StrategyConfig = {
      id: (ctx.newStrategyId ?? (() => ulid(ctx.now.getTime())))(),
      name: 'flexibleRollout',
      title: preset?.title ?? null,
      disabled: false,
      sortOrder: max === undefined ? 0 : max + 1,
      parameters: jsonbOrder(parameters),
      constraints: preset?.constraints ?? [],
      variants: preset?.variants ?? [],
      segments: preset?.segments ?? [],
    };
    strategies = [...strategies, strategy];
    events.push(flagEvent(flag, 'feature-strategy-add', environment, strategyEventView(strategy)));
  }
  const changed = state.enabled !== enabled;
  if (changed) events.push(flagEvent(flag, enabled ? 'feature-environment-enabled' : 'feature-environment-disabled', environment));
  if (events.length === 0) return { next: flag, events, transactional: true, result: false };
  const next = withEnvironment(clone(flag), environment, { ...state, enabled, strategies });
  return { next, events, transactional: true, result: changed };
}

// ---------------------------------------------------------------------------------------------
// environment variants (S6)

/** Stores a normalised list; returns it in the order and key order it was given (PUT response). */
export function applySetVariants(flag: FlagData, environment: string, variants: VariantInput[], ctx: ApplyContext): Applied<VariantConfig[]> {
  const state = environmentOf(flag, environment, ctx);
  const normalised = normaliseEnvironmentVariants(variants);
  const stored = jsonbOrder(normalised);
  const next = withEnvironment(clone(flag), environment, { ...state, variants: stored });
  return {
    next, transactional: false, result: normalised,
    // data: the variants as sent (Unleash records its input); preData: as stored (jsonb order).
    events: [flagEvent(flag, 'feature-environment-variants-updated', environment, { variants: normalised }, { variants: state.variants })],
  };
}

export function applyPatchVariants(flag: FlagData, environment: string, patch: PatchOperation[], ctx: ApplyContext): Applied<VariantConfig[]> {
  const state = environmentOf(flag, environment, ctx);
  let patched: unknown;
  try {
    patched = applyJsonPatch(state.variants, patch);
  } catch (err) {
    if (err instanceof JsonPatchError) throw validationError(`Could not apply provided patch: ${err.message}`);
    throw err;
  }
  if (!Array.isArray(patched)) throw validationError('Could not apply provided patch: the result is not a list of variants');
  return applySetVariants(flag, environment, patched as VariantInput[], ctx);
}

// ---------------------------------------------------------------------------------------------
// dependencies (S7)

export interface DependencyContext {
  /** The parent flag, null when unknown. */
  parent: FlagData | null;
  /** Names of (non-archived) flags depending on the child. */
  childChildren: string[];
}

export function applyAddDependency(child: FlagData, input: DependencyInput, dep: DependencyContext): Applied {
  if (input.feature === child.name) throw invalidOperation('A feature flag cannot depend on itself.');
  if (dep.childChildren.length > 0) {
    throw invalidOperation('Transitive dependency detected. Cannot add a dependency to the feature that other features depend on.');
  }
  const parent = dep.parent;
  if (parent && !parent.archived && parent.dependencies.length > 0) {
    throw invalidOperation('Transitive dependency detected. Cannot add a dependency to the feature that has parent dependency.');
  }
  if (!parent || parent.archived) throw invalidOperation(`No active feature ${input.feature} exists`);
  if (parent.project !== child.project) throw invalidOperation('Parent and child features should be in the same project');
  const enabled = input.enabled ?? true;
  const stored: DependencyConfig =
    enabled === false
      ? { feature: input.feature, enabled: false }
      : input.variants !== undefined
        ? { feature: input.feature, enabled: true, variants: input.variants }
        : { feature: input.feature, enabled: true };
  const data = input.variants !== undefined ? { feature: input.feature, enabled, variants: input.variants } : { feature: input.feature, enabled };
  const next = { ...clone(child), dependencies: [stored] };
  return { next, transactional: true, result: undefined, events: [flagEvent(child, 'feature-dependency-added', null, data)] };
}

export function applyRemoveDependency(child: FlagData, parentName: string): Applied {
  if (!child.dependencies.some((d) => d.feature === parentName)) return { next: child, events: [], transactional: true, result: undefined };
  const next = { ...clone(child), dependencies: child.dependencies.filter((d) => d.feature !== parentName) };
  return {
    next, transactional: true, result: undefined,
    events: [flagEvent(child, 'feature-dependency-removed', null, { feature: parentName })],
  };
}

export function applyRemoveDependencies(child: FlagData): Applied {
  if (child.dependencies.length === 0) return { next: child, events: [], transactional: true, result: undefined };
  const next = { ...clone(child), dependencies: [] };
  return { next, transactional: true, result: undefined, events: [flagEvent(child, 'feature-dependencies-removed', null)] };
}

// ---------------------------------------------------------------------------------------------
// archive / revive (S8)

export function applyArchive(flag: FlagData, children: string[], ctx: ApplyContext): Applied {
  // Archived again: Unleash answers 202, stamps the time again and records `feature-archived` (measured).
  if (flag.archived) return { next: { ...clone(flag), archivedAt: ctx.now }, events: [flagEvent(flag, 'feature-archived', null)], transactional: true, result: undefined };
  if (children.length > 0) throw invalidOperation('You can not archive/delete this feature since other features depend on it.');
  const events: EventInput[] = [];
  if (flag.dependencies.length > 0) events.push(flagEvent(flag, 'feature-dependencies-removed', null));
  events.push(flagEvent(flag, 'feature-archived', null));
  const next: FlagData = {
    ...clone(flag), dependencies: [], archived: true, archivedAt: ctx.now,
    lifecycle: withStage(flag.lifecycle, { stage: 'archived', enteredStageAt: ctx.now }),
  };
  return { next, events, transactional: true, result: undefined };
}

/**
 * Revives a flag: every environment off, `feature-revived`, its lifecycle started again (initial,
 * entered now). A live flag too (measured on Unleash 8.2: reviving a flag that is on turns it off
 * and records the event; one completed before is initial again, as for an archived one).
 */
export function applyRevive(flag: FlagData, ctx: ApplyContext): Applied {
  const environments: FlagData['environments'] = {};
  for (const [name, env] of Object.entries(flag.environments)) environments[name] = { ...env, enabled: false };
  const next = finalise({
    ...clone(flag), archived: false, archivedAt: null, environments,
    lifecycle: initialLifecycle(ctx.now),
  });
  return { next, transactional: true, result: undefined, events: [flagEvent(next, 'feature-revived', null)] };
}

export interface CreateFlagInput {
  name: string;
  type?: string;
  description?: string | null;
  impressionData?: boolean;
  tags?: Array<{ type: string; value: string; color?: string | null }>;
}

/** A new flag (docs/rules.md §6): empty in each of `environments`, its tags without repeats. */
export function newFlag(projectId: string, input: CreateFlagInput, audit: AuditUser, environments: readonly string[], now: Date): FlagData {
  const tags: FlagTag[] = [];
  for (const tag of input.tags ?? []) {
    if (!tags.some((t) => t.type === tag.type && t.value === tag.value)) tags.push({ type: tag.type, value: tag.value });
  }
  return finalise({
    _id: input.name,
    name: input.name,
    project: projectId,
    description: input.description ? input.description : null,
    type: input.type ?? 'release',
    impressionData: input.impressionData ?? false,
    stale: false,
    archived: false,
    archivedAt: null,
    createdAt: now,
    createdBy: { id: audit.id, name: audit.id === ADMIN_TOKEN_USER_ID ? ADMIN_TOKEN_USER_NAME : audit.name },
    tags,
    lifecycle: initialLifecycle(now),
    dependencies: [],
    environments: Object.fromEntries(environments.map((name) => [name, emptyEnvironment()])),
    strategyIds: [],
  });
}
