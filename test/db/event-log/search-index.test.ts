import fc from 'fast-check';
import t from 'tap';
import { seededRandom } from '../../../bench/random.js';
import { EventLogIndex, groupHash, type IndexedEvent, type SearchCriteria } from '../../../src/db/event-log/search-index.js';

const DAY = 86_400_000;
const BASE = Date.UTC(2026, 0, 1);

/** The definition: every condition AND-ed, newest first by (createdAt, id). */
function naive(events: IndexedEvent[], c: SearchCriteria): number[] {
  const inList = <T>(list: T[] | undefined, value: T) => list === undefined || list.includes(value);
  return events
    .filter((e) => inList(c.types, e.type) && inList(c.features, e.featureName as string) && inList(c.projects, e.project as string)
      && inList(c.environments, e.environment as string) && inList(c.userIds, e.createdByUserId as number)
      && inList(c.ids, e.id) && inList(c.groupIds, e.groupId as string) && (!c.projectRequired || e.project !== null)
      && (c.from === undefined || e.at >= c.from) && (c.before === undefined || e.at < c.before))
    .sort((a, b) => b.at - a.at || b.id - a.id)
    .map((e) => e.id);
}

/**
 * Pages of `index` (offset, limit) and the first `scanned` ids of its scan against `expected`, the
 * definition's answer (throws on a difference).
 */
function agreesWithDefinition(
  index: EventLogIndex, expected: number[], criteria: SearchCriteria, pages: ReadonlyArray<readonly [number, number]>, scanned: number,
): void {
  for (const [offset, limit] of pages) {
    const page = index.search(criteria, offset, limit);
    if (page.total !== expected.length) throw new Error(`${JSON.stringify(criteria)}: total ${page.total} != ${expected.length}`);
    if (JSON.stringify(page.ids) !== JSON.stringify(expected.slice(offset, offset + limit))) throw new Error(`${JSON.stringify(criteria)} at ${offset}: page differs`);
  }
  const ids: number[] = [];
  index.scan(criteria, (id) => ids.push(id) < scanned);
  if (JSON.stringify(ids) !== JSON.stringify(expected.slice(0, scanned))) throw new Error(`${JSON.stringify(criteria)}: scan differs`);
}

/** Scan and one page of `index` against the definition over `events` (throws on a difference). */
function agrees(index: EventLogIndex, events: IndexedEvent[], criteria: SearchCriteria, offset: number, limit: number): void {
  const expected = naive(events, criteria);
  const scanned: number[] = [];
  index.scan(criteria, (id) => {
    scanned.push(id);
    return true;
  });
  // Group ids match by hash: with these few distinct ids there is no collision.
  if (JSON.stringify(scanned) !== JSON.stringify(expected)) throw new Error(`scan ${JSON.stringify(scanned)} != ${JSON.stringify(expected)}`);
  if (criteria.groupIds) return;
  const page = index.search(criteria, offset, limit);
  if (page.total !== expected.length) throw new Error(`total ${page.total} != ${expected.length}`);
  if (JSON.stringify(page.ids) !== JSON.stringify(expected.slice(offset, offset + limit))) throw new Error('page differs');
}

const few = <T>(values: T[]) => fc.constantFrom(...values);
const eventArb = (id: number) => fc.record({
  at: fc.integer({ min: 0, max: 20 }).map((d) => BASE + d * DAY / 2),
  type: few(['a', 'b', 'c']),
  project: few<string | null>(['p1', 'p2', null]),
  featureName: few<string | null>(['f1', 'f2', 'f3', null]),
  environment: few<string | null>(['dev', 'prod', null]),
  createdByUserId: few<number | null>([-42, 1, 2, null]),
  groupId: few<string | null>(['g1', 'g2', null]),
}).map((e): IndexedEvent => ({ id, ...e }));

const logArb = fc.integer({ min: 0, max: 60 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => eventArb(i + 1))))
  .chain((events) => fc.shuffledSubarray(events, { minLength: events.length, maxLength: events.length }));

const criteriaArb: fc.Arbitrary<SearchCriteria> = fc.record({
  types: fc.subarray(['a', 'b', 'c', 'zz']),
  projects: fc.subarray(['p1', 'p2', 'nope']),
  features: fc.subarray(['f1', 'f2', 'f3']),
  environments: fc.subarray(['dev', 'prod']),
  userIds: fc.subarray([-42, 1, 2, 99]),
  ids: fc.subarray([1, 2, 3, 5, 8, 13, 21, 34, 1000]),
  groupIds: fc.subarray(['g1', 'g2', 'g9']),
  projectRequired: fc.boolean(),
  from: fc.integer({ min: 0, max: 20 }).map((d) => BASE + d * DAY / 2),
  before: fc.integer({ min: 0, max: 22 }).map((d) => BASE + d * DAY / 2),
}, { requiredKeys: [] });

