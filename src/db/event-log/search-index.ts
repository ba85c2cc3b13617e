/**
 * The event log's search index: every event's filterable fields in columns (typed arrays indexed
 * by event id), plus the ids in response order. Pure (no I/O); the mirror (mirror.ts) fills it.
 *
 * Why in memory: the search must answer any AND-combination of filters with an exact `total` in
 * milliseconds at a million events. A database index can serve one equality filter's page, but
 * counting 200 000 matches or intersecting two filters still touches every match; a column scan
 * touches 30 bytes per event (1 M events: about 2 ms) whatever the combination. On FerretDB, which
 * uses no secondary index, the database cannot serve even one filter without reading the whole log.
 *
 * Shortcuts keep the common searches from scanning the log (measured at 1 M events):
 * - type, project, flag and user keep each value's events in a list, in response order: a search
 *   walks the lists of its most selective condition within the date range (binary search), testing
 *   the other conditions on those rows only; alone, that condition's total is the lists' length.
 *   A flag (a few hundred of a million events): 2 → 0.01 ms; type + project + user: 4.3 → 0.3 ms;
 * - one condition without lists (environment) over the whole log: each column counts its events
 *   per value, so `total` is a sum and the walk stops at the page;
 * - matches leave the loops in chunks, not one call each (a million calls cost ~5 ms).
 * Only a condition without a short list — an environment within a date range — walks the range.
 *
 * Memory: about 65 bytes per event (1 M events: ≈ 85 MiB with the lists' growth room), plus one
 * dictionary entry per distinct type, project, flag and environment. Group ids are kept as 32-bit
 * hashes (a UUID string per event would cost more than everything else together); a group filter
 * is therefore a candidate filter that the caller confirms against the event itself (`scan`).
 */

export interface IndexedEvent {
  id: number;
  /** createdAt in epoch milliseconds. */
  at: number;
  type: string;
  project: string | null;
  featureName: string | null;
  environment: string | null;
  createdByUserId: number | null;
  groupId?: string | null;
  /** The group's hash when the id itself is not at hand (decoded from a sealed block). */
  groupHash?: number;
}

/** What to match: every present list means "equals any of these"; all conditions AND-ed. */
export interface SearchCriteria {
  types?: string[];
  projects?: string[];
  features?: string[];
  environments?: string[];
  userIds?: number[];
  ids?: number[];
  groupIds?: string[];
  /** Only events that belong to a project (callers that are not root admins). */
  projectRequired?: boolean;
  /** createdAt ≥ from (epoch ms). */
  from?: number;
  /** createdAt < before (epoch ms). */
  before?: number;
}

export interface SearchPage {
  /** Ids of the requested page, newest first. */
  ids: number[];
  total: number;
}

/** FNV-1a, 32 bits; never 0 (0 marks "no group"). */
export function groupHash(groupId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < groupId.length; i++) {
    h ^= groupId.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) || 1;
}

/** An event's group hash: the one it carries (decoded from a block) or its group id's; 0 for none. */
export function groupHashOf(event: IndexedEvent): number {
  return event.groupHash ?? (event.groupId ? groupHash(event.groupId) : 0);
}

function grow<T extends Float64Array | Uint32Array | Int32Array | Uint8Array>(array: T, minLength: number, initial = 1024): T {
  if (array.length >= minLength) return array;
  let length = Math.max(array.length * 2, initial);
  while (length < minLength) length *= 2;
  const next = new (array.constructor as new (n: number) => T)(length);
  next.set(array);
  return next;
}

/** (at, id) of `a` sorts before that of `b`. */
function sortsBefore(at: Float64Array, a: number, b: number): boolean {
  const atA = at[a]!;
  const atB = at[b]!;
  return atA < atB || (atA === atB && a < b);
}

/** Two runs of ids in (createdAt, id) order as one. */
function mergeInOrder(a: Int32Array, b: Int32Array, at: Float64Array): Int32Array {
  const out = new Int32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) out[n++] = sortsBefore(at, b[j]!, a[i]!) ? b[j++]! : a[i++]!;
  while (i < a.length) out[n++] = a[i++]!;
  while (j < b.length) out[n++] = b[j++]!;
  return out;
}

