/**
 * Flag operations as pure functions: `(flag, input, ctx) → {next, events, result}`. They hold every
 * rule of docs/rules.md §1.4 S4–S8; nothing here reads or writes the database. FlagService loads the
 * context, applies one of these and writes `next` with its events in one document write; change
 * requests (§3.13) apply the same functions in memory to preview or to apply.
 */
import { archivedFeature, exceedsLimit, invalidOperation, notFound, validationError } from '../../errors.js';
import { assertSegmentValuesLimit } from '../constraints/index.js';
import { applyJsonPatch, JsonPatchError } from './json-patch.js';
import { jsonbOrder, LIMITS, normaliseStrategyConstraints, normaliseEnvironmentVariants, normaliseStrategyVariants, ulid, } from './rules.js';
import { finalise } from './store.js';
import { emptyEnvironment, strategyEventView } from './views.js';
// ---------------------------------------------------------------------------------------------
// helpers
function clone(flag) {
    return structuredClone(flag);
}
function event(flag, type, environment, data = null, preData = null) {
    return {
        type, featureName: flag.name, project: flag.project, environment, data, preData,
        tags: flag.tags.map((t) => ({ value: t.value, type: t.type })),
    };
}
export function assertNotArchived(flag) {
    if (flag.archived)
        throw archivedFeature();
}
/** The flag's state in `environment`, or 404 when the environment is not connected to the flag. */
export function environmentOf(flag, environment, ctx) {
    const state = flag.environments[environment];
    if (state)
        return state;
    if (ctx.environments.has(environment))
        return emptyEnvironment();
    throw notFound(`Could not find environment ${environment} for feature: ${flag.name}`);
}
function withEnvironment(flag, environment, state) {
    return finalise({ ...flag, environments: { ...flag.environments, [environment]: state } });
}
function maxSortOrder(strategies) {
    if (strategies.length === 0)
        return undefined;
    return Math.max(...strategies.map((s) => s.sortOrder ?? 0));
}
function onlyDisabled(strategies) {
    return strategies.every((s) => s.disabled === true);
}
/** Parameters as stored: flexibleRollout defaults (docs/rules.md §1.4 S4 step 4), JSONB key order. */
function normaliseParameters(flag, name, parameters, ctx) {
    const params = {};
    for (const [k, v] of Object.entries(parameters ?? {}))
        params[k] = v === null || v === undefined ? '' : String(v);
    if (name === 'flexibleRollout') {
        if (params.rollout === undefined)
            params.rollout = '100';
        if (!params.stickiness)
            params.stickiness = ctx.defaultStickiness || 'default';
        if (!params.groupId)
            params.groupId = flag.name;
    }
    return jsonbOrder(params);
}
function checkSegments(flag, ids, ctx) {
    const unique = [...new Set(ids)];
    if (unique.length > LIMITS.segmentsPerStrategy)
        throw validationError('Strategies may not have more than 5 segments');
    for (const id of unique) {
        const segment = ctx.segments.get(id);
        if (!segment)
            throw notFound(`No segment exists with ID "${id}"`);
        if (segment.project && segment.project !== flag.project) {
            throw validationError(`The segments ${segment.name} with id ${segment.id} does not belong to project "${flag.project}"`);
        }
        assertSegmentValuesLimit(segment.constraints);
    }
    return unique;
}
/** Validates and normalises a strategy body; `previous` supplies what PUT keeps (id, sortOrder, segments). */
export function buildStrategy(flag, input, ctx, defaults) {
    if (!ctx.strategyTypes.has(input.name))
        throw validationError(`Could not find strategy type with name ${input.name}`);
    const segments = input.segments !== undefined ? checkSegments(flag, input.segments, ctx) : defaults.segments;
    const constraints = normaliseStrategyConstraints(input.constraints);
    const parameters = normaliseParameters(flag, input.name, input.parameters, ctx);
    const variants = normaliseStrategyVariants(input.variants);
    return {
        id: defaults.id,
        name: input.name,
        title: input.title === undefined || input.title === '' ? null : input.title,
        disabled: input.disabled ?? false,
        sortOrder: input.sortOrder ?? defaults.sortOrder,
        parameters,
        constraints,
        variants,
        segments,
    };
}
// ---------------------------------------------------------------------------------------------
// strategies (S4)
export function applyAddStrategy(flag, environment, input, ctx) {
    assertNotArchived(flag);
    const state = environmentOf(flag, environment, ctx);
    if (state.strategies.length >= LIMITS.strategiesPerEnvironment)
        throw exceedsLimit('strategy', LIMITS.strategiesPerEnvironment);
    const max = maxSortOrder(state.strategies);
    const strategy = buildStrategy(flag, input, ctx, {
        id: (ctx.newStrategyId ?? (() => ulid(ctx.now.getTime())))(),
        sortOrder: max === undefined ? 0 : max + 1,
        segments: [],
    });
    const next = withEnvironment(clone(flag), environment, { ...state, strategies: [...state.strategies, strategy] });
    return {
        next, transactional: true, result: strategy,
        events: [event(flag, 'feature-strategy-add', environment, strategyEventView(strategy))],
    };
}
function findStrategy(flag, environment, strategyId, ctx) {
    const state = environmentOf(flag, environment, ctx);
    const index = state.strategies.findIndex((s) => s.id === strategyId);
    return { state, index };
}
/** PUT semantics: the body replaces the strategy; absent `segments`/`sortOrder` keep theirs. */
export function applyUpdateStrategy(flag, environment, strategyId, input, ctx) {
    assertNotArchived(flag);
    const { state, index } = findStrategy(flag, environment, strategyId, ctx);
    if (index < 0)
        throw notFound(`Could not find strategy with id ${strategyId}`);
    const previous = state.strategies[index];
    const strategy = buildStrategy(flag, input, ctx, {
        id: previous.id, sortOrder: previous.sortOrder ?? 0, segments: previous.segments ?? [],
    });
    const strategies = state.strategies.map((s, i) => (i === index ? strategy : s));
    const events = [event(flag, 'feature-strategy-update', environment, strategyEventView(strategy), strategyEventView(previous))];
    let enabled = state.enabled;
    if (onlyDisabled(strategies) && state.enabled) {
        enabled = false;
        events.push(event(flag, 'feature-environment-disabled', environment));
    }
    const next = withEnvironment(clone(flag), environment, { ...state, enabled, strategies });
    return { next, events, transactional: true, result: strategy };
}
/** Unknown ids are a no-op (200, no event); the environment goes off when nothing active remains. */
export function applyDeleteStrategy(flag, environment, strategyId, ctx) {
    assertNotArchived(flag);
    const { state, index } = findStrategy(flag, environment, strategyId, ctx);
    if (index < 0)
        return { next: flag, events: [], transactional: true, result: null };
    const removed = state.strategies[index];
    const strategies = state.strategies.filter((_, i) => i !== index);
    const events = [];
    let enabled = state.enabled;
    if (onlyDisabled(strategies) && state.enabled) {
        enabled = false;
        events.push(event(flag, 'feature-environment-disabled', environment));
    }
    events.push(event(flag, 'feature-strategy-remove', environment, null, { ...strategyEventView(removed), segments: [] }));
    const next = withEnvironment(clone(flag), environment, { ...state, enabled, strategies });
    return { next, events, transactional: true, result: removed };
}
/** Sets new sortOrders (change-request action `reorderStrategy`); unknown ids → 404. */
export function applyReorderStrategies(flag, environment, order, ctx) {
    assertNotArchived(flag);
    const state = environmentOf(flag, environment, ctx);
    const events = [];
    const strategies = state.strategies.map((s) => ({ ...s }));
    for (const { id, sortOrder } of order) {
        const strategy = strategies.find((s) => s.id === id);
        if (!strategy)
            throw notFound(`Could not find strategy with id ${id}`);
        if (strategy.sortOrder === sortOrder)
            continue;
        const before = strategyEventView(strategy);
        strategy.sortOrder = sortOrder;
        events.push(event(flag, 'feature-strategy-update', environment, strategyEventView(strategy), before));
    }
    const next = withEnvironment(clone(flag), environment, { ...state, strategies });
    return { next, events, transactional: true, result: undefined };
}
// ---------------------------------------------------------------------------------------------
// enable / disable (S5)
function lifecycleAfterEnable(flag, environment, ctx) {
    const type = ctx.environments.get(environment)?.type;
    const stage = flag.lifecycle?.stage ?? 'initial';
    if (type === 'production' && (stage === 'initial' || stage === 'pre-live'))
        return { stage: 'live', enteredStageAt: ctx.now };
    if (type !== 'production' && stage === 'initial')
        return { stage: 'pre-live', enteredStageAt: ctx.now };
    return flag.lifecycle;
}
/**
 * Turning on an environment without an active strategy first adds the default flexibleRollout
 * (event `feature-strategy-add`); the on/off event is emitted only when the state changes.
 */