t.test('search equals the naive filter for any log (arrival in any order) and any criteria', async (t) => {
  fc.assert(fc.property(logArb, criteriaArb, fc.nat(70), fc.integer({ min: 1, max: 70 }), (events, criteria, offset, limit) => {
    const index = new EventLogIndex();
    for (const e of events) index.add(e);
    agrees(index, events, criteria, offset, limit);
  }), { numRuns: 600 });
  t.pass('600 random logs and searches agree with the definition');
});

t.test('a flag filter over many flags walks the flags\' own lists (one or several) and still equals the definition', async (t) => {
  const flags = Array.from({ length: 150 }, (_, i) => `f${i}`);
  const manyFlagsEvent = (id: number) => eventArb(id).chain((e) => few<string | null>([...flags, null]).map((featureName) => ({ ...e, featureName })));
  const bigLogArb = fc.integer({ min: 300, max: 600 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => manyFlagsEvent(i + 1))))
    .chain((events) => fc.shuffledSubarray(events, { minLength: events.length, maxLength: events.length }));
  const flagCriteriaArb = fc.tuple(criteriaArb, fc.subarray([...flags.slice(0, 6), 'unknown'], { minLength: 1 }))
    .map(([criteria, features]): SearchCriteria => ({ ...criteria, ids: undefined, features }));
  fc.assert(fc.property(bigLogArb, flagCriteriaArb, fc.nat(20), (events, criteria, offset) => {
    const index = new EventLogIndex();
    for (const e of events) if (e.id % 7 !== 0) index.add(e);
    agrees(index, events.filter((e) => e.id % 7 !== 0), criteria, offset, 10);
  }), { numRuns: 150 });
  t.pass('150 logs of 300–600 events over 150 flags agree with the definition');
});

t.test('logs larger than a chunk: totals from the counts, pages across chunk boundaries, ids missing', async (t) => {
  // 6 000 events (matches are handed over 1 024 at a time), every value drawn from few choices.
  for (const seed of [1, 2, 3, 4, 5]) {
    const next = seededRandom(seed);
    const pick = <T>(values: T[]): T => values[Math.floor(next() * values.length)]!;
    const events: IndexedEvent[] = Array.from({ length: 6000 }, (_, i) => ({
      id: i + 1, at: BASE + Math.floor(next() * 400) * DAY / 20, type: pick(['a', 'b', 'c']), project: pick(['p1', 'p2', null]),
      featureName: pick(['f1', 'f2', 'f3', null]), environment: pick(['dev', 'prod', null]), createdByUserId: pick([-42, 1, 2, null]),
    }));
    const index = new EventLogIndex();
    const kept = events.filter((e) => (e.id - 5) % 11 !== 0 || e.id < 5);
    for (const e of kept) index.add(e);
    const searches: SearchCriteria[] = [
      { types: ['a'] }, { types: ['a', 'c'] }, { features: ['f2'] }, { projectRequired: true }, { environments: ['prod'] },
      { userIds: [2] }, { types: ['b'], userIds: [1, 2] }, { types: ['a'], from: BASE + 5 * DAY, before: BASE + 15 * DAY },
    ];
    for (const criteria of searches) {
      agreesWithDefinition(index, naive(kept, criteria), criteria, [[0, 50], [1000, 50], [1020, 10], [2047, 3], [5000, 1000]], 1500);
    }
  }
  t.pass('5 logs × 8 searches × 5 pages agree with the definition');
});

t.test('add, has; events are immutable', async (t) => {
  const index = new EventLogIndex();
  const e = (id: number, at: number): IndexedEvent => ({ id, at, type: 'x', project: null, featureName: null, environment: null, createdByUserId: null });
  t.ok(index.add(e(2, 10)));
  t.notOk(index.add(e(2, 99)), 'a second add of the same id is ignored');
  t.ok(index.add(e(1, 10)));
  t.ok(index.add(e(3, 5)), 'an older event arriving late');
  t.same(index.search({}, 0, 10), { ids: [2, 1, 3], total: 3 }, 'createdAt desc, then id desc');
  t.ok(index.has(1));
  t.notOk(index.has(4));
  t.throws(() => index.add(e(0, 1)), RangeError);
  t.throws(() => index.add(e(1.5, 1)), RangeError);
});

