/**
 * The feature search as pure functions: an index built once per configuration revision from the
 * flags read model, and a search over it. Unleash 8.2 answers from one SQL query that joins each
 * flag with its environments, tags and strategies' segments and filters those joined rows; a
 * filter on environments (`status`, `lastSeenAt`), on tags or on segments (INCLUDE) therefore also
 * narrows what the flag shows of them (measured: `status` and `lastSeenAt` leave only the matching
 * environments, tag INCLUDE only the matching tags; segment INCLUDE leaves every segment). That is
 * reproduced here per flag (`Restricted`).
 */
import type { FlagData, LifecycleStage } from '../flags/read-model.js';
import { isMarked } from '../favorites/read-model.js';
import { likePattern } from '../events/service.js';
import { schemaValidationError } from '../../errors.js';

export const OPERATORS = [
  'IS', 'IS_NOT', 'IS_ANY_OF', 'IS_NONE_OF', 'INCLUDE', 'DO_NOT_INCLUDE', 'INCLUDE_ALL_OF', 'INCLUDE_ANY_OF', 'EXCLUDE_IF_ANY_OF',
  'EXCLUDE_ALL', 'IS_BEFORE', 'IS_ON_OR_AFTER',
] as const;
export type Operator = (typeof OPERATORS)[number];

export interface ParsedFilter {
  operator: Operator;
  values: string[];
}

const OPERATOR_VALUE = new RegExp(`^(${OPERATORS.join('|')}):(.+)$`);

/** `OP:a, b` → the operator and the trimmed values; nothing after the colon → null (no filter). */
export function parseOperatorValue(raw: string | undefined): ParsedFilter | null {
  if (raw === undefined) return null;
  const match = OPERATOR_VALUE.exec(raw);
  if (!match) return null;
  return { operator: match[1] as Operator, values: match[2]!.split(',').map((v) => v.trim()) };
}

export interface FeatureSearchParams {
  query?: string;
  project?: string;
  state?: string;
  lifecycle?: string;
  type?: string;
  createdBy?: string;
  tag?: string;
  segment?: string;
  status?: string[];
  offset?: string;
  limit?: string;
  sortBy?: string;
  sortOrder?: string;
  favoritesFirst?: string;
  archived?: string;
  favorite?: string;
  createdAt?: string;
  lastSeenAt?: string;
}

export const DEFAULT_LIMIT = 50;
/** Unleash's feature search caps a page at 100 (anything above means the default, 50). */
export const MAX_LIMIT = 100;

/**
 * Unleash's normalisation: Number(limit) in (0, max] or the default; Number(offset) > 0 or 0. A
 * fraction is rounded down (Unleash answers `limit=2.5` and `offset=1.5` with a 500 from its SQL).
 */
export function pageOf(params: { limit?: string; offset?: string }, max = MAX_LIMIT): { offset: number; limit: number } {
  const limit = params.limit === undefined ? DEFAULT_LIMIT : Number(params.limit);
  const offset = Number(params.offset);
  return { limit: limit > 0 && limit <= max ? Math.max(1, Math.floor(limit)) : DEFAULT_LIMIT, offset: offset > 0 ? Math.floor(offset) : 0 };
}

/** The `query` parameter: comma-separated terms, each an ILIKE `%term%` on name or description. */
export function queryTerms(query: string | undefined): RegExp[] {
  if (query === undefined) return [];
  return query.split(',').map((t) => t.trim()).filter((t) => t !== '').map((t) => new RegExp(likePattern(t)));
}

// ---------------------------------------------------------------------------------------------
// the index, per revision

export interface EnvRow {
  name: string;
  type: string;
  sortOrder: number;
  enabled: boolean;
  variantCount: number;
  hasStrategies: boolean;
  hasEnabledStrategies: boolean;
  changeRequestIds: number[];
}

