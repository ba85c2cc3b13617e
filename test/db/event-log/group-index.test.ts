import t from 'tap';
import { seededRandom } from '../../../bench/random.js';
import { GroupIndex } from '../../../src/db/event-log/group-index.js';
import { EventLogIndex, groupHash, type IndexedEvent } from '../../../src/db/event-log/search-index.js';

const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

t.test('ids by hash equal a naive map through adds, resizes and a rebuild', async (t) => {
  const random = seededRandom(11);
  // Hashes that share a bucket at every table size up to 2^16 (equal low bits), and 0 (no group).
  const hashes = [0, 0x10005, 0x20005, 0x30005, 0x40007, 0xfffe0005, 1];
  const column = new Uint32Array(32_768);
  const index = new GroupIndex();
  const naive = new Map<number, Set<number>>();
  const check = (label: string) => {
    for (const hash of hashes.filter((h) => h !== 0)) {
      const expected = sorted([...(naive.get(hash) ?? [])]);
      const actual = sorted(index.idsOf([hash], column));
      if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(`${label}: hash ${hash}: ${actual.length} ids, expected ${expected.length}`);
    }
    const two = [hashes[1]!, hashes[4]!];
    t.same(sorted(index.idsOf(two, column)), sorted(two.flatMap((h) => [...(naive.get(h) ?? [])])), `${label}: two hashes at once`);
  };
  for (let id = 1; id <= 20_000; id++) {
    const hash = hashes[Math.floor(random() * hashes.length)]!;
    column[id] = hash;
    index.ensureCapacity(id + 1);
    index.add(id, column);
    if (hash !== 0) (naive.get(hash) ?? naive.set(hash, new Set()).get(hash)!).add(id);
    if (id % 5000 === 0) check(`after ${id} ids`);
  }
  t.ok(index.bytes >= 4 * 32_768 + 4 * 4096, 'the table grew from 1 024 buckets to 4 096 (4 grouped ids per bucket; the chain array holds 32 768 ids)');
  index.rebuild(column, 20_001);
  check('after a rebuild');
});

t.test('the search index finds groups after a bulk load, a removal and later adds', async (t) => {
  const random = seededRandom(5);
  const groups = Array.from({ length: 40 }, (_, i) => `g-${i}`);
  const event = (id: number): IndexedEvent => ({
    id, at: Date.UTC(2026, 0, 1) + Math.floor(random() * 1000) * 60_000, type: random() < 0.5 ? 'a' : 'b', project: 'p', featureName: null,
    environment: null, createdByUserId: 1, groupId: random() < 0.8 ? groups[Math.floor(random() * groups.length)]! : null,
  });
  const events = new Map<number, IndexedEvent>();
  const index = new EventLogIndex();
  index.beginBulk();
  for (let id = 1; id <= 6000; id++) {
    const e = event(id);
    events.set(id, e);
    index.add(e);
  }
  index.endBulk();
  const expect = (groupId: string, type?: string) => [...events.values()]
    .filter((e) => e.groupId === groupId && (type === undefined || e.type === type))
    .sort((a, b) => b.at - a.at || b.id - a.id).map((e) => e.id);
  const scan = (groupId: string, type?: string) => {
    const ids: number[] = [];
    index.scan({ groupIds: [groupId], ...(type ? { types: [type] } : {}) }, (id) => ids.push(id) > 0);
    return ids;
  };
  t.same(scan('g-3'), expect('g-3'), 'one group, newest first, after the bulk load');
  t.same(scan('g-7', 'b'), expect('g-7', 'b'), 'a group and a type');
  for (let id = 6001; id <= 7000; id++) {
    const e = event(id);
    events.set(id, e);
    index.add(e);
  }
  for (const g of ['g-3', 'g-0', 'g-39']) t.same(scan(g), expect(g), `${g} after later adds`);
  t.same(scan('nobody'), [], 'a group without events');
  t.not(groupHash('g-3'), 0);
});
