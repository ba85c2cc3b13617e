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
 *   the other conditions on those rows only (one read of the most selective one's column rejects
 *   most), so it costs the shortest list in range, not the longest. A flag (a few hundred of a
 *   million events): 2 → 0.01 ms; type + project + user: 4.3 → 0.3 ms (10 M: 2–3 ms at p50, the
 *   140 000 rows of one user's list at 14–24 ns, a read of a 10 MB column each);
 * - alone, that condition's total is the lists' length and only the page is read: one value's list
 *   from its end, several values' lists merged from their ends (two types within a month at 10 M
 *   walked the month's 770 000 positions, or merged the lists, 5.6 ms at p50: now 0.01 ms). With
 *   other conditions, each value's list is walked on its own and only the kept pages are merged;
 * - one condition without lists (environment): each column counts its events per value, over the
 *   whole log and per block of 1 024 positions of the order (block-counts.ts), so `total` is a sum
 *   even within a date range and the walk stops at the page (environment within a month at 10 M:
 *   2.2 → 0.02 ms at p50);
 * - matches leave the loops in chunks, not one call each (a million calls cost ~5 ms).
 * - a group id reads its group's events from a hash table of ids by group hash (group-index.ts;
 *   10 M events: p50 98 ms walking every hash before).
 * Only a search none of whose conditions has a short list (an environment with "any project")
 * walks the whole range.
 *
 * Memory: about 41 bytes per event after a start (bench/event-index.ts: 391 MiB at 10 M events; a
 * start builds the order and lists exactly sized, and codes take one or two bytes), plus one
 * dictionary entry per distinct type, project, flag and environment. (Four-byte codes and lists
 * grown by doubling took about 65 bytes, up to twice that in growth room.) Group ids are kept as 32-bit
 * hashes (a UUID string per event would cost more than everything else together); a group filter
 * is therefore a candidate filter that the caller confirms against the event itself (`scan`).
 */

import { BlockCounts } from './block-counts.js';
import { GroupIndex } from './group-index.js';
import { grow } from './grow.js';

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

/** A coded field of consecutive events: each slot's code into `values` (code c is values[c - 1]; 0 is null). */
export interface CodedSlice<V extends string | number> {
  codes: Codes;
  values: V[];
}

/**
 * The index's fields of `count` consecutive ids from `first`, column by column, each coded column
 * with a dictionary of its own: what an index chunk stores (log-chunks.ts). A slot whose type code
 * is 0 holds no event.
 */
