/**
 * The event log's search index: every event's filterable fields in columns (typed arrays indexed
 * by event id), plus the ids in response order. Pure (no I/O); the mirror (log-mirror.ts) fills it.
 *
 * Why in memory: the search must answer any AND-combination of filters with an exact `total` in
 * milliseconds at a million events. A database index can serve one equality filter's page, but
 * counting 200 000 matches or intersecting two filters still touches every match; a column scan
 * touches 30 bytes per event (1 M events: about 2 ms) whatever the combination. On FerretDB, which
 * uses no secondary index, the database cannot serve even one filter without reading the whole log.
 *
 * A flag filter, the rarest common one (a flag holds a few hundred of a million events), reads the
 * flag's own list of events instead of scanning: at 1 M events 0.05 ms instead of 2 ms.
 *
 * Memory: about 49 bytes per event (1 M events: ≈ 49 MB), plus one dictionary entry per distinct
 * type, project, flag and environment. Group ids are kept as 32-bit hashes (a UUID string per event
 * would cost more than everything else together); a group filter is therefore a candidate filter
 * that the caller confirms against the event itself (see `SearchPlan.confirm`).
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

/** Codes for one column's values: 0 is null; codes are never reused. */
class Dictionary<V extends string | number = string> {
  private readonly codes = new Map<V, number>();

  code(value: V | null): number {
    if (value === null) return 0;
    let code = this.codes.get(value);
    if (code === undefined) {
      code = this.codes.size + 1;
      this.codes.set(value, code);
    }
    return code;
  }

  /** The code of a value already seen, else undefined (the value matches no event). */
  find(value: V): number | undefined {
    return this.codes.get(value);
  }

  get size(): number {
    return this.codes.size + 1;
  }
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

/**
 * Ids in (createdAt, id) order, in a growable array: the whole log's response order, and each
 * flag's own events. `at` is the index's createdAt column (passed in: it is reallocated as it grows).
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
    const ids = this.ids;
    let position = this.length;
    if (position > 0 && sortsBefore(at, id, ids[position - 1]!)) {
      let lo = 0;
      let hi = position - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (sortsBefore(at, id, ids[mid]!)) hi = mid;
        else lo = mid + 1;
      }
      position = lo;
      ids.copyWithin(position + 1, position, this.length);
    }
    ids[position] = id;
    this.length++;
  }

  /** Takes an id out (rare: a claim that turned out void), so a linear shift is fine. */
  remove(id: number, at: Float64Array): void {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sortsBefore(at, this.ids[mid]!, id)) lo = mid + 1;
      else hi = mid;
    }
    if (this.ids[lo] !== id) return;
    this.ids.copyWithin(lo, lo + 1, this.length);
    this.length--;
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

/** A column test: `allowed[code]` for dictionary columns. */
type CodeTest = Uint8Array | null;

export class EventLogIndex {
  private present = new Uint8Array(0);
  private at = new Float64Array(0);
  private type = new Uint32Array(0);
  private project = new Uint32Array(0);
  private feature = new Uint32Array(0);
  private environment = new Uint32Array(0);
  private user = new Uint32Array(0);
  private group = new Uint32Array(0);
  /** Ids ordered by (createdAt, id) ascending; the search walks it backwards (newest first). */
  private readonly order = new OrderedIds(1024);
  /**
   * Each flag's events (by flag code), in the same order. A flag holds a few hundred of a million
   * events: walking its list instead of the whole order is what makes `feature=IS:…` cheap.
   * (Flags only: every other column has few values, each matching a large share of the log.)
   */
  private readonly flagEvents: OrderedIds[] = [];

  private readonly types = new Dictionary();
  private readonly projects = new Dictionary();
  private readonly features = new Dictionary();
  private readonly environments = new Dictionary();
  private readonly users = new Dictionary<number>();