/**
 * Ids in (createdAt, id) order, in a growable array: the whole log's response order, and each
 * listed value's own events. `at` is the index's createdAt column (passed in: it is reallocated as
 * it grows).
 */
class OrderedIds {
  ids = new Int32Array(0);
  length = 0;

  constructor(private readonly initialCapacity: number) {}

  /**
   * Events arrive nearly in order (ids are given out at flush time, createdAt a moment earlier),
   * so the new id is almost always appended; a late one is placed by binary search and the tail
   * shifted (a memmove of the few newer ids).
   */
  insert(id: number, at: Float64Array): void {
    this.ids = grow(this.ids, this.length + 1, this.initialCapacity);
    let position = this.length;
    if (position > 0 && sortsBefore(at, id, this.ids[position - 1]!)) {
      position = this.positionOf(id, at);
      this.ids.copyWithin(position + 1, position, this.length);
    }
    this.ids[position] = id;
    this.length++;
  }

  /** Takes an id out (rare: a claim that turned out void), so a linear shift is fine. */
  remove(id: number, at: Float64Array): void {
    const position = this.positionOf(id, at);
    if (this.ids[position] !== id) return;
    this.ids.copyWithin(position, position + 1, this.length);
    this.length--;
  }

  /** Where `id` is, or would go: the first position whose id does not sort before it. */
  private positionOf(id: number, at: Float64Array): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sortsBefore(at, this.ids[mid]!, id)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First position whose createdAt is ≥ `time`. */
  lowerBound(time: number, at: Float64Array): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (at[this.ids[mid]!]! < time) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Positions [first, end) of the ids created in [from, before). */
  range(from: number | undefined, before: number | undefined, at: Float64Array): [number, number] {
    return [from === undefined ? 0 : this.lowerBound(from, at), before === undefined ? this.length : this.lowerBound(before, at)];
  }
}

/**
 * One dictionary-coded column: each event's value as a code (0 is null; codes are never reused),
 * and how many events hold each code, so a one-filter search over the whole log knows its total
 * without counting.
 */
class CodedColumn<V extends string | number = string> {
  /** By event id. */
  codes = new Uint32Array(0);
  private counts = new Uint32Array(0);
  private readonly dictionary = new Map<V, number>();
  /** Per value (not null), its events in (createdAt, id) order, when the column keeps lists. */
  readonly lists: OrderedIds[] | null;

  constructor(listed: boolean) {
    this.lists = listed ? [] : null;
  }

  ensureCapacity(length: number): void {
    this.codes = grow(this.codes, length);
  }

  /** Records the event's value; `at` is the index's createdAt column, for the value's list. */
  set(id: number, value: V | null, at: Float64Array): number {
    let code = 0;
    if (value !== null) {
      code = this.dictionary.get(value) ?? 0;
      if (code === 0) {
        code = this.dictionary.size + 1;
        this.dictionary.set(value, code);
      }
    }
    this.codes[id] = code;
    this.counts = grow(this.counts, code + 1, 16);
    this.counts[code] = this.counts[code]! + 1;
    if (this.lists && code !== 0) (this.lists[code] ??= new OrderedIds(16)).insert(id, at);
    return code;
  }

  unset(id: number, at: Float64Array): void {
    const code = this.codes[id]!;
    this.counts[code] = this.counts[code]! - 1;
    if (this.lists && code !== 0) this.lists[code]?.remove(id, at);
  }

  /** The code of a value already seen, else undefined (the value matches no event). */
  find(value: V): number | undefined {
    return this.dictionary.get(value);
  }

  /** `allowed[code]` for the values asked for; null when not asked; 'none' when no value is known. */
  test(values: V[] | undefined): Uint8Array | null | 'none' {
    if (!values) return null;
    const allowed = new Uint8Array(this.dictionary.size + 1);
    let any = false;
    for (const value of values) {
      const code = this.dictionary.get(value);
      if (code !== undefined) {
        allowed[code] = 1;
        any = true;
      }
    }
    return any ? allowed : 'none';
  }

  /** Every code but null's: "has a value". */
  anyValue(): Uint8Array {
    const allowed = new Uint8Array(this.dictionary.size + 1).fill(1);
    allowed[0] = 0;
    return allowed;
  }

  /** Events holding any allowed code. */
  countOf(allowed: Uint8Array): number {
    let total = 0;
    for (let code = 0; code < allowed.length; code++) if (allowed[code] === 1) total += this.counts[code] ?? 0;
    return total;
  }
}

