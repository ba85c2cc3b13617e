/**
 * How many events of each value lie in each block of BLOCK consecutive positions of the response
 * order, for a column that keeps no per-value lists (the environment). Pure; the index keeps it in
 * step with its order (search-index.ts).
 *
 * Why: a date range is a contiguous run of the order, so "environment = X within a month" counts
 * its whole blocks from these sums and reads only the two partial blocks at the ends, instead of
 * walking the range. At 10 M events a month is ~770 000 positions: the walk took 2–4 ms of CPU,
 * the sums take ~750 additions and at most 2 × 1 023 reads. Memory: 4 bytes per value per block,
 * 0.004 bytes per event and value at 1 024 positions a block (a list of the environment's events
 * would cost 4 bytes per event).
 */

/** A column's codes by event id (search-index.ts `Codes`). */
type Codes = ArrayLike<number>;

/** Positions per block: the partial ends cost at most 2 × 1 023 reads (a few µs). */
export const BLOCK = 1024;

function grown(array: Uint32Array, blocks: number): Uint32Array {
  if (array.length >= blocks) return array;
  const next = new Uint32Array(Math.max(blocks, array.length * 2, 16));
  next.set(array);
  return next;
}

export class BlockCounts {
  /** By code, then by block (code 0, null, included: a table may allow it). */
  private counts: Uint32Array[] = [];

  /** `size`: positions per block (tests use small blocks, so that every change crosses boundaries). */
  constructor(private readonly size = BLOCK) {}

  get bytes(): number {
    let total = 0;
    for (const perBlock of this.counts) total += perBlock?.byteLength ?? 0;
    return total;
  }

  private change(code: number, position: number, delta: number): void {
    const block = (position / this.size) | 0;
    const perBlock = this.counts[code] = grown(this.counts[code] ?? new Uint32Array(0), block + 1);
    perBlock[block] = perBlock[block]! + delta;
  }

  /** Counts every position of an order just built (a bulk load). */
  build(ids: Int32Array, length: number, codes: Codes): void {
    this.counts = [];
    for (let position = 0; position < length; position++) this.change(codes[ids[position]!]!, position, 1);
  }

  /**
   * The order took an id at `position` and moved every later id one place up: each block boundary
   * above it received the id from just below it.
   */
  inserted(ids: Int32Array, length: number, position: number, codes: Codes): void {
    this.change(codes[ids[position]!]!, position, 1);
    for (let start = (((position / this.size) | 0) + 1) * this.size; start < length; start += this.size) {
      const code = codes[ids[start]!]!;
      this.change(code, start - 1, -1);
      this.change(code, start, 1);
    }
  }

  /** Positions [first, end) of `ids` whose code is allowed. */
  count(allowed: Uint8Array, first: number, end: number, ids: Int32Array, codes: Codes): number {
    const size = this.size;
    const whole = Math.ceil(first / size);
    const wholeEnd = (end / size) | 0;
    if (whole >= wholeEnd) return countRows(allowed, first, end, ids, codes);
    let total = countRows(allowed, first, whole * size, ids, codes) + countRows(allowed, wholeEnd * size, end, ids, codes);
    for (let code = 0; code < allowed.length; code++) {
      const perBlock = allowed[code] === 1 ? this.counts[code] : undefined;
      if (!perBlock) continue;
      for (let block = whole; block < wholeEnd && block < perBlock.length; block++) total += perBlock[block]!;
    }
    return total;
  }
}

function countRows(allowed: Uint8Array, first: number, end: number, ids: Int32Array, codes: Codes): number {
  let total = 0;
  for (let position = first; position < end; position++) total += allowed[codes[ids[position]!]!]!;
  return total;
}