export function applySetEnabled(flag, environment, enabled, ctx) {
    assertNotArchived(flag);
    const state = environmentOf(flag, environment, ctx);
    const events = [];
    let strategies = state.strategies;
    if (enabled && onlyDisabled(strategies)) {
        const max = maxSortOrder(strategies);
        const strategy = {
            id: (ctx.newStrategyId ?? (() => ulid(ctx.now.getTime())))(),
            name: 'flexibleRollout',
            title: null,
            disabled: false,
            sortOrder: max === undefined ? 0 : max + 1,
            parameters: jsonbOrder({ rollout: '100', stickiness: ctx.defaultStickiness || 'default', groupId: flag.name }),
            constraints: [],
            variants: [],
            segments: [],
        };
        strategies = [...strategies, strategy];
        events.push(event(flag, 'feature-strategy-add', environment, strategyEventView(strategy)));
    }
    const changed = state.enabled !== enabled;
    if (changed)
        events.push(event(flag, enabled ? 'feature-environment-enabled' : 'feature-environment-disabled', environment));
    if (events.length === 0)
        return { next: flag, events, transactional: true, result: false };
    let next = withEnvironment(clone(flag), environment, { ...state, enabled, strategies });
    if (enabled && changed)
        next = { ...next, lifecycle: lifecycleAfterEnable(flag, environment, ctx) };
    return { next, events, transactional: true, result: changed };
}
// ---------------------------------------------------------------------------------------------
// environment variants (S6)
/** Stores a normalised list; returns it in the order and key order it was given (PUT response). */
export function applySetVariants(flag, environment, variants, ctx) {
    assertNotArchived(flag);
    const state = environmentOf(flag, environment, ctx);
    const normalised = normaliseEnvironmentVariants(variants);
    const stored = jsonbOrder(normalised);
    const next = withEnvironment(clone(flag), environment, { ...state, variants: stored });
    return {
        next, transactional: false, result: normalised,
        events: [event(flag, 'feature-environment-variants-updated', environment, { variants: stored }, { variants: state.variants })],
    };
}
export function applyPatchVariants(flag, environment, patch, ctx) {
    assertNotArchived(flag);
    const state = environmentOf(flag, environment, ctx);
    let patched;
    try {
        patched = applyJsonPatch(state.variants, patch);
    }
    catch (err) {
        if (err instanceof JsonPatchError)
            throw validationError(`Could not apply provided patch: ${err.message}`);
        throw err;
    }
    if (!Array.isArray(patched))
        throw validationError('Could not apply provided patch: the result is not a list of variants');
    return applySetVariants(flag, environment, patched, ctx);
}
export function applyAddDependency(child, input, dep) {
    assertNotArchived(child);
    if (input.feature === child.name)
        throw invalidOperation('A feature flag cannot depend on itself.');
    if (dep.childChildren.length > 0) {
        throw invalidOperation('Transitive dependency detected. Cannot add a dependency to the feature that other features depend on.');
    }
    const parent = dep.parent;
    if (parent && !parent.archived && parent.dependencies.length > 0) {
        throw invalidOperation('Transitive dependency detected. Cannot add a dependency to the feature that has parent dependency.');
    }
    if (!parent || parent.archived)
        throw invalidOperation(`No active feature ${input.feature} exists`);
    if (parent.project !== child.project)
        throw invalidOperation('Parent and child features should be in the same project');
    const enabled = input.enabled ?? true;
    const stored = enabled === false
        ? { feature: input.feature, enabled: false }
        : input.variants !== undefined
            ? { feature: input.feature, enabled: true, variants: input.variants }
            : { feature: input.feature, enabled: true };
    const data = input.variants !== undefined ? { feature: input.feature, enabled, variants: input.variants } : { feature: input.feature, enabled };
    const next = { ...clone(child), dependencies: [stored] };
    return { next, transactional: true, result: undefined, events: [event(child, 'feature-dependency-added', null, data)] };
}
export function applyRemoveDependency(child, parentName) {
    assertNotArchived(child);
    if (!child.dependencies.some((d) => d.feature === parentName))
        return { next: child, events: [], transactional: true, result: undefined };
    const next = { ...clone(child), dependencies: child.dependencies.filter((d) => d.feature !== parentName) };
    return {
        next, transactional: true, result: undefined,
        events: [event(child, 'feature-dependency-removed', null, { feature: parentName })],
    };
}
export function applyRemoveDependencies(child) {
    assertNotArchived(child);
    if (child.dependencies.length === 0)
        return { next: child, events: [], transactional: true, result: undefined };
    const next = { ...clone(child), dependencies: [] };
    return { next, transactional: true, result: undefined, events: [event(child, 'feature-dependencies-removed', null)] };
}
// ---------------------------------------------------------------------------------------------
// archive / revive (S8)
export function applyArchive(flag, children, ctx) {
    if (flag.archived)
        throw archivedFeature();
    if (children.length > 0)
        throw invalidOperation('You can not archive/delete this feature since other features depend on it.');
    const events = [];
    if (flag.dependencies.length > 0)
        events.push(event(flag, 'feature-dependencies-removed', null));
    events.push(event(flag, 'feature-archived', null));
    const next = {
        ...clone(flag), dependencies: [], archived: true, archivedAt: ctx.now,
        lifecycle: { stage: 'archived', enteredStageAt: ctx.now },
    };
    return { next, events, transactional: true, result: undefined };
}
export function applyRevive(flag, ctx) {
    if (!flag.archived)
        return { next: flag, events: [], transactional: true, result: undefined };
    const environments = {};
    for (const [name, env] of Object.entries(flag.environments))
        environments[name] = { ...env, enabled: false };
    const next = finalise({
        ...clone(flag), archived: false, archivedAt: null, environments,
        lifecycle: { stage: 'initial', enteredStageAt: ctx.now },
    });
    return { next, transactional: true, result: undefined, events: [event(next, 'feature-revived', null)] };
}
//# sourceMappingURL=apply.js.map