export interface TagRow {
  type: string;
  value: string;
  color: string | null;
  /** `type\0value`. */
  key: string;
}

export interface Creator {
  /** null when the creating user no longer exists (Unleash's join then finds nobody). */
  id: number | null;
  name: string;
  imageUrl: string;
}

export interface IndexedFlag {
  flag: FlagData;
  lowerName: string;
  lowerDescription: string | null;
  createdAt: number;
  /** Position in the default order (createdAt, then name): every sort's tie-break. */
  position: number;
  creator: Creator;
  dependencyType: 'parent' | 'child' | null;
  stage: LifecycleStage;
  potentiallyStale: boolean;
  /** The project's environments, by sortOrder then name. */
  envs: EnvRow[];
  tags: TagRow[];
  /** The tags' keys (`type\0value`). */
  tagKeys: string[];
  /** One segment name per (strategy, segment) pair, every environment (INCLUDE_ALL_OF counts these). */
  segmentPairs: string[];
  /** The distinct segment names, by segment id. */
  segments: string[];
}

export interface IndexInput {
  flags: readonly FlagData[];
  /** project → its environments, by sortOrder then name. */
  projectEnvs: ReadonlyMap<string, ReadonlyArray<{ name: string; type: string; sortOrder: number }>>;
  tagColors: ReadonlyMap<string, string | null>;
  segmentNames: ReadonlyMap<number, string>;
  /** `flag\0environment` → the ids of its open change requests, ascending. */
  changeRequests: ReadonlyMap<string, number[]>;
  creators: ReadonlyMap<number, Creator>;
  unknownCreator: Creator;
  /** Days a flag of each type lives before it is potentially stale (null: never). */
  lifetimes: ReadonlyMap<string, number | null>;
  now: number;
}

export interface SearchIndex {
  flags: readonly IndexedFlag[];
  /** Sorted lists kept for this revision, by sort key (the sorts that need no metrics). */
  orders: Map<string, readonly IndexedFlag[]>;
}

const DAY_MS = 86_400_000;

const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function defaultOrder(a: FlagData, b: FlagData): number {
  return a.createdAt.getTime() - b.createdAt.getTime() || byCodePoint(a.name, b.name);
}

export function buildIndex(input: IndexInput): SearchIndex {
  const parents = new Set<string>();
  for (const flag of input.flags) for (const dep of flag.dependencies ?? []) parents.add(dep.feature);
  const sorted = [...input.flags].sort(defaultOrder);
  const flags = sorted.map((flag, position): IndexedFlag => {
    const segmentPairs: string[] = [];
    const segmentIds = new Set<number>();
    for (const env of Object.values(flag.environments ?? {})) {
      for (const strategy of env.strategies) {
        for (const id of strategy.segments ?? []) {
          const name = input.segmentNames.get(id);
          if (name === undefined) continue;
          segmentPairs.push(name);
          segmentIds.add(id);
        }
      }
    }
    const lifetime = input.lifetimes.get(flag.type);
    return {
      flag,
      lowerName: flag.name.toLowerCase(),
      lowerDescription: flag.description === null ? null : flag.description.toLowerCase(),
      createdAt: flag.createdAt.getTime(),
      position,
      creator: flag.createdBy.id === null ? input.unknownCreator : input.creators.get(flag.createdBy.id) ?? input.unknownCreator,
      dependencyType: parents.has(flag.name) ? 'parent' : (flag.dependencies ?? []).length > 0 ? 'child' : null,
      stage: flag.archived ? 'archived' : flag.lifecycle?.stage ?? 'initial',
      potentiallyStale: typeof lifetime === 'number' && flag.createdAt.getTime() + lifetime * DAY_MS < input.now,
      envs: (input.projectEnvs.get(flag.project) ?? []).map((env) => {
        const state = flag.environments?.[env.name];
        const strategies = state?.strategies ?? [];
        return {
          name: env.name, type: env.type, sortOrder: env.sortOrder, enabled: state?.enabled ?? false,
          variantCount: state?.variants.length ?? 0, hasStrategies: strategies.length > 0,
          hasEnabledStrategies: strategies.some((s) => !s.disabled),
          changeRequestIds: input.changeRequests.get(`${flag.name}\u0000${env.name}`) ?? [],
        };
      }),
      tags: (flag.tags ?? []).map((t) => ({ type: t.type, value: t.value, color: input.tagColors.get(t.type) ?? null, key: `${t.type}\u0000${t.value}` })),
      tagKeys: (flag.tags ?? []).map((t) => `${t.type}\u0000${t.value}`),
      segmentPairs,
      segments: [...segmentIds].sort((a, b) => a - b).map((id) => input.segmentNames.get(id)!),
    };
  });
  return { flags, orders: new Map() };
}

