import t from 'tap';
import { KeyedLock } from '../../src/db/keyed-lock.js';

t.test('several keys are held together, taken in sorted order: callers naming them in any order do not deadlock', async (t) => {
  const lock = new KeyedLock();
  const order: string[] = [];
  const hold = (name: string, ms: number) => async () => {
    order.push(`${name} in`);
    await new Promise((resolve) => setTimeout(resolve, ms));
    order.push(`${name} out`);
  };
  const done = await Promise.race([
    Promise.all([lock.run(['a', 'b'], hold('ab', 20)), lock.run(['b', 'a', 'b'], hold('ba', 20)), lock.run('a', hold('a', 1))]).then(() => true),
    new Promise<false>((resolve) => setTimeout(() => resolve(false), 2000)),
  ]);
  t.ok(done, 'every caller finished');
  t.same(order, ['ab in', 'ab out', 'ba in', 'ba out', 'a in', 'a out'], 'one holder at a time over a shared key');
  t.equal(await lock.run([], async () => 7), 7, 'no keys: run at once');
});
