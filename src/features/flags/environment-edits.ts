/**
 * One environment of a flag as Unleash 8.2 shows it alone, its strategies' order and patches, and
 * the flags a flag may depend on: pure rules (measured on the reference; the service is
 * environment-service.ts).
 */
import { Compile } from 'typebox/compile';
import { notFound, schemaValidationError, validationError } from '../../errors.js';
import type { StrategyConfig } from '../../evaluation/types.js';
import { formatValidationErrors, type AjvError } from '../../plugins/errors.js';
import { flagEvent, type Applied, type StrategyInput } from './apply.js';
import { applyJsonPatch, JsonPatchError, type PatchOperation } from './json-patch.js';
import type { FlagData } from './read-model.js';
import { StrategyBody, type EnvironmentView } from './schemas.js';
import { finalise } from './store.js';
import { sortStrategies } from './views.js';

export function environmentView(flag: FlagData, environment: string): EnvironmentView {
  const state = flag.environments[environment];
  if (!state) throw notFound(`Could not find ${flag.name} in ${environment}`);
  return {
    name: flag.name,
    environment,
    enabled: state.enabled,
    strategies: sortStrategies(state.strategies).map((s) => ({
      id: s.id, featureName: flag.name, title: s.title ?? null, parameters: s.parameters, constraints: s.constraints,
      variants: s.variants ?? [], sortOrder: s.sortOrder ?? 0, disabled: s.disabled ?? false, name: s.name,
    })),
  };
}

/** Unleash's answer to a sort order naming a strategy the environment does not have. */
export const UNKNOWN_STRATEGY_ORDER = 'trying to change strategies for environment via update sortOrder';

/**
 * New sortOrders (the last one given for an id wins); one `strategy-order-changed` with the ids in
 * order before and after, which the outbox drops when the order did not change (measured: a call
 * that changes numbers but not the order records nothing).
 */
export function applyStrategyOrder(flag: FlagData, environment: string, order: ReadonlyArray<{ id: string; sortOrder: number }>): Applied {
  const state = flag.environments[environment];
  if (!state) throw notFound(`Feature ${flag.name} does not have environment ${environment}`);
  const ids = (strategies: StrategyConfig[]) => sortStrategies(strategies).map((s) => s.id);
  const before = ids(state.strategies);
  if (!order.every(({ id }) => before.includes(id))) throw validationError(UNKNOWN_STRATEGY_ORDER);
  // Unleash fails with 500 on what its integer column refuses (measured: 1.5); D10.
  const odd = order.find(({ sortOrder }) => !Number.isInteger(sortOrder) || Math.abs(sortOrder) > 2 ** 31 - 1);
  if (odd) throw validationError(`A sortOrder is a 32-bit integer; ${odd.sortOrder} is not`);
  const wanted = new Map(order.map(({ id, sortOrder }) => [id, sortOrder]));
  if (state.strategies.every((s) => (wanted.get(s.id) ?? s.sortOrder) === s.sortOrder)) return { next: flag, events: [], transactional: true, result: undefined };
  const strategies = state.strategies.map((s) => (wanted.has(s.id) ? { ...s, sortOrder: wanted.get(s.id)! } : s));
  const next = finalise({ ...flag, environments: { ...flag.environments, [environment]: { ...state, strategies } } });
  const event = flagEvent(flag, 'strategy-order-changed', environment, { strategyIds: ids(strategies) }, { strategyIds: before });
  return { next, events: [event], transactional: true, result: undefined };
}

/** The environment holding the strategy (a PATCH finds it by id, whatever environment its path names). */
export function strategyHome(flag: FlagData, strategyId: string): { environment: string; strategy: StrategyConfig } | null {
  for (const [environment, state] of Object.entries(flag.environments)) {
    const strategy = state.strategies.find((s) => s.id === strategyId);
    if (strategy) return { environment, strategy };
  }
  return null;
}

const checkPatched = Compile(StrategyBody);

function valueAt(document: unknown, pointer: string): unknown {
  let value = document;
  for (const token of pointer.split('/').slice(1)) value = (value as Record<string, unknown> | undefined)?.[token.replace(/~1/g, '/').replace(/~0/g, '~')];
  return value;
}

/**
 * What a JSON Patch makes of a strategy, as a strategy body: applied to the strategy as Unleash's
 * `getStrategy` shows it, then checked against the strategy schema (the first failure, its path
 * from the strategy's root: `name`, `/disabled`, measured). Its sortOrder is dropped (Unleash keeps
 * the stored one: a patched 9 answered 5); an absent title, disabled flag or segment list keeps
 * the stored one (`applyUpdateStrategy`).
 */
export function patchedStrategyInput(strategy: StrategyConfig, patch: PatchOperation[]): StrategyInput {
  const shown = {
    id: strategy.id, name: strategy.name, constraints: strategy.constraints, parameters: strategy.parameters,
    variants: strategy.variants ?? [], segments: strategy.segments ?? [], title: strategy.title ?? null,
    disabled: strategy.disabled ?? false, sortOrder: strategy.sortOrder ?? 0,
  };
  let patched: unknown;
  try {
    patched = applyJsonPatch(shown, patch, { lenient: true });
  } catch (err) {
    if (err instanceof JsonPatchError) throw validationError(`Could not apply provided patch: ${err.message}`);
    throw err;
  }
  const [error] = checkPatched.Errors(patched) as unknown as AjvError[];
  if (error) {
    if (error.keyword === 'required') {
      const missing = (error.params.requiredProperties as string[])[0]!;
      const path = error.instancePath ? `${error.instancePath}/${missing}` : missing;
      throw schemaValidationError([{ path, message: `The \`${path}\` property is required. It was not present on the data you sent.` }]);
    }
    throw schemaValidationError(formatValidationErrors([{ ...error, data: valueAt(patched, error.instancePath) }], 'document'));
  }
  const { name, title, disabled, constraints, parameters, variants, segments } = patched as StrategyInput;
  return { name, title, disabled, constraints, parameters, variants, segments };
}

/** Flags of the project that may become a parent: not the child, not archived, not a child themselves; by name as Postgres's C collation orders them. */
export function possibleParents(projectFlags: readonly FlagData[], child: string): string[] {
  return projectFlags
    .filter((flag) => flag.name !== child && !flag.archived && flag.dependencies.length === 0)
    .map((flag) => flag.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