// ---------------------------------------------------------------------------------------------
// the search

/** What a flag shows once the row filters have narrowed it. */
export interface Restricted {
  entry: IndexedFlag;
  envs: readonly EnvRow[];
  tags: readonly TagRow[];
  segments: readonly string[];
}

export interface SearchUsage {
  /** flag → environment → last seen. */
  lastSeen: ReadonlyMap<string, ReadonlyMap<string, Date>>;
  /** The caller's favourite flags (favorites/read-model.ts); empty for an API token. */
  favorites: ReadonlyMap<string, number>;
}

export interface SearchPage {
  items: Restricted[];
  total: number;
}

type Predicate = (entry: IndexedFlag) => boolean;

/** IS / IS_ANY_OF: one of the values; IS_NOT / IS_NONE_OF: none of them (a missing value: neither). */
function generic(parsed: ParsedFilter | null, field: (entry: IndexedFlag) => string | null): Predicate | null {
  if (!parsed) return null;
  const values = new Set(parsed.values);
  switch (parsed.operator) {
    case 'IS':
    case 'IS_ANY_OF':
      return (e) => {
        const v = field(e);
        return v !== null && values.has(v);
      };
    case 'IS_NOT':
    case 'IS_NONE_OF':
      return (e) => {
        const v = field(e);
        return v !== null && !values.has(v);
      };
    default:
      return null;
  }
}

/** Midnight UTC of `YYYY-MM-DD` (the schema has checked the shape); NaN for an impossible date. */
export function dayStart(value: string): number {
  const [year, month, day] = value.split('-').map(Number) as [number, number, number];
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day ? date.getTime() : Number.NaN;
}

/**
 * `IS_BEFORE:day` / `IS_ON_OR_AFTER:day` against midnight UTC. An impossible day (2026-02-30) is a
 * 400 naming the parameter, as in the event search (Unleash: a 500 from its SQL).
 */
function dateTest(param: 'createdAt' | 'lastSeenAt', raw: string | undefined): ((t: number | null) => boolean) | null {
  const parsed = parseOperatorValue(raw);
  if (!parsed || (parsed.operator !== 'IS_BEFORE' && parsed.operator !== 'IS_ON_OR_AFTER')) return null;
  const bound = dayStart(parsed.values[0]!);
  if (Number.isNaN(bound)) {
    const path = `/query/${param}`;
    throw schemaValidationError([{ message: `The \`${path}\` property must be a valid calendar date. You sent ${JSON.stringify(raw)}.`, path }]);
  }
  return parsed.operator === 'IS_BEFORE' ? (t) => t !== null && t < bound : (t) => t !== null && t >= bound;
}