t.test('unknown filter values match nothing; an empty numeric list matches nothing', async (t) => {
  const index = new EventLogIndex();
  index.add({ id: 1, at: 1, type: 'x', project: 'p', featureName: 'f', environment: 'e', createdByUserId: 7, groupId: 'g' });
  t.same(index.search({ types: ['nope'] }, 0, 10), { ids: [], total: 0 });
  t.same(index.search({ userIds: [] }, 0, 10), { ids: [], total: 0 }, 'createdBy=IS:abc');
  t.same(index.search({ ids: [] }, 0, 10), { ids: [], total: 0 });
  t.same(index.search({ types: ['nope', 'x'] }, 0, 10), { ids: [1], total: 1 });
  t.throws(() => index.search({ groupIds: ['g'] }, 0, 10), /confirm/);
  t.not(groupHash('g'), 0);
});

t.test('a million events: columns, not objects', async (t) => {
  const index = new EventLogIndex();
  for (let id = 1; id <= 1_000_000; id++) {
    index.add({ id, at: BASE + id * 1000, type: `t${id % 30}`, project: `p${id % 25}`, featureName: `f${id % 3000}`, environment: id % 3 ? 'production' : null, createdByUserId: id % 60 });
  }
  t.equal(index.size, 1_000_000);
  const page = index.search({ features: ['f42'] }, 0, 50);
  t.equal(page.total, 334, 'ids 42, 3042, … 999042');
  t.equal(page.ids[0], 999_042);
  const ranged = index.search({ types: ['t7'], from: BASE + 500_000_000, before: BASE + 600_000_000 }, 0, 50);
  t.equal(ranged.total, 100_000 / 30 | 0);
});

t.test('a bulk load (order and lists built at the end) agrees with the definition, and so do adds after it', async (t) => {
  fc.assert(fc.property(logArb, logArb, criteriaArb, fc.nat(70), fc.integer({ min: 1, max: 70 }), (loaded, later, criteria, offset, limit) => {
    const index = new EventLogIndex();
    index.beginBulk();
    for (const e of loaded) index.add(e);
    index.endBulk();
    agrees(index, loaded, criteria, offset, limit);
    // Later events take ids after the loaded ones (any order).
    const shifted = later.map((e) => ({ ...e, id: e.id + 100 }));
    for (const e of shifted) index.add(e);
    agrees(index, [...loaded, ...shifted], criteria, offset, limit);
  }), { numRuns: 300 });
  t.pass('300 bulk-loaded logs and searches agree with the definition');
});

t.test('codes widen past 255 and 65 535 values; a column exported and added back answers the same', async (t) => {
  const events: IndexedEvent[] = Array.from({ length: 70_000 }, (_, i) => ({
    id: i + 1 + Math.floor(i / 1000), at: BASE + Math.floor(i / 3) * 1000 - (i % 5 === 0 ? 2500 : 0), type: `t${i % 3}`,
    project: i % 4 ? `p${i % 300}` : null, featureName: `f${i % 1500}`, environment: i % 2 ? 'prod' : null,
    createdByUserId: i % 60 === 0 ? null : i - 35_000, groupId: i % 3 ? `g${i}` : null,
  }));
  const index = new EventLogIndex();
  for (const e of events) index.add(e);
  const copy = new EventLogIndex();
  copy.beginBulk();
  const newest = events.at(-1)!.id;
  for (let first = 1; first <= newest; first += 4096) copy.addColumns(index.columnsOf(first, 4096));
  copy.endBulk();
  t.equal(copy.size, index.size);
  const searches: SearchCriteria[] = [
    {}, { userIds: [-35_000, 34_000, 1] }, { projects: ['p299', 'p1'] }, { features: ['f1499'] }, { types: ['t1'], environments: ['prod'] },
    { projectRequired: true, from: BASE + 5000 * 1000, before: BASE + 9000 * 1000 }, { ids: [1, 1001, 1002, 70_069] },
  ];
  for (const criteria of searches) {
    for (const [offset, limit] of [[0, 50], [20_000, 1000]] as const) {
      t.same(copy.search(criteria, offset, limit), index.search(criteria, offset, limit), JSON.stringify(criteria));
    }
  }
  agrees(copy, events, { userIds: [-35_000, 34_000, 1], projects: ['p0', 'p1'] }, 0, 10);
});

