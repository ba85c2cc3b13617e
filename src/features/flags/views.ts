/**
 * The JSON shapes flags and strategies are shown in. Unleash uses a different key order in almost
 * every place a strategy appears; each is reproduced here (docs/rules.md §1.4 S3/S4, §4.5).
 */
import { stageView } from './lifecycle.js';
import type { StrategyConfig } from '../../evaluation/types.js';
import type { FlagData, FlagEnvironment } from './read-model.js';
import type {
  FeatureCreatedView, FeatureEnvironmentView, FeatureListItemView, FeatureStrategyView, FeatureView, StrategyEventView, StrategyListView,
  StrategyView,
} from './schemas.js';
import { gravatarUrl } from '../shared.js';

/** Strategy order within a flag-environment (docs/rules.md §3.3): sortOrder, then id. */
export function sortStrategies(strategies: StrategyConfig[]): StrategyConfig[] {
  return [...strategies].sort((a, b) => (a.sortOrder ?? 0) - (b.sortOrder ?? 0) || a.id.localeCompare(b.id));
}

/** Response of "add strategy" and "get strategy". */
export function strategyCreatedView(s: StrategyConfig): StrategyView {
  return {
    id: s.id, name: s.name, constraints: s.constraints, parameters: s.parameters, variants: s.variants ?? [],
    segments: s.segments ?? [], title: s.title ?? null, disabled: s.disabled ?? false, sortOrder: s.sortOrder ?? 0,
  };
}

/** Event data of strategy events, and the response of "update strategy". */
export function strategyEventView(s: StrategyConfig): StrategyEventView {
  return {
    id: s.id, name: s.name, title: s.title ?? null, disabled: s.disabled ?? false, constraints: s.constraints,
    parameters: s.parameters, variants: s.variants ?? [], sortOrder: s.sortOrder ?? 0, segments: s.segments ?? [],
  };
}

/** Element of the strategy list. */
export function strategyListView(s: StrategyConfig): StrategyListView {
  return {
    id: s.id, name: s.name, constraints: s.constraints, parameters: s.parameters, variants: s.variants ?? [],
    title: s.title ?? null, disabled: s.disabled ?? false, sortOrder: s.sortOrder ?? 0, milestoneId: null,
    segments: s.segments ?? [],
  };
}

/** Strategy inside the feature resource. */
export function strategyFeatureView(s: StrategyConfig): FeatureStrategyView {
  return {
    name: s.name, constraints: s.constraints, variants: s.variants ?? [], parameters: s.parameters,
    segments: s.segments ?? [], sortOrder: s.sortOrder ?? 0, id: s.id, title: s.title ?? null,
    disabled: s.disabled ?? false,
  };
}

function userView(user: { id: number | null; name: string }): { id: number | null; name: string; imageUrl: string } {
  return { id: user.id, name: user.name, imageUrl: gravatarUrl(user.name) };
}

type FlagCreatedKeys = Pick<FeatureCreatedView, 'name' | 'description' | 'type' | 'project' | 'stale' | 'createdAt' | 'impressionData' | 'archived'>;

/** The eight keys Unleash returns from flag creation, in its order (docs/rules.md §6). */
export function flagCreatedView(flag: FlagData): FlagCreatedKeys & { archivedAt?: string } {
  return {
    name: flag.name, description: flag.description, type: flag.type, project: flag.project, stale: flag.stale,
    createdAt: flag.createdAt.toISOString(), impressionData: flag.impressionData,
    // An archived flag's row carries its time (measured: a PATCH of an archived flag answers it).
    ...(flag.archived && flag.archivedAt ? { archivedAt: flag.archivedAt.toISOString() } : {}),
    archived: flag.archived,
  };
}

export interface EnvironmentInfo {
  name: string;
  type: string;
  sortOrder: number;
}

export function emptyEnvironment(): FlagEnvironment {
  return { enabled: false, strategies: [], variants: [] };
}

function environmentsView(flag: FlagData, environments: EnvironmentInfo[]): FeatureEnvironmentView[] {
  return environments.map((env) => {
    const state = flag.environments[env.name] ?? emptyEnvironment();
    return {
      name: env.name, lastSeenAt: null, enabled: state.enabled, yes: 0, no: 0, type: env.type, sortOrder: env.sortOrder,
      strategies: sortStrategies(state.strategies).map(strategyFeatureView),
    };
  });
}