/** `state`: stale / active, and potentially-stale (Unleash's applyStaleConditions). */
function stalePredicate(parsed: ParsedFilter | null): Predicate | null {
  if (!parsed) return null;
  const include = parsed.operator === 'IS' || parsed.operator === 'IS_ANY_OF';
  const exclude = parsed.operator === 'IS_NOT' || parsed.operator === 'IS_NONE_OF';
  if (!include && !exclude) return null;
  if (!parsed.values.includes('potentially-stale')) {
    // Every value but `active` means stale.
    const wanted = new Set(parsed.values.map((v) => v !== 'active'));
    return include ? (e) => wanted.has(e.flag.stale) : (e) => !wanted.has(e.flag.stale);
  }
  const known = new Set(parsed.values.filter((v) => v === 'stale' || v === 'active' || v === 'potentially-stale'));
  if (known.size === 3) return include ? null : () => false;
  if (known.size === 1) {
    return include ? (e) => !e.flag.stale && e.potentiallyStale : (e) => e.flag.stale || !e.potentiallyStale;
  }
  if (known.has('stale')) {
    return include ? (e) => e.flag.stale || e.potentiallyStale : (e) => !e.flag.stale && !e.potentiallyStale;
  }
  return include ? (e) => !e.flag.stale : (e) => e.flag.stale;
}

/** `lifecycle` together with the deprecated `archived` (Unleash's applyLifecycleAndArchivedFilters). */
function lifecyclePredicate(parsed: ParsedFilter | null, archivedView: boolean): Predicate {
  if (!parsed || !['IS', 'IS_NOT', 'IS_ANY_OF', 'IS_NONE_OF'].includes(parsed.operator)) {
    return archivedView ? (e) => e.flag.archived : (e) => !e.flag.archived;
  }
  const exclude = parsed.operator === 'IS_NOT' || parsed.operator === 'IS_NONE_OF';
  const withArchived = parsed.values.includes('archived');
  const stages = new Set(parsed.values.filter((v) => v !== 'archived'));
  if (exclude) {
    if (archivedView && !withArchived) return (e) => e.flag.archived;
    return (e) => !e.flag.archived && !stages.has(e.stage);
  }
  if (archivedView) return (e) => e.flag.archived && (withArchived || stages.size === 0 || stages.has(e.stage));
  return (e) => (stages.has(e.stage) && (withArchived || !e.flag.archived)) || (withArchived && e.flag.archived);
}

interface MultiFilter {
  /** Whether the flag passes. */
  test: Predicate;
  /** INCLUDE and INCLUDE_ANY_OF narrow what the flag shows to the matching values. */
  narrows: boolean;
  values: Set<string>;
}

/**
 * `tag` and `segment`: INCLUDE / INCLUDE_ANY_OF any value; DO_NOT_INCLUDE / EXCLUDE_IF_ANY_OF none;
 * INCLUDE_ALL_OF / EXCLUDE_ALL whether the matching rows number as many as the values (Unleash's
 * `HAVING COUNT(*) = n`: a segment used by two strategies counts twice, a repeated value once).
 */
function multiFilter(parsed: ParsedFilter | null, keys: (values: string[]) => string[], rows: (e: IndexedFlag) => readonly string[]): MultiFilter | null {
  if (!parsed) return null;
  const wanted = keys(parsed.values);
  const values = new Set(wanted);
  const any = (e: IndexedFlag) => rows(e).some((k) => values.has(k));
  const all = (e: IndexedFlag) => rows(e).filter((k) => values.has(k)).length === wanted.length;
  switch (parsed.operator) {
    case 'INCLUDE':
    case 'INCLUDE_ANY_OF':
      return { test: any, narrows: true, values };
    case 'DO_NOT_INCLUDE':
    case 'EXCLUDE_IF_ANY_OF':
      return { test: (e) => !any(e), narrows: false, values };
    case 'INCLUDE_ALL_OF':
      return { test: all, narrows: false, values };
    case 'EXCLUDE_ALL':
      return { test: (e) => !all(e), narrows: false, values };
    default:
      return null;
  }
}

/** `type:value` → `type\0value`, split at the first colon, both sides trimmed. */
function tagKeys(values: string[]): string[] {
  return values.map((v) => {
    const colon = v.indexOf(':');
    return colon < 0 ? v.trim() : `${v.slice(0, colon).trim()}\u0000${v.slice(colon + 1).trim()}`;
  });
}