  get size(): number {
    return this.order.length;
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
    this.at[id] = event.at;
    this.type[id] = this.types.code(event.type);
    this.project[id] = this.projects.code(event.project);
    this.feature[id] = this.features.code(event.featureName);
    this.environment[id] = this.environments.code(event.environment);
    this.user[id] = this.users.code(event.createdByUserId);
    this.group[id] = groupHashOf(event);
    this.order.insert(id, this.at);
    const flag = this.feature[id]!;
    if (flag !== 0) (this.flagEvents[flag] ??= new OrderedIds(16)).insert(id, this.at);
    return true;
  }

  private ensureCapacity(length: number): void {
    this.present = grow(this.present, length);
    this.at = grow(this.at, length);
    this.type = grow(this.type, length);
    this.project = grow(this.project, length);
    this.feature = grow(this.feature, length);
    this.environment = grow(this.environment, length);
    this.user = grow(this.user, length);
    this.group = grow(this.group, length);
  }

  /** Takes an event out (only for a claim that turned out void). */
  remove(id: number): boolean {
    if (!this.has(id)) return false;
    this.order.remove(id, this.at);
    this.flagEvents[this.feature[id]!]?.remove(id, this.at);
    this.present[id] = 0;
    return true;
  }

  /** `allowed[code]` for the values asked for; 'none' when no value is known (nothing matches). */
  private codeTest<V extends string | number>(dictionary: Dictionary<V>, values: V[] | undefined): CodeTest | 'none' {
    if (!values) return null;
    const allowed = new Uint8Array(dictionary.size);
    let any = false;
    for (const value of values) {
      const code = dictionary.find(value);
      if (code !== undefined) {
        allowed[code] = 1;
        any = true;
      }
    }
    return any ? allowed : 'none';
  }

  /** Projects asked for, and/or "any project" for callers that may not see events outside one. */
  private projectTest(criteria: SearchCriteria): CodeTest | 'none' {
    const test = this.codeTest(this.projects, criteria.projects);
    if (test !== null || !criteria.projectRequired) return test; // a named project is never null
    const anyProject = new Uint8Array(this.projects.size).fill(1);
    anyProject[0] = 0;
    return anyProject;
  }

  /**
   * The matching ids newest first: `visit(id)` for each until it returns false. Group ids match
   * by hash: callers that filter on groups confirm each visited event (collisions are possible).
   *
   * Every dictionary condition (type, project, flag, environment, user) is a lookup table indexed
   * by the row's code, so a row costs one typed-array read and one table read per condition.
   * (Measured at 1 M events: a Set of user ids per row took 60 ms, a table a few.)
   */
  scan(criteria: SearchCriteria, visit: (id: number) => boolean): void {
    const columns: Uint32Array[] = [];
    const tables: Uint8Array[] = [];
    const conditions: Array<[Uint32Array, CodeTest | 'none']> = [
      [this.type, this.codeTest(this.types, criteria.types)],
      [this.feature, this.codeTest(this.features, criteria.features)],
      [this.project, this.projectTest(criteria)],
      [this.environment, this.codeTest(this.environments, criteria.environments)],
      [this.user, this.codeTest(this.users, criteria.userIds)],
    ];
    for (const [column, test] of conditions) {
      if (test === 'none') return;
      if (test) {
        columns.push(column);
        tables.push(test);
      }
    }
    const hashes = criteria.groupIds ? [...new Set(criteria.groupIds.map(groupHash))] : null;
    if (hashes && hashes.length === 0) return;
    const oneHash = hashes && hashes.length === 1 ? hashes[0]! : 0;
    const group = this.group;
    const conditionCount = columns.length;
    const matches = (id: number): boolean => {
      for (let k = 0; k < conditionCount; k++) if (tables[k]![columns[k]![id]!] !== 1) return false;
      if (hashes !== null && (oneHash !== 0 ? group[id] !== oneHash : !hashes.includes(group[id]!))) return false;
      return true;
    };

    if (criteria.ids) {
      // A few ids: test them directly instead of walking the log.
      const at = this.at;
      const ids = [...new Set(criteria.ids)].filter((id) => this.has(id)).sort((a, b) => (sortsBefore(at, a, b) ? 1 : -1));
      for (const id of ids) {
        const at = this.at[id]!;
        if (criteria.from !== undefined && at < criteria.from) continue;
        if (criteria.before !== undefined && at >= criteria.before) continue;
        if (matches(id) && !visit(id)) return;
      }
      return;
    }

    const [first, end] = this.order.range(criteria.from, criteria.before, this.at);
    if (criteria.features && this.scanFlagEvents(criteria, end - first, matches, visit)) return;
    const order = this.order.ids;
    if (conditionCount === 1 && hashes === null) {
      // The most common search, one filter: no inner loop.
      const column = columns[0]!;
      const table = tables[0]!;
      for (let position = end - 1; position >= first; position--) {
        const id = order[position]!;
        if (table[column[id]!] === 1 && !visit(id)) return;
      }
      return;
    }
    if (conditionCount === 0 && oneHash !== 0) {
      for (let position = end - 1; position >= first; position--) {
        const id = order[position]!;
        if (group[id] === oneHash && !visit(id)) return;
      }
      return;
    }
    if (conditionCount === 0) {
      for (let position = end - 1; position >= first; position--) {
        const id = order[position]!;
        if (matches(id) && !visit(id)) return;
      }
      return;
    }
    // Several conditions: the most selective one (the largest dictionary: flags before users,
    // projects, types) runs the one-filter loop; the few rows it keeps are tested for the rest.
    // (A per-row loop over all conditions was ~10× slower than one condition at 1 M events.)
    let lead = 0;
    for (let k = 1; k < conditionCount; k++) if (tables[k]!.length > tables[lead]!.length) lead = k;
    const column = columns[lead]!;
    const table = tables[lead]!;
    columns.splice(lead, 1);
    tables.splice(lead, 1);
    const rest = conditionCount - 1;
    for (let position = end - 1; position >= first; position--) {
      const id = order[position]!;
      if (table[column[id]!] !== 1) continue;
      let ok = true;
      for (let k = 0; k < rest && ok; k++) ok = tables[k]![columns[k]![id]!] === 1;
      if (ok && hashes !== null) ok = oneHash !== 0 ? group[id] === oneHash : hashes.includes(group[id]!);
      if (ok && !visit(id)) return;
    }
  }