/**
 * A search made ready to run: its dictionary conditions as (column codes, allowed table) pairs,
 * its group hashes, and where to walk — positions [first, end) of `source`, an id list in
 * (createdAt, id) order, walked backwards (newest first).
 */
interface Plan {
  columns: Uint32Array[];
  tables: Uint8Array[];
  hashes: number[] | null;
  source: Int32Array;
  first: number;
  end: number;
  /**
   * The number of matches when it is known without walking: the lists' length in range (the listed
   * condition alone), or the counts (one condition over the whole log).
   */
  knownTotal?: number;
}

/** Matches are handed over in chunks: no call per match in the loops (a million calls cost ~5 ms). */
const CHUNK = 1024;

export class EventLogIndex {
  private present = new Uint8Array(0);
  private at = new Float64Array(0);
  private group = new Uint32Array(0);
  /**
   * Coded columns; all but the environment also keep each value's events in a list (4 bytes per
   * event each), so a search walks only the events of its most selective value, not the log.
   * (Environments are few and each holds a large share: a list would rarely be the shorter walk.)
   */
  private readonly type = new CodedColumn(true);
  private readonly project = new CodedColumn(true);
  private readonly feature = new CodedColumn(true);
  private readonly environment = new CodedColumn(false);
  private readonly user = new CodedColumn<number>(true);
  private readonly coded: ReadonlyArray<CodedColumn<string> | CodedColumn<number>> = [this.type, this.project, this.feature, this.environment, this.user];
  /** Ids ordered by (createdAt, id) ascending; the search walks it backwards (newest first). */
  private readonly order = new OrderedIds(1024);
  private readonly chunk = new Int32Array(CHUNK);
  private newest = 0;

  get size(): number {
    return this.order.length;
  }

  /** The highest id ever added. */
  get newestId(): number {
    return this.newest;
  }

  has(id: number): boolean {
    return id > 0 && id < this.present.length && this.present[id] === 1;
  }

  /** Adds an event; false when its id is indexed already (events are immutable). */
  add(event: IndexedEvent): boolean {
    const { id } = event;
    if (!Number.isInteger(id) || id <= 0 || id > 0x7fffffff) throw new RangeError(`event id ${id} out of range`);
    if (this.has(id)) return false;
    this.ensureCapacity(id + 1);
    this.present[id] = 1;
    if (id > this.newest) this.newest = id;
    this.at[id] = event.at;
    this.group[id] = groupHashOf(event);
    this.order.insert(id, this.at);
    this.type.set(id, event.type, this.at);
    this.project.set(id, event.project, this.at);
    this.feature.set(id, event.featureName, this.at);
    this.environment.set(id, event.environment, this.at);
    this.user.set(id, event.createdByUserId, this.at);
    return true;
  }

  private ensureCapacity(length: number): void {
    this.present = grow(this.present, length);
    this.at = grow(this.at, length);
    this.group = grow(this.group, length);
    for (const column of this.coded) column.ensureCapacity(length);
  }

  /** Takes an event out (only for a claim that turned out void). */
  remove(id: number): boolean {
    if (!this.has(id)) return false;
    this.order.remove(id, this.at);
    for (const column of this.coded) column.unset(id, this.at);
    this.present[id] = 0;
    return true;
  }

