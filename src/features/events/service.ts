import { LRUCache } from 'lru-cache';
import type { Filter } from 'mongodb';
import {
  SearchBudgetExceeded, type EventDocument, type EventLog, type LogQuery, type SearchCriteria, type StoredEvent,
} from '../../db/event-log/index.js';
import { schemaValidationError, serviceUnavailable, type ApiError } from '../../errors.js';
import { presentEvent, type PresentedEvent } from './presenter.js';

export interface EventSearchQuery {
  query?: string;
  feature?: string;
  project?: string;
  type?: string;
  environment?: string;
  createdBy?: string;
  id?: string;
  groupId?: string;
  from?: string;
  to?: string;
  offset?: string;
  limit?: string;
}

export interface EventSearchResult {
  events: PresentedEvent[];
  total: number;
}

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 1000;

/**
 * How long one search may keep the database busy. A free-text `query` cannot use an index (it is
 * a regular expression over `searchText`), so on a large log it is a collection scan; the server
 * stops it after this budget (maxTimeMS) and the caller gets 503 ServiceUnavailable with a hint to
 * narrow the search, instead of a request that holds a connection for minutes.
 */
export const SEARCH_TIME_BUDGET_MS = 5000;

/** `limit`: Number(limit) when in 1..1000, else 50 (docs/rules.md §4.3: 0, "abc", 5000 → 50). */
export function pageLimit(raw: string | undefined): number {
  const n = Number(raw);
  return raw !== undefined && n > 0 && n <= MAX_LIMIT ? Math.floor(n) : DEFAULT_LIMIT;
}

/** `offset`: Number(offset) when > 0, else 0. */
export function pageOffset(raw: string | undefined): number {
  const n = Number(raw);
  return raw !== undefined && n > 0 && Number.isFinite(n) ? Math.floor(n) : 0;
}

/**
 * `IS:a` / `IS_ANY_OF:a,b` → the trimmed pieces; `IS:` (nothing after the operator) → null, the
 * filter is ignored. The schema pattern has already checked the operator.
 */
export function filterPieces(raw: string | undefined): string[] | null {
  if (raw === undefined) return null;
  const colon = raw.indexOf(':');
  if (colon < 0) return null;
  const rest = raw.slice(colon + 1);
  if (rest === '') return null;
  return rest.split(',').map((piece) => piece.trim());
}

/** Numeric pieces as numbers; a non-numeric piece matches nothing (Unleash answers 500 there). */
function numericPieces(pieces: string[]): number[] {
  return pieces.filter((p) => /^-?\d+(\.\d+)?$/.test(p)).map(Number);
}

const DAY_MS = 86_400_000;

/** `IS:YYYY-MM-DD` → midnight UTC of that day; an impossible date (2024-02-30) → 400. */
export function parseDay(raw: string, param: 'from' | 'to'): Date {
  const [year, month, day] = raw.slice(raw.indexOf(':') + 1).split('-').map(Number) as [number, number, number];
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day); // not Date.UTC: it maps years 0–99 to 1900–1999
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
    const path = `/query/${param}`;
    throw schemaValidationError([
      { message: `The \`${path}\` property must be a valid calendar date. You sent ${JSON.stringify(raw)}.`, path },
    ]);
  }
  return date;
}

/**
 * `ILIKE '%{query}%'` as a regular expression over `searchText` (lower-cased JSON of data, tags
 * and preData joined by NUL): `%` → any run, `_` → any one character, `\x` → a literal x; a
 * wildcard never crosses a NUL, so a match stays inside one of the three texts, as in Unleash.
 */
export function likePattern(query: string): string {
  const NOT_NUL = '[^\\x00]';
  let out = '';
  const chars = [...query.toLowerCase()];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === '\\' && i + 1 < chars.length) {
      out += escapeRegex(chars[++i]!);
    } else if (ch === '%') {
      out += `${NOT_NUL}*`;
    } else if (ch === '_') {
      out += NOT_NUL;
    } else {
      out += escapeRegex(ch);
    }
  }
  return out;
}

function escapeRegex(ch: string): string {
  if (ch === '\u0000') return '\\x00';
  return /[.*+?^${}()|[\]\\/-]/.test(ch) ? `\\${ch}` : ch;
}

function timeBudgetExceeded(budgetMs: number): ApiError {
  return serviceUnavailable(
    `The event search took longer than ${budgetMs} ms and was stopped. Narrow it with type, feature, project, createdBy or from/to filters and try again.`,
    1,
  );
}

/**
 * Presented events kept as JSON (events never change): a page read again — dashboards poll the
 * newest events — is a string join, not 50 parses, presentations and serialisations (the
 * serialisation alone held the small-log bench near 2 600 req/s). An event enters the cache when it
 * is among the newest or is read a second time (its id is remembered, not its JSON): the old events
 * a rare filter's page reaches once are not kept. Keeping them kept every cold page's strings alive
 * into the old generation (at 1 M events, a full collection every ~300 ms: the p99 of such pages).
 */
const PRESENTED_CACHE = 5000;
const READ_ONCE_SLOTS = 1 << 15;

export class EventSearchService {
  constructor(
    private readonly log: EventLog,
    private readonly baseUrl: string,
    options: {
      timeBudgetMs?: number;
      presentedCache?: number;
      /** Searches the database even when the log's copy is ready (tests compare the two). */
      fromDatabase?: boolean;
    } = {},
  ) {
    this.timeBudgetMs = options.timeBudgetMs ?? SEARCH_TIME_BUDGET_MS;
    this.presentedCache = options.presentedCache ?? PRESENTED_CACHE;
    this.fromDatabase = options.fromDatabase ?? false;
    this.presented = new LRUCache<number, string>({ max: Math.max(1, this.presentedCache) });
  }