/** `status`: `environment:enabled|disabled` pairs; anything else is ignored. */
function statusPairs(status: string[] | undefined): Array<[string, boolean]> {
  return (status ?? []).map((s) => s.split(':')).filter((p) => p.length === 2 && (p[1] === 'enabled' || p[1] === 'disabled'))
    .map((p) => [p[0]!, p[1] === 'enabled']);
}

const SORTABLE: Record<string, (a: IndexedFlag, b: IndexedFlag) => number> = {
  name: (a, b) => byCodePoint(a.flag.name, b.flag.name),
  type: (a, b) => byCodePoint(a.flag.type, b.flag.type),
  stale: (a, b) => Number(a.flag.stale) - Number(b.flag.stale),
  project: (a, b) => byCodePoint(a.flag.project, b.flag.project),
};

/** Sorted by a key of the flag itself, kept per revision; ties by creation (position). */
function flagOrder(index: SearchIndex, sortBy: string, desc: boolean): readonly IndexedFlag[] {
  const compare = SORTABLE[sortBy];
  const key = compare ? `${sortBy}:${desc ? 'desc' : 'asc'}` : `createdAt:${desc ? 'desc' : 'asc'}`;
  let order = index.orders.get(key);
  if (!order) {
    const sign = desc ? -1 : 1;
    order = compare
      ? [...index.flags].sort((a, b) => sign * compare(a, b) || a.position - b.position)
      // createdAt desc keeps name ascending among flags created at the same instant.
      : desc ? [...index.flags].sort((a, b) => b.createdAt - a.createdAt || byCodePoint(a.flag.name, b.flag.name)) : index.flags;
    index.orders.set(key, order);
  }
  return order;
}

/** A nullable sort value ranked asc or desc with nulls last, ties by creation. */
function byValueThenPosition(values: Map<Restricted, number | null>, desc: boolean) {
  return (a: Restricted, b: Restricted) => {
    const x = values.get(a) ?? null;
    const y = values.get(b) ?? null;
    if (x !== y) {
      if (x === null) return 1;
      if (y === null) return -1;
      return desc ? y - x : x - y;
    }
    return a.entry.position - b.entry.position;
  };
}