t.test('several conditions, several values each, date ranges across blocks of the order: pages, totals and scans equal the definition', async (t) => {
  // Logs of thousands of events (the environment's block counts sum whole blocks of 1 024
  // positions), values with skewed frequencies (so that each condition is sometimes the shortest,
  // and several values' lists are walked, merged or passed over for the order), events late
  // against their ids, a bulk-loaded part, events added after it in any order, some removed.
  const TYPES = Array.from({ length: 12 }, (_, i) => `t${i}`);
  const PROJECTS = Array.from({ length: 8 }, (_, i) => `p${i}`);
  const FEATURES = Array.from({ length: 40 }, (_, i) => `f${i}`);
  const ENVIRONMENTS = ['dev', 'prod', 'stage'];
  const USERS = Array.from({ length: 10 }, (_, i) => i - 1);
  const logOf = (seed: number, n: number): IndexedEvent[] => {
    const next = seededRandom(seed);
    // Squaring skews the pick towards the first values.
    const pick = <T>(values: T[], nullShare = 0): T | null => (next() < nullShare ? null : values[Math.floor(next() ** 2 * values.length)]!);
    return Array.from({ length: n }, (_, i) => ({
      id: i + 1, at: BASE + Math.floor(i / 2) * 1000 - (next() < 0.05 ? Math.floor(next() * 8000) : 0), type: pick(TYPES)!,
      project: pick(PROJECTS, 0.2), featureName: pick(FEATURES, 0.3), environment: pick(ENVIRONMENTS, 0.3), createdByUserId: pick(USERS, 0.1),
    }));
  };
  const values = <T>(all: T[]) => fc.subarray(all, { minLength: 1, maxLength: 3 });
  const some = <T>(all: T[]) => fc.option(values(all), { nil: undefined, freq: 1 });
  const time = fc.integer({ min: -10, max: 2100 }).map((s) => BASE + s * 1000);
  const randomArb = fc.record({
    types: some(TYPES), projects: some([...PROJECTS, 'nope']), features: some(FEATURES), environments: some(ENVIRONMENTS),
    userIds: some(USERS), projectRequired: fc.boolean(), from: fc.option(time, { nil: undefined, freq: 1 }), before: fc.option(time, { nil: undefined, freq: 1 }),
  }).map((c) => Object.fromEntries(Object.entries(c).filter(([, v]) => v !== undefined && v !== false)) as SearchCriteria);
  // And the shapes the seed's searches have, always: one unlisted condition within a range, a
  // listed condition of several values alone and with another.
  const shapedArb = fc.tuple(values(ENVIRONMENTS), values(TYPES), values(PROJECTS), time, time).map(([environments, types, projects, a, b]): SearchCriteria[] => [
    { environments, from: Math.min(a, b), before: Math.max(a, b) + 1 }, { environments }, { types, from: Math.min(a, b) }, { types, projects },
  ]);
  const criteriaArb = fc.tuple(fc.array(randomArb, { minLength: 6, maxLength: 6 }), shapedArb).map(([random, shaped]) => [...random, ...shaped]);
  const logArb = fc.record({ seed: fc.integer(), n: fc.integer({ min: 2500, max: 4200 }), bulk: fc.double({ min: 0, max: 1, noNaN: true }), shuffle: fc.boolean() });
  fc.assert(fc.property(logArb, criteriaArb, fc.nat(400), ({ seed, n, bulk, shuffle }, searches, offset) => {
    // Every 97th id from a seeded start holds no event (ids with gaps).
    const gap = (seed >>> 0) % 13 + 1;
    const events = logOf(seed, n).filter((e) => e.id < gap || (e.id - gap) % 97 !== 0);
    const index = new EventLogIndex();
    const loaded = Math.floor(bulk * n);
    index.beginBulk();
    for (const e of events.slice(0, loaded)) index.add(e);
    index.endBulk();
    const later = events.slice(loaded);
    // Later events arrive in id order, or in blocks of 50 in reverse (each one an insert before the newest).
    if (shuffle) for (let k = 0; k < later.length; k += 50) later.splice(k, 50, ...later.slice(k, k + 50).reverse());
    for (const e of later) index.add(e);
    const kept = events.filter((e) => index.has(e.id));
    for (const criteria of searches) {
      const expected = naive(kept, criteria);
      agreesWithDefinition(index, expected, criteria, [[0, 50], [offset, 25], [Math.max(0, expected.length - 10), 50]], 2000);
    }
  }), { numRuns: 60 });
  t.pass('60 logs × 10 searches × 3 pages and a scan agree with the definition');
});