  /**
   * The search as a plan, or null when nothing can match (a value no event has).
   *
   * Every dictionary condition (type, project, flag, environment, user) is a lookup table indexed
   * by the row's code, so a row costs one typed-array read and one table read per condition.
   * (Measured at 1 M events: a Set of user ids per row took 60 ms, a table a few.)
   */
  private plan(criteria: SearchCriteria): Plan | null {
    const conditions: Array<[CodedColumn<string> | CodedColumn<number>, Uint8Array | null | 'none']> = [
      [this.type, this.type.test(criteria.types)],
      [this.feature, this.feature.test(criteria.features)],
      // A named project is never null; callers that may not see events outside a project get
      // "any project" when they name none.
      [this.project, criteria.projects || !criteria.projectRequired ? this.project.test(criteria.projects) : this.project.anyValue()],
      [this.environment, this.environment.test(criteria.environments)],
      [this.user, this.user.test(criteria.userIds)],
    ];
    const columns: Uint32Array[] = [];
    const tables: Uint8Array[] = [];
    const coded: Array<CodedColumn<string> | CodedColumn<number>> = [];
    for (const [column, test] of conditions) {
      if (test === 'none') return null;
      if (test) {
        columns.push(column.codes);
        tables.push(test);
        coded.push(column);
      }
    }
    const hashes = criteria.groupIds ? [...new Set(criteria.groupIds.map(groupHash))] : null;
    if (hashes && hashes.length === 0) return null;
    const plan: Plan = { columns, tables, hashes, source: this.order.ids, first: 0, end: 0 };

    if (criteria.ids) {
      // A few ids: test them directly instead of walking the log (nothing to reorder: few rows).
      const at = this.at;
      const ids = [...new Set(criteria.ids)].filter((id) => this.has(id)
        && (criteria.from === undefined || at[id]! >= criteria.from) && (criteria.before === undefined || at[id]! < criteria.before));
      plan.source = Int32Array.from(ids.sort((a, b) => (sortsBefore(at, a, b) ? -1 : 1)));
      plan.end = plan.source.length;
      return plan;
    }
    [plan.first, plan.end] = this.order.range(criteria.from, criteria.before, this.at);
    const listed = this.shortestLists(coded, tables, criteria);
    if (listed && listed.candidates * (listed.slices.length > 1 ? 16 : 2) <= plan.end - plan.first) {
      // Walk the most selective condition's lists: they hold only its events, so it is met by
      // construction, and without other conditions their length in range is the total.
      this.walkLists(plan, listed.slices, listed.candidates);
      columns.splice(listed.condition, 1);
      tables.splice(listed.condition, 1);
      if (columns.length === 0 && hashes === null) plan.knownTotal = listed.candidates;
    } else if (columns.length === 1 && hashes === null && plan.first === 0 && plan.end === this.order.length) {
      plan.knownTotal = coded[0]!.countOf(tables[0]!);
    }
    // The most selective remaining condition leads: the largest dictionary (flags before users,
    // projects, types). (A loop testing all conditions alike was ~10× slower than one at 1 M events.)
    let lead = 0;
    for (let k = 1; k < tables.length; k++) if (tables[k]!.length > tables[lead]!.length) lead = k;
    if (lead !== 0) {
      [columns[0], columns[lead]] = [columns[lead]!, columns[0]!];
      [tables[0], tables[lead]] = [tables[lead]!, tables[0]!];
    }
    return plan;
  }

  /**
   * Of the conditions on listed columns, the one whose allowed values hold the fewest events in the
   * date range: its lists' slices in range and their total length. Undefined without such a condition.
   */
  private shortestLists(coded: Array<CodedColumn<string> | CodedColumn<number>>, tables: Uint8Array[], criteria: SearchCriteria):
    { condition: number; slices: Array<[OrderedIds, number, number]>; candidates: number } | undefined {
    let best: { condition: number; slices: Array<[OrderedIds, number, number]>; candidates: number } | undefined;
    coded.forEach((column, condition) => {
      if (!column.lists) return;
      const table = tables[condition]!;
      const slices: Array<[OrderedIds, number, number]> = [];
      let candidates = 0;
      for (let code = 1; code < table.length; code++) {
        const list = table[code] === 1 ? column.lists[code] : undefined;
        if (!list) continue;
        const [first, end] = list.range(criteria.from, criteria.before, this.at);
        if (end > first) {
          slices.push([list, first, end]);
          candidates += end - first;
        }
        if (best && candidates >= best.candidates) return;
      }
      best = { condition, slices, candidates };
    });
    return best;
  }

  /** Points the plan at lists' slices: one walked as is; several merged (pairwise, each in order). */
  private walkLists(plan: Plan, slices: Array<[OrderedIds, number, number]>, candidates: number): void {
    if (slices.length === 1) {
      [plan.source, plan.first, plan.end] = [slices[0]![0].ids, slices[0]![1], slices[0]![2]];
      return;
    }
    let runs: Int32Array[] = slices.map(([list, first, end]) => list.ids.subarray(first, end));
    while (runs.length > 1) {
      const next: Int32Array[] = [];
      for (let k = 0; k < runs.length; k += 2) next.push(k + 1 < runs.length ? mergeInOrder(runs[k]!, runs[k + 1]!, this.at) : runs[k]!);
      runs = next;
    }
    [plan.source, plan.first, plan.end] = [runs[0]!, 0, candidates];
  }