  /**
   * The scan over the flags' own lists, when they hold fewer candidates than the range of the
   * whole order would cost (one list: walked as is; several: merged by sorting, so they must be
   * far fewer). False when the caller should scan the order instead.
   */
  private scanFlagEvents(criteria: SearchCriteria, rowsInRange: number, matches: (id: number) => boolean, visit: (id: number) => boolean): boolean {
    const slices: Array<[OrderedIds, number, number]> = [];
    let candidates = 0;
    for (const name of new Set(criteria.features)) {
      const code = this.features.find(name);
      const list = code === undefined ? undefined : this.flagEvents[code];
      if (!list) continue;
      const [first, end] = list.range(criteria.from, criteria.before, this.at);
      if (end > first) {
        slices.push([list, first, end]);
        candidates += end - first;
      }
    }
    if (candidates * (slices.length > 1 ? 16 : 2) > rowsInRange) return false;
    if (slices.length === 1) {
      const [list, first, end] = slices[0]!;
      const ids = list.ids;
      for (let position = end - 1; position >= first; position--) {
        const id = ids[position]!;
        if (matches(id) && !visit(id)) return true;
      }
      return true;
    }
    const merged = new Int32Array(candidates);
    let filled = 0;
    for (const [list, first, end] of slices) {
      merged.set(list.ids.subarray(first, end), filled);
      filled += end - first;
    }
    const at = this.at;
    const ids = Array.from(merged).sort((a, b) => (sortsBefore(at, a, b) ? 1 : -1));
    for (const id of ids) if (matches(id) && !visit(id)) return true;
    return true;
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
    const ids: number[] = [];
    let total = 0;
    this.scan(criteria, (id) => {
      if (total >= offset && ids.length < limit) ids.push(id);
      total++;
      return true;
    });
    return { ids, total };
  }

  private unfiltered(c: SearchCriteria): boolean {
    return !c.types && !c.projects && !c.features && !c.environments && !c.userIds && !c.ids && !c.groupIds && !c.projectRequired;
  }
}