export function search(index: SearchIndex, params: FeatureSearchParams, usage: SearchUsage): SearchPage {
  const terms = queryTerms(params.query);
  const predicates: Predicate[] = [];
  const add = (p: Predicate | null) => {
    if (p) predicates.push(p);
  };
  if (terms.length > 0) {
    add((e) => terms.some((re) => re.test(e.lowerName) || (e.lowerDescription !== null && re.test(e.lowerDescription))));
  }
  add(stalePredicate(parseOperatorValue(params.state)));
  const created = dateTest('createdAt', params.createdAt);
  if (created) add((e) => created(e.createdAt));
  add(generic(parseOperatorValue(params.createdBy), (e) => (e.creator.id === null ? null : String(e.creator.id))));
  add(generic(parseOperatorValue(params.type), (e) => e.flag.type));
  add(generic(parseOperatorValue(params.project), (e) => e.flag.project));
  const isFavorite = (e: IndexedFlag) => isMarked(usage.favorites, e.flag.name, e.flag.createdAt);
  add(generic(parseOperatorValue(params.favorite), (e) => String(isFavorite(e))));
  add(lifecyclePredicate(parseOperatorValue(params.lifecycle), params.archived === 'IS:true'));
  const tag = multiFilter(parseOperatorValue(params.tag), tagKeys, (e) => e.tagKeys);
  if (tag) add(tag.test);
  const segment = multiFilter(parseOperatorValue(params.segment), (v) => v, (e) => e.segmentPairs);
  // Unlike tags, a segment INCLUDE leaves every segment of the flag shown (measured).
  if (segment) add(segment.test);

  const statuses = statusPairs(params.status);
  const seenTest = dateTest('lastSeenAt', params.lastSeenAt);
  const sortBy = params.sortBy ?? 'createdAt';
  const desc = params.sortOrder === 'desc';
  const byEnvironment = sortBy.startsWith('environment:') ? sortBy.split(':')[1] ?? '' : null;
  const byLastSeen = sortBy === 'lastSeenAt';

  const { offset, limit } = pageOf(params);
  // Sorted by the flag's own fields, the kept order is the answer's: only the page's flags are
  // built, the others counted. Sorted by environment or last-seen time, all are built and sorted.
  const presorted = byEnvironment === null && !byLastSeen;
  let total = 0;
  const matched: Restricted[] = [];
  const sortValues = new Map<Restricted, number | null>();
  const ordered = presorted ? flagOrder(index, sortBy, desc) : index.flags;
  // Favourites first keeps each part in the sort's order (measured); only `true` asks for it.
  const favoritesFirst = params.favoritesFirst === 'true' && usage.favorites.size > 0;
  const source = favoritesFirst && presorted
    ? [...ordered.filter(isFavorite), ...ordered.filter((e) => !isFavorite(e))]
    : ordered;
  next: for (const entry of source) {
    for (const p of predicates) if (!p(entry)) continue next;
    let envs: readonly EnvRow[] = entry.envs;
    if (statuses.length > 0) {
      envs = envs.filter((env) => statuses.some(([name, enabled]) => env.name === name && env.enabled === enabled));
      if (envs.length === 0) continue;
    }
    // Per environment only: measured, an environment never seen does not take the flag's latest
    // time (lc1, seen in development, keeps only development under lastSeenAt=IS_ON_OR_AFTER).
    const seen = seenTest || byLastSeen ? usage.lastSeen.get(entry.flag.name) : undefined;
    const envSeen = (env: EnvRow) => seen?.get(env.name)?.getTime() ?? null;
    if (seenTest) {
      envs = envs.filter((env) => seenTest(envSeen(env)));
      if (envs.length === 0) continue;
    }
    total++;
    if (presorted && (total <= offset || total > offset + limit)) continue;
    const tags = tag?.narrows ? entry.tags.filter((t) => tag.values.has(t.key)) : entry.tags;
    const item: Restricted = { entry, envs, tags, segments: entry.segments };
    matched.push(item);
    if (byEnvironment !== null) {
      const env = envs.find((e) => e.name === byEnvironment);
      sortValues.set(item, env === undefined ? null : Number(env.enabled));
    } else if (byLastSeen) {
      let best: number | null = null;
      for (const env of envs) {
        const t = envSeen(env);
        if (t !== null && (best === null || (desc ? t > best : t < best))) best = t;
      }
      sortValues.set(item, best);
    }
  }
  let sorted = presorted ? matched : matched.sort(byValueThenPosition(sortValues, desc));
  if (favoritesFirst && !presorted) sorted = [...sorted.filter((i) => isFavorite(i.entry)), ...sorted.filter((i) => !isFavorite(i.entry))];
  const items = presorted ? sorted : sorted.slice(offset, offset + limit);
  // Unleash reads the total from the page's rows: a page past the end says 0.
  return { items, total: items.length === 0 ? 0 : total };
}

// ---------------------------------------------------------------------------------------------
// the lifecycle counts

export interface LifecycleCount {
  initial: number;
  preLive: number;
  live: number;
  completed: number;
  archived: number;
}

export function lifecycleCount(index: SearchIndex): LifecycleCount {
  const count: LifecycleCount = { initial: 0, preLive: 0, live: 0, completed: 0, archived: 0 };
  for (const e of index.flags) {
    if (e.stage === 'pre-live') count.preLive++;
    else count[e.stage]++;
  }
  return count;
}