  /**
   * Writes the plan's next matches (newest first) into `out`, moving `plan.end` down past the rows
   * read; returns how many. Fewer than `out.length` means the plan is exhausted. The loop is written
   * out per shape: the common ones have no inner loop.
   */
  private fill(plan: Plan, out: Int32Array): number {
    const { source, first, columns, tables, hashes } = plan;
    const group = this.group;
    const room = out.length;
    let n = 0;
    let position = plan.end - 1;
    const oneHash = hashes !== null && hashes.length === 1 ? hashes[0]! : 0;
    if (hashes === null && columns.length === 0) {
      for (; position >= first && n < room; position--) out[n++] = source[position]!;
    } else if (hashes === null && columns.length === 1) {
      // The most common search, one filter.
      const column = columns[0]!;
      const table = tables[0]!;
      for (; position >= first && n < room; position--) {
        const id = source[position]!;
        if (table[column[id]!] === 1) out[n++] = id;
      }
    } else if (columns.length === 0 && oneHash !== 0) {
      for (; position >= first && n < room; position--) {
        const id = source[position]!;
        if (group[id] === oneHash) out[n++] = id;
      }
    } else {
      // Several conditions (the most selective first, see plan()): the lead rejects most rows
      // with one read; the rows it keeps are tested for the rest.
      const lead = columns.length > 0 ? columns[0]! : null;
      const leadTable = lead !== null ? tables[0]! : null;
      const count = columns.length;
      for (; position >= first && n < room; position--) {
        const id = source[position]!;
        if (lead !== null && leadTable![lead[id]!] !== 1) continue;
        let ok = true;
        for (let k = 1; k < count && ok; k++) ok = tables[k]![columns[k]![id]!] === 1;
        if (ok && hashes !== null) ok = oneHash !== 0 ? group[id] === oneHash : hashes.includes(group[id]!);
        if (ok) out[n++] = id;
      }
    }
    plan.end = position + 1;
    return n;
  }

  /**
   * The matching ids newest first: `visit(id)` for each until it returns false. Group ids match
   * by hash: callers that filter on groups confirm each visited event (collisions are possible).
   */
  scan(criteria: SearchCriteria, visit: (id: number) => boolean): void {
    const plan = this.plan(criteria);
    if (!plan) return;
    const chunk = new Int32Array(CHUNK);
    for (;;) {
      const n = this.fill(plan, chunk);
      for (let k = 0; k < n; k++) if (!visit(chunk[k]!)) return;
      if (n < CHUNK) return;
    }
  }

  /** One page (newest first) and the number of matches, for criteria without group ids. */
  search(criteria: SearchCriteria, offset: number, limit: number): SearchPage {
    if (criteria.groupIds) throw new Error('group ids match by hash: scan and confirm instead');
    if (this.unfiltered(criteria)) {
      // Only a date range (or nothing): the page is a slice of the order, the total a subtraction.
      const [first, end] = this.order.range(criteria.from, criteria.before, this.at);
      const order = this.order.ids;
      const ids: number[] = [];
      for (let position = end - 1 - offset; position >= first && ids.length < limit; position--) ids.push(order[position]!);
      return { ids, total: Math.max(0, end - first) };
    }
    const plan = this.plan(criteria);
    if (!plan) return { ids: [], total: 0 };
    const wanted = offset + limit;
    const ids: number[] = [];
    let total = 0;
    for (;;) {
      const n = this.fill(plan, this.chunk);
      for (let k = Math.max(0, offset - total); k < n && total + k < wanted; k++) ids.push(this.chunk[k]!);
      total += n;
      if (n < CHUNK) break;
      // One condition over the whole log: the counts gave the total, so stop at the page.
      if (plan.knownTotal !== undefined && total >= wanted) return { ids, total: plan.knownTotal };
    }
    return { ids, total };
  }

  private unfiltered(c: SearchCriteria): boolean {
    return !c.types && !c.projects && !c.features && !c.environments && !c.userIds && !c.ids && !c.groupIds && !c.projectRequired;
  }
}