  private readonly timeBudgetMs: number;
  private readonly presentedCache: number;
  private readonly fromDatabase: boolean;
  private readonly presented: LRUCache<number, string>;
  /**
   * Ids read recently, direct-mapped by their low bits (a later id in the same slot replaces an
   * earlier one): remembering a read costs one store and allocates nothing.
   */
  private readonly readOnce = new Int32Array(READ_ONCE_SLOTS);

  /** The event as the response carries it (presentEvent's key order is the schema's). */
  private presentedJson(id: number, newestId: number): string {
    const cached = this.presented.get(id);
    if (cached !== undefined) return cached;
    const stored = this.log.json(id);
    if (stored === undefined) throw new Error(`event ${id} is indexed but its body is missing`);
    const json = JSON.stringify(presentEvent(JSON.parse(stored) as StoredEvent, this.baseUrl));
    const slot = id & (READ_ONCE_SLOTS - 1);
    if (id > newestId - this.presentedCache || this.readOnce[slot] === id) this.presented.set(id, json);
    else this.readOnce[slot] = id;
    return json;
  }

  /** The search as index criteria and the free-text query: the one reading of the parameters. */
  buildCriteria(q: EventSearchQuery, allProjects: boolean): { criteria: SearchCriteria; like: RegExp | null } {
    const criteria: SearchCriteria = {};
    const strings: Array<[keyof EventSearchQuery, 'features' | 'projects' | 'types' | 'environments']> = [
      ['feature', 'features'], ['project', 'projects'], ['type', 'types'], ['environment', 'environments'],
    ];
    for (const [param, field] of strings) {
      const pieces = filterPieces(q[param]);
      if (pieces) criteria[field] = pieces;
    }
    const users = filterPieces(q.createdBy);
    if (users) criteria.userIds = numericPieces(users);
    const ids = filterPieces(q.id);
    if (ids) criteria.ids = numericPieces(ids).filter((n) => Number.isInteger(n) && n > 0);
    const groups = filterPieces(q.groupId);
    if (groups) criteria.groupIds = groups;
    if (q.from !== undefined) criteria.from = parseDay(q.from, 'from').getTime();
    if (q.to !== undefined) criteria.before = parseDay(q.to, 'to').getTime() + DAY_MS;
    if (!allProjects) criteria.projectRequired = true;
    return { criteria, like: q.query ? new RegExp(likePattern(q.query)) : null };
  }

  /**
   * The MongoDB filter of a search (all conditions AND-ed; docs/rules.md §4.2): the criteria the index
   * uses, rendered field by field, so both paths read the query one way. Every condition is on its
   * own field, so the filter is one flat object: the shape every server plans best.
   */
  buildFilter(q: EventSearchQuery, allProjects = true): Filter<EventDocument> {
    const { criteria } = this.buildCriteria(q, allProjects);
    const filter: Record<string, unknown> = {};
    const equals = (field: keyof EventDocument, values: unknown[] | undefined) => {
      if (values) filter[field] = values.length === 1 ? values[0] : { $in: values };
    };
    equals('featureName', criteria.features);
    equals('project', criteria.projects);
    equals('type', criteria.types);
    equals('environment', criteria.environments);
    equals('createdByUserId', criteria.userIds);
    equals('id', criteria.ids);
    // Our group ids are strings (UUIDs), so pieces compare as strings: a numeric piece still
    // matches nothing, and the id of a transaction can actually be looked up.
    equals('groupId', criteria.groupIds);
    if (criteria.projectRequired && !criteria.projects) filter.project = { $ne: null };
    const range: { $gte?: Date; $lt?: Date } = {};
    if (criteria.from !== undefined) range.$gte = new Date(criteria.from);
    if (criteria.before !== undefined) range.$lt = new Date(criteria.before);
    if (range.$gte || range.$lt) filter.createdAt = range;
    // `$ne: ''`: an event without data, preData and tags has no text to match, even for `%`.
    if (q.query) filter.searchText = { $regex: likePattern(q.query), $ne: '' };
    return filter;
  }

  /**
   * `allProjects: false` for callers that are not root admins: they see only events that belong
   * to a project (docs/rules.md §4.2). Admin tokens see everything.
   */
  async search(q: EventSearchQuery, options: { allProjects?: boolean } = {}): Promise<EventSearchResult> {
    return JSON.parse(await this.searchBody(q, options)) as EventSearchResult;
  }

  /** The response body, `{"events":[…],"total":n}`, as the route sends it. */
  async searchBody(q: EventSearchQuery, options: { allProjects?: boolean } = {}): Promise<string> {
    const allProjects = options.allProjects !== false;
    const query: LogQuery = { ...this.buildCriteria(q, allProjects), filter: () => this.buildFilter(q, allProjects) };
    let page;
    try {
      page = await this.log.search(query, pageOffset(q.offset), pageLimit(q.limit), {
        budgetMs: this.timeBudgetMs, fromDatabase: this.fromDatabase,
      });
    } catch (err) {
      if (err instanceof SearchBudgetExceeded) throw timeBudgetExceeded(err.budgetMs);
      throw err;
    }
    if (page.from === 'copy') {
      return `{"events":[${page.ids.map((id) => this.presentedJson(id, page.newestId)).join(',')}],"total":${page.total}}`;
    }
    const result: EventSearchResult = { events: page.events.map((e) => presentEvent(e, this.baseUrl)), total: page.total };
    return JSON.stringify(result);
  }
}