export interface IndexColumns {
  first: number;
  count: number;
  at: Float64Array;
  group: Uint32Array;
  type: CodedSlice<string>;
  project: CodedSlice<string>;
  feature: CodedSlice<string>;
  environment: CodedSlice<string>;
  user: CodedSlice<number>;
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

/** (at, id) of `a` sorts before that of `b`. */
function sortsBefore(at: Float64Array, a: number, b: number): boolean {
  const atA = at[a]!;
  const atB = at[b]!;
  return atA < atB || (atA === atB && a < b);
}

/**
 * Puts ids[0, length) in (createdAt, id) order. Ids come in id order, where an event is at most a
 * flush late (its createdAt a moment before an earlier id's), so an insertion sort moves a few ids
 * a few places; a log out of order beyond that is sorted whole instead.
 */
function sortNearlyOrdered(ids: Int32Array, length: number, at: Float64Array): void {
  let moves = 0;
  const limit = 16 * length + 1024;
  for (let i = 1; i < length; i++) {
    const id = ids[i]!;
    let j = i - 1;
    while (j >= 0 && sortsBefore(at, id, ids[j]!)) {
      ids[j + 1] = ids[j]!;
      j--;
      if (++moves > limit) {
        ids[j + 1] = id;
        const sorted = Array.from(ids.subarray(0, length)).sort((a, b) => (sortsBefore(at, a, b) ? -1 : 1));
        ids.set(sorted);
        return;
      }
    }
    ids[j + 1] = id;
  }
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
  ids: Int32Array = new Int32Array(0);
  length = 0;

  constructor(private readonly initialCapacity: number) {}

  /** Ids already in order (a bulk load), with `room` spare slots for what is appended later. */
  static of(ids: Int32Array, length: number, initialCapacity: number): OrderedIds {
    const list = new OrderedIds(initialCapacity);
    list.ids = ids;
    list.length = length;
    return list;
  }

  /**
   * Events arrive nearly in order (ids are given out at flush time, createdAt a moment earlier),
   * so the new id is almost always appended; a late one is placed by binary search and the tail
   * shifted (a memmove of the few newer ids). Returns the position it took.
   */
  insert(id: number, at: Float64Array): number {
    this.ids = grow(this.ids, this.length + 1, this.initialCapacity);
    let position = this.length;
    if (position > 0 && sortsBefore(at, id, this.ids[position - 1]!)) {
      position = this.positionOf(id, at);
      this.ids.copyWithin(position + 1, position, this.length);
    }
    this.ids[position] = id;
    this.length++;
    return position;
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

/** A column's codes, in the narrowest array that holds its dictionary. */
export type Codes = Uint8Array | Uint16Array | Uint32Array;

/** The narrowest code array for codes up to `highest`. */
export function codesFor(highest: number, length: number): Codes {
  return highest <= 0xff ? new Uint8Array(length) : highest <= 0xffff ? new Uint16Array(length) : new Uint32Array(length);
}

/** Room left after a bulk load: appends grow an array by doubling, from here. */
function roomFor(length: number): number {
  return length + Math.max(16, length >>> 4);
}

/**
 * One dictionary-coded column: each event's value as a code (0 is null; codes are never reused),
 * and how many events hold each code, so a one-filter search over the whole log knows its total
 * without counting.
 *
 * Codes are one byte while the dictionary has at most 255 values, two up to 65 535, four beyond
 * (the array is widened once when a value crosses the line): types, environments, projects and
 * users take one or two bytes per event, not four. At 10 M events that is ~140 MB less than four
 * bytes everywhere. (The search loops read one of three array types; at 1 M events that costs no
 * measurable time against Uint32Array everywhere.)
 */
class CodedColumn<V extends string | number = string> {
  /** By event id. */
  codes: Codes = new Uint8Array(0);
  private counts = new Uint32Array(0);
  private readonly dictionary = new Map<V, number>();
  /** The value of code c is values[c - 1] (each string held once, whatever the number of events). */
  private readonly values: V[] = [];
  /** Per value (not null), its events in (createdAt, id) order, when the column keeps lists. */
  lists: OrderedIds[] | null;
  /** Without lists: each value's events per block of the order (the index keeps it in step). */
  readonly blocks: BlockCounts | null;

  constructor(listed: boolean) {
    this.lists = listed ? [] : null;
    this.blocks = listed ? null : new BlockCounts();
  }

  ensureCapacity(length: number): void {
    this.codes = grow(this.codes, length);
  }

  /** Shrinks the codes to `length` plus room (after a bulk load grew them by doubling). */
  trim(length: number): void {
    if (this.codes.length <= roomFor(length)) return;
    const next = codesFor(this.values.length, roomFor(length));
    next.set(this.codes.subarray(0, Math.min(length, this.codes.length)));
    this.codes = next;
  }

  get bytes(): number {
    let total = this.codes.byteLength + this.counts.byteLength + (this.blocks?.bytes ?? 0);
    for (const list of this.lists ?? []) total += list?.ids.byteLength ?? 0;
    return total;
  }

  /** The code of a value, given one if new (the codes array widened when it needs more bytes). */
  codeOf(value: V | null): number {
    if (value === null) return 0;
    let code = this.dictionary.get(value);
    if (code === undefined) {
      this.values.push(value);
      code = this.values.length;
      this.dictionary.set(value, code);
      if (code === 0x100 || code === 0x10000) {
        const wider = codesFor(code, this.codes.length);
        wider.set(this.codes);
        this.codes = wider;
      }
    }
    return code;
  }

  valueOf(code: number): V | null {
    return code === 0 ? null : this.values[code - 1]!;
  }

  /** Records the event's code; its list is filled by `insert` (or by a bulk load's `buildLists`). */
  setCode(id: number, code: number): void {
    this.codes[id] = code;
    this.counts = grow(this.counts, code + 1, 16);
    this.counts[code] = this.counts[code]! + 1;
  }

  /** Records the event's value; `at` is the index's createdAt column, for the value's list. */
  set(id: number, value: V | null, at: Float64Array): number {
    const code = this.codeOf(value);
    this.setCode(id, code);
    if (this.lists && code !== 0) (this.lists[code] ??= new OrderedIds(16)).insert(id, at);
    return code;
  }

  /**
   * Every value's list from the log's order (a bulk load): sized from the counts, filled in one
   * pass, so each is already in (createdAt, id) order and carries little spare room.
   */
  buildLists(order: Int32Array, length: number): void {
    if (!this.lists) return;
    const lists: Int32Array[] = [];
    const filled = new Uint32Array(this.counts.length);
    for (let code = 1; code < this.counts.length; code++) lists[code] = new Int32Array(roomFor(this.counts[code]!));
    const codes = this.codes;
    for (let position = 0; position < length; position++) {
      const id = order[position]!;
      const code = codes[id]!;
      if (code !== 0) lists[code]![filled[code]!++] = id;
    }
    this.lists = [];
    for (let code = 1; code < lists.length; code++) {
      if (filled[code]! > 0) this.lists[code] = OrderedIds.of(lists[code]!, filled[code]!, 16);
    }
  }

  /** Every value some indexed event holds. */
  held(): V[] {
    return this.values.filter((_, i) => (this.counts[i + 1] ?? 0) > 0);
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

/** Positions [first, end) of `source`, an id list in (createdAt, id) order, walked backwards (newest first). */
interface Run {
  source: Int32Array;
  first: number;
  end: number;
}

/**
 * A search made ready to run: its dictionary conditions as (column codes, allowed table) pairs,
 * its group hashes, and where to walk: one run (the order's date range, or one value's list), or
 * one per value of a listed condition of several values. Runs of one column's lists are disjoint.
 */
interface Plan {
  columns: Codes[];
  tables: Uint8Array[];
  hashes: number[] | null;
  runs: Run[];
  /**
   * The number of matches when it is known without walking: the lists' length in range (the listed
   * condition alone), or the counts (one condition over the whole log, or its block counts over
   * a date range).
   */
  knownTotal?: number;
}

/**
 * The newest `count` ids of disjoint runs, newest first: a merge from their ends, one comparison
 * per run and id taken (a page of a condition of a few values costs its page, not its lists).
 */
function newestOf(runs: Run[], count: number, at: Float64Array): number[] {
  const ends = runs.map((run) => run.end);
  const out: number[] = [];
  while (out.length < count) {
    let best = -1;
    let bestId = 0;
    for (let k = 0; k < runs.length; k++) {
      if (ends[k]! <= runs[k]!.first) continue;
      const id = runs[k]!.source[ends[k]! - 1]!;
      if (best < 0 || sortsBefore(at, bestId, id)) {
        best = k;
        bestId = id;
      }
    }
    if (best < 0) break;
    ends[best] = ends[best]! - 1;
    out.push(bestId);
  }
  return out;
}

/** Matches are handed over in chunks: no call per match in the loops (a million calls cost ~5 ms). */
const CHUNK = 1024;

/** The index's storage: a column per field by event id, the response order, each value's list. */
class EventColumns {
  protected present = new Uint8Array(0);
  protected at = new Float64Array(0);
  protected group = new Uint32Array(0);
  /** Ids by group hash (group-index.ts): a group filter reads its events, not the log. */
  protected readonly groups = new GroupIndex();
  /**
   * Coded columns; all but the environment also keep each value's events in a list (4 bytes per
   * event each), so a search walks only the events of its most selective value, not the log.
   * (Environments are few and each holds a large share: a list would rarely be the shorter walk.)
   */
  protected readonly type = new CodedColumn(true);
  protected readonly project = new CodedColumn(true);
  protected readonly feature = new CodedColumn(true);
  protected readonly environment = new CodedColumn(false);
  protected readonly user = new CodedColumn<number>(true);
  protected readonly coded: ReadonlyArray<CodedColumn<string> | CodedColumn<number>> = [this.type, this.project, this.feature, this.environment, this.user];
  /** Ids ordered by (createdAt, id) ascending; the search walks it backwards (newest first). */
  protected readonly order = new OrderedIds(1024);
  protected readonly chunk = new Int32Array(CHUNK);
  protected newest = 0;
  /** While bulk loading: events enter the columns only; the order and the lists are built at the end. */
  protected bulk = false;

  get size(): number {
    return this.order.length;
  }

  /** Bytes held by the columns and lists (their allocated length, growth room included). */
  get bytes(): number {
    let total = this.present.byteLength + this.at.byteLength + this.group.byteLength + this.groups.bytes + this.order.ids.byteLength;
    for (const column of this.coded) total += column.bytes;
    return total;
  }

  /** The highest id ever added. */
  get newestId(): number {
    return this.newest;
  }

  has(id: number): boolean {
    return id > 0 && id < this.present.length && this.present[id] === 1;
  }

  /** The events of `project` created in [from, before): its own list, two binary searches. */
  countOfProject(project: string, from: number, before: number): number {
    const list = this.projectList(project);
    if (!list) return 0;
    const [first, end] = list.range(from, before, this.at);
    return end - first;
  }

  /** The events of `project` per UTC day from `from` on, oldest day first (`YYYY-MM-DD`). */
  projectDays(project: string, from: number): Array<{ date: string; count: number }> {
    const list = this.projectList(project);
    if (!list) return [];
    const days: Array<{ date: string; count: number }> = [];
    const [first, end] = list.range(from, undefined, this.at);
    for (let position = first; position < end; position++) {
      const date = new Date(this.at[list.ids[position]!]!).toISOString().slice(0, 10);
      const last = days[days.length - 1];
      if (last?.date === date) last.count++;
      else days.push({ date, count: 1 });
    }
    return days;
  }

  /** The ids of everyone who created an event (`createdByUserId`), ascending. */
  creatorIds(): number[] {
    return this.user.held().sort((a, b) => a - b);
  }

  /**
   * Who created events of `feature`, latest event first, each once: Unleash's collaborators (the
   * creators grouped by their newest event of the flag's name, ordered by it descending).
   */
  featureCreators(feature: string): number[] {
    const code = this.feature.find(feature);
    const list = code === undefined ? undefined : this.feature.lists?.[code];
    if (!list) return [];
    const seen = new Set<number>();
    for (let position = list.length - 1; position >= 0; position--) {
      const user = this.user.valueOf(this.user.codes[list.ids[position]!]!);
      if (user !== null) seen.add(user);
    }
    return [...seen];
  }

  private projectList(project: string): OrderedIds | undefined {
    const code = this.project.find(project);
    return code === undefined ? undefined : this.project.lists?.[code];
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
    if (this.bulk) {
      this.type.setCode(id, this.type.codeOf(event.type));
      this.project.setCode(id, this.project.codeOf(event.project));
      this.feature.setCode(id, this.feature.codeOf(event.featureName));
      this.environment.setCode(id, this.environment.codeOf(event.environment));
      this.user.setCode(id, this.user.codeOf(event.createdByUserId));
      return true;
    }
    this.type.set(id, event.type, this.at);
    this.project.set(id, event.project, this.at);
    this.feature.set(id, event.featureName, this.at);
    this.environment.set(id, event.environment, this.at);
    this.user.set(id, event.createdByUserId, this.at);
    this.insertInOrder(id);
    this.groups.add(id, this.group);
    return true;
  }

  /**
   * Starts a bulk load: until `endBulk`, events (`add`, `addColumns`) enter the columns only, and
   * the response order and per-value lists are built once at the end, exactly sized. Loading 10 M
   * events one insert at a time kept every list growing by doubling (up to twice the memory) and
   * cost a binary search per late event and list.
   */
  beginBulk(): void {
    this.bulk = true;
  }

  /** Adds the events of a chunk's columns (ids already indexed are skipped). */
  addColumns(columns: IndexColumns): void {
    const { first, count, at, group } = columns;
    this.ensureCapacity(first + count);
    const slices = [columns.type, columns.project, columns.feature, columns.environment, columns.user] as const;
    const targets = [this.type, this.project, this.feature, this.environment, this.user] as ReadonlyArray<CodedColumn<string | number>>;
    // Per column, the chunk's codes as this index's codes.
    const translations = slices.map((slice, k) => {
      const global = new Uint32Array(slice.values.length + 1);
      (slice.values as Array<string | number>).forEach((value, local) => { global[local + 1] = targets[k]!.codeOf(value); });
      return global;
    });
    const typeCodes = columns.type.codes;
    for (let slot = 0; slot < count; slot++) {
      const id = first + slot;
      if (typeCodes[slot] === 0 || this.has(id)) continue;
      this.present[id] = 1;
      if (id > this.newest) this.newest = id;
      this.at[id] = at[slot]!;
      this.group[id] = group[slot]!;
      for (let k = 0; k < 5; k++) targets[k]!.setCode(id, translations[k]![slices[k]!.codes[slot]!]!);
      if (!this.bulk) {
        this.insertInOrder(id);
        this.groups.add(id, this.group);
        for (const column of [this.type, this.project, this.feature, this.user] as Array<CodedColumn<string | number>>) {
          const code = column.codes[id]!;
          if (code !== 0) (column.lists![code] ??= new OrderedIds(16)).insert(id, this.at);
        }
      }
    }
  }

  /** The fields of ids [first, first + count) as columns with their own dictionaries (for a chunk). */
  columnsOf(first: number, count: number): IndexColumns {
    const at = new Float64Array(count).fill(Number.NaN);
    const group = new Uint32Array(count);
    const sources = [this.type, this.project, this.feature, this.environment, this.user] as ReadonlyArray<CodedColumn<string | number>>;
    const slices = sources.map(() => ({ values: [] as Array<string | number>, local: new Map<number, number>(), wide: new Uint32Array(count) }));
    for (let slot = 0; slot < count; slot++) {
      const id = first + slot;
      if (!this.has(id)) continue;
      at[slot] = this.at[id]!;
      group[slot] = this.group[id]!;
      for (let k = 0; k < 5; k++) {
        const code = sources[k]!.codes[id]!;
        if (code === 0) continue;
        const target = slices[k]!;
        let local = target.local.get(code);
        if (local === undefined) {
          target.values.push(sources[k]!.valueOf(code)!);
          local = target.values.length;
          target.local.set(code, local);
        }
        target.wide[slot] = local;
      }
    }
    const narrowed = slices.map((slice) => {
      const codes = codesFor(slice.values.length, count);
      codes.set(slice.wide);
      return codes;
    });
    const coded = <V extends string | number>(k: number): CodedSlice<V> => ({ codes: narrowed[k]!, values: slices[k]!.values as V[] });
    return { first, count, at, group, type: coded(0), project: coded(1), feature: coded(2), environment: coded(3), user: coded(4) };
  }

  /**
   * Ends a bulk load: the columns shrink to the newest id plus room, the response order is built
   * from the ids (already in createdAt order but for a few late events, which an insertion sort
   * places), then every value's list from the order.
   */
  endBulk(): void {
    if (!this.bulk) return;
    this.bulk = false;
    const length = this.newest + 1;
    const shrink = <T extends Float64Array | Uint32Array | Uint8Array>(array: T): T => {
      if (array.length <= roomFor(length)) return array;
      const next = new (array.constructor as new (n: number) => T)(roomFor(length));
      next.set(array.subarray(0, length));
      return next;
    };
    this.present = shrink(this.present);
    this.at = shrink(this.at);
    this.group = shrink(this.group);
    for (const column of this.coded) column.trim(length);
    let count = 0;
    for (let id = 1; id < length; id++) if (this.present[id] === 1) count++;
    const order = new Int32Array(roomFor(count));
    let n = 0;
    for (let id = 1; id < length; id++) if (this.present[id] === 1) order[n++] = id;
    sortNearlyOrdered(order, n, this.at);
    this.order.ids = order;
    this.order.length = n;
    for (const column of this.coded) column.buildLists(order, n);
    this.environment.blocks!.build(order, n, this.environment.codes);
    this.groups.rebuild(this.group, length);
  }

  /** Puts an id whose columns are set into the response order (and the environment's block counts). */
  private insertInOrder(id: number): void {
    const position = this.order.insert(id, this.at);
    this.environment.blocks!.inserted(this.order.ids, this.order.length, position, this.environment.codes);
  }

  private ensureCapacity(length: number): void {
    this.present = grow(this.present, length);
    this.at = grow(this.at, length);
    this.group = grow(this.group, length);
    this.groups.ensureCapacity(length);
    for (const column of this.coded) column.ensureCapacity(length);
  }
}

/** The search over the columns: a plan per query, the shortest run of candidates, pages newest first. */
export class EventLogIndex extends EventColumns {
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
    const columns: Codes[] = [];
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
    const plan: Plan = { columns, tables, hashes, runs: [] };

    if (criteria.ids) {
      // A few ids: test them directly instead of walking the log.
      plan.runs = [this.runOfFew(new Set(criteria.ids), criteria)];
      return plan;
    }
    if (hashes) {
      // A group's few events (and its hash bucket's) from the group index; the scan tests the hash
      // and the other conditions on them.
      plan.runs = [this.runOfFew(this.groups.idsOf(hashes, this.group), criteria)];
      return plan;
    }
    const [first, end] = this.order.range(criteria.from, criteria.before, this.at);
    const range = end - first;
    const listed = this.shortestLists(coded, tables, criteria);
    const alone = listed !== undefined && columns.length === 1 && hashes === null;
    // With other conditions, each candidate of the lists is tested (a read at a scattered id),
    // so they are walked when they hold at most half the range (the range is read in order).
    // Alone, the lists' lengths are the total and only the page is read: from one list directly,
    // from several by a merge of their ends (one comparison per list and id), unless the range is
    // so dense in matches that walking it reaches the page sooner.
    const walkLists = listed !== undefined
      && (alone ? listed.slices.length <= 1 || listed.slices.length * listed.candidates <= range : listed.candidates * 2 <= range);
    if (walkLists) {
      // The lists hold only their condition's events, so it is met by construction.
      plan.runs = listed.slices.map(([list, from, to]) => ({ source: list.ids, first: from, end: to }));
      columns.splice(listed.condition, 1);
      tables.splice(listed.condition, 1);
      coded.splice(listed.condition, 1);
    } else {
      plan.runs = [{ source: this.order.ids, first, end }];
    }
    if (alone) {
      plan.knownTotal = listed.candidates;
    } else if (columns.length === 1 && hashes === null && !walkLists) {
      const column = coded[0]!;
      if (first === 0 && end === this.order.length) plan.knownTotal = column.countOf(tables[0]!);
      else if (column.blocks) plan.knownTotal = column.blocks.count(tables[0]!, first, end, this.order.ids, column.codes);
    }
    // The most selective remaining condition leads: the one whose allowed values hold the fewest
    // events. (A loop testing all conditions alike was ~10× slower than one at 1 M events.)
    let lead = 0;
    let leadCount = Infinity;
    for (let k = 0; k < tables.length; k++) {
      const count = coded[k]!.countOf(tables[k]!);
      if (count < leadCount) [lead, leadCount] = [k, count];
    }
    if (lead !== 0) {
      [columns[0], columns[lead]] = [columns[lead]!, columns[0]!];
      [tables[0], tables[lead]] = [tables[lead]!, tables[0]!];
    }
    return plan;
  }

  /** A few known ids as a run in response order: those indexed and within the date range. */
  private runOfFew(ids: Iterable<number>, criteria: SearchCriteria): Run {
    const at = this.at;
    const kept = [...ids].filter((id) => this.has(id)
      && (criteria.from === undefined || at[id]! >= criteria.from) && (criteria.before === undefined || at[id]! < criteria.before));
    const source = Int32Array.from(kept.sort((a, b) => (sortsBefore(at, a, b) ? -1 : 1)));
    return { source, first: 0, end: source.length };
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

  /** The plan's runs as one (a scan hands over matches in order as it walks): merged pairwise, each in order. */
  private oneRun(plan: Plan): Run {
    if (plan.runs.length === 1) return plan.runs[0]!;
    let runs: Int32Array[] = plan.runs.map((run) => run.source.subarray(run.first, run.end));
    if (runs.length === 0) return { source: new Int32Array(0), first: 0, end: 0 };
    while (runs.length > 1) {
      const next: Int32Array[] = [];
      for (let k = 0; k < runs.length; k += 2) next.push(k + 1 < runs.length ? mergeInOrder(runs[k]!, runs[k + 1]!, this.at) : runs[k]!);
      runs = next;
    }
    return { source: runs[0]!, first: 0, end: runs[0]!.length };
  }

  /**
   * Writes the next matches of `run` (newest first) into `out`, moving `run.end` down past the rows
   * read; returns how many. Fewer than `out.length` means the run is exhausted. The loop is written
   * out per shape: the common ones have no inner loop.
   */
  private fill(plan: Plan, run: Run, out: Int32Array): number {
    const { columns, tables, hashes } = plan;
    const { source, first } = run;
    const group = this.group;
    const room = out.length;
    let n = 0;
    let position = run.end - 1;
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
    run.end = position + 1;
    return n;
  }

  /**
   * The matching ids newest first: `visit(id)` for each until it returns false. Group ids match
   * by hash: callers that filter on groups confirm each visited event (collisions are possible).
   */
  scan(criteria: SearchCriteria, visit: (id: number) => boolean): void {
    const plan = this.plan(criteria);
    if (!plan) return;
    const run = this.oneRun(plan);
    const chunk = new Int32Array(CHUNK);
    for (;;) {
      const n = this.fill(plan, run, chunk);
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
    if (plan.runs.length === 1) {
      const { ids, total } = this.newestMatches(plan, plan.runs[0]!, offset, wanted);
      return { ids, total };
    }
    if (plan.knownTotal !== undefined) return { ids: newestOf(plan.runs, wanted, this.at).slice(offset), total: plan.knownTotal };
    // Several values' lists and other conditions: each list is walked on its own (no merge of the
    // candidates, which took a comparison of two createdAt reads per candidate), keeping its newest
    // `wanted` matches; the page is a merge of those.
    let total = 0;
    const kept: Run[] = [];
    for (const run of plan.runs) {
      const matches = this.newestMatches(plan, run, 0, wanted);
      total += matches.total;
      const source = Int32Array.from(matches.ids).reverse();
      kept.push({ source, first: 0, end: source.length });
    }
    return { ids: newestOf(kept, wanted, this.at).slice(offset), total };
  }

  /**
   * The matches of one run: ids [offset, wanted) newest first, and their number (known from the
   * plan, without walking past the page, or counted).
   */
  private newestMatches(plan: Plan, run: Run, offset: number, wanted: number): SearchPage {
    const ids: number[] = [];
    let total = 0;
    for (;;) {
      const n = this.fill(plan, run, this.chunk);
      for (let k = Math.max(0, offset - total); k < n && total + k < wanted; k++) ids.push(this.chunk[k]!);
      total += n;
      if (n < CHUNK) break;
      if (plan.knownTotal !== undefined && total >= wanted) return { ids, total: plan.knownTotal };
    }
    return { ids, total };
  }

  private unfiltered(c: SearchCriteria): boolean {
    return !c.types && !c.projects && !c.features && !c.environments && !c.userIds && !c.ids && !c.groupIds && !c.projectRequired;
  }
}