/** Per environment: what client metrics say (see MetricsService.environmentUsage). */
export interface UsageInfo {
  lastSeenAt: Date | null;
  yes: number;
  no: number;
}

/**
 * The flag view with each environment's lastSeenAt / yes / no from metrics. The view itself is
 * cached per configuration revision, metrics change without one: so they are laid over it per
 * read, copying only the environments.
 */
export function withUsage(view: FeatureView, usage: ReadonlyMap<string, UsageInfo>): FeatureView {
  if (usage.size === 0) return view;
  const environments = view.environments.map((env) => {
    const seen = usage.get(env.name);
    if (!seen) return env;
    return { ...env, lastSeenAt: seen.lastSeenAt?.toISOString() ?? null, yes: seen.yes, no: seen.no };
  });
  return { ...view, environments };
}

/** Everything after `environments`, `name` of the GET body (docs/rules.md §1.4 S3). */
type Tail = Omit<FeatureView, 'environments' | 'name' | 'impressionData' | 'description' | 'project' | 'stale' | 'createdAt'>;

function tail(flag: FlagData, children: string[]): Tail {
  const creator = userView(flag.createdBy);
  return {
    createdBy: creator,
    type: flag.type,
    archived: flag.archived,
    ...(flag.archived && flag.archivedAt ? { archivedAt: flag.archivedAt.toISOString() } : {}),
    dependencies: flag.dependencies.map((d) => ({ ...d, variants: d.variants ?? [] })),
    children,
    ...(flag.lifecycle ? { lifecycle: stageView(flag.lifecycle) } : {}),
    // By id, as Unleash orders them: a link moved here by a PUT keeps its place by age (measured).
    links: [...flag.links ?? []].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((link) => ({ id: link.id, url: link.url, title: link.title, feature: flag.name })),
    collaborators: { users: [creator] },
  };
}

/** `GET .../features/:featureName` (docs/rules.md §1.4 S3), environments in sortOrder. */
export function flagView(flag: FlagData, environments: EnvironmentInfo[], children: string[]): FeatureView {
  const { createdBy: _c, type: _t, archived: _a, ...rest } = tail(flag, children);
  return {
    environments: environmentsView(flag, environments),
    name: flag.name,
    impressionData: flag.impressionData,
    description: flag.description,
    project: flag.project,
    stale: flag.stale,
    createdAt: flag.createdAt.toISOString(),
    createdBy: _c,
    type: _t,
    archived: _a,
    ...rest,
  };
}

/** Flag creation (D6, docs/glossary.md): the full resource, Unleash's eight keys first. */
export function flagCreatedFullView(flag: FlagData, environments: EnvironmentInfo[], children: string[]): FeatureCreatedView {
  const { type: _t, archived: _a, ...rest } = tail(flag, children);
  return { ...flagCreatedView(flag), environments: environmentsView(flag, environments), ...rest };
}

/** A project's flag list as Unleash 8.2 shows it, before last-seen times (`flagName`: their key). */
export function listItemViews(flags: readonly FlagData[], envs: readonly EnvironmentInfo[]): Array<FeatureListItemView & { flagName: string }> {
  return flags.map((flag) => ({
    ...flagCreatedView(flag),
    flagName: flag.name,
    environments: envs.map((env) => {
      const state = flag.environments[env.name] ?? emptyEnvironment();
      return {
        // Unleash 8.2's key order; variantCount counts the environment's variants, not strategies' (measured on the reference).
        name: env.name, enabled: state.enabled, type: env.type, sortOrder: env.sortOrder, variantCount: state.variants.length, lastSeenAt: null as string | null,
        hasStrategies: state.strategies.length > 0, hasEnabledStrategies: state.strategies.some((s) => !s.disabled),
      };
    }),
  }));
}

/** The list with each environment's last-seen time (metrics: flag name → environment → time). */
export function withLastSeen(
  views: ReadonlyArray<FeatureListItemView & { flagName: string }>, seen: ReadonlyMap<string, ReadonlyMap<string, Date>>,
): FeatureListItemView[] {
  return views.map(({ flagName, ...view }) => {
    const envs = seen.get(flagName);
    if (!envs) return view;
    return { ...view, environments: view.environments.map((env) => ({ ...env, lastSeenAt: envs.get(env.name)?.toISOString() ?? null })) };
  });
}
