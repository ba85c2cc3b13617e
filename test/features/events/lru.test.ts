import t from 'tap';
import { Lru } from '../../../src/features/events/lru.js';

t.test('the least recently used entry leaves when full; get and set refresh recency', async (t) => {
  const lru = new Lru<number, string>(3);
  lru.set(1, 'a');
  lru.set(2, 'b');
  lru.set(3, 'c');
  t.equal(lru.get(1), 'a', '1 is now the most recent');
  lru.set(4, 'd');
  t.equal(lru.get(2), undefined, '2 was the least recent and left');
  lru.set(3, 'c2');
  lru.set(5, 'e');
  t.equal(lru.get(1), undefined, 'setting 3 again made 1 the least recent');
  t.same([lru.get(3), lru.get(4), lru.get(5)], ['c2', 'd', 'e']);
  let made = 0;
  t.equal(lru.getOrCreate(4, () => String(++made)), 'd', 'a hit does not make');
  t.equal(lru.getOrCreate(6, () => String(++made)), '1', 'a miss makes once');
  t.equal(made, 1);
});
