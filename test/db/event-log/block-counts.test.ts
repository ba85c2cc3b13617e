import fc from 'fast-check';
import t from 'tap';
import { BLOCK, BlockCounts } from '../../../src/db/event-log/block-counts.js';

t.test('block counts follow inserts at any position and count any range like a walk', async (t) => {
  // Blocks of 1, 3 and 8 positions, and the real size: every change crosses boundaries.
  const size = fc.constantFrom(1, 3, 8, BLOCK);
  const op = fc.oneof(
    fc.record({ kind: fc.constant('insert' as const), at: fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), code: fc.integer({ min: 0, max: 3 }) }),
  );
  const start = fc.integer({ min: 0, max: 3 * BLOCK }).chain((n) => fc.array(fc.integer({ min: 0, max: 3 }), { minLength: n, maxLength: n }));
  const query = fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), fc.subarray([0, 1, 2, 3]));
  fc.assert(fc.property(size, start, fc.array(op, { maxLength: 60 }), fc.array(query, { minLength: 1, maxLength: 10 }), (blockSize, initial, ops, queries) => {
    // Event id i has code codes[i]; the order is an array of ids, changed by inserts anywhere.
    const codes: number[] = [0];
    const order: number[] = [];
    for (const code of initial) {
      order.push(codes.length);
      codes.push(code);
    }
    const counts = new BlockCounts(blockSize);
    const view = () => Int32Array.from(order);
    counts.build(view(), order.length, codes);
    for (const o of ops) {
      if (o.kind === 'insert') {
        const position = Math.floor(o.at * (order.length + 1));
        order.splice(position, 0, codes.length);
        codes.push(o.code);
        counts.inserted(view(), order.length, position, codes);
      }
    }
    const ids = view();
    for (const [a, b, values] of queries) {
      const first = Math.floor(Math.min(a, b) * order.length);
      const end = Math.floor(Math.max(a, b) * order.length);
      const allowed = new Uint8Array(4);
      for (const v of values) allowed[v] = 1;
      let expected = 0;
      for (let p = first; p < end; p++) expected += allowed[codes[ids[p]!]!]!;
      const got = counts.count(allowed, first, end, ids, codes);
      if (got !== expected) throw new Error(`[${first}, ${end}) of ${order.length} for ${JSON.stringify(values)}: ${got} != ${expected}`);
    }
  }), { numRuns: 300 });
  t.pass('300 orders changed and counted');
});
