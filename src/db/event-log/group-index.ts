/**
 * The event log's ids by group hash: a chained hash table, bucket heads plus, per id, the next id
 * of its bucket. A search by group id reads its group's few events (and the few others sharing
 * its bucket) instead of walking every event's hash.
 *
 * Why: a group is one transaction's events, a handful, but the search index kept only the hash
 * column, so `groupId=IS:…` walked the whole log: at 10 M events p50 98 ms and p99 136 ms (bench/
 * events.ts), every other filter of the seed p99 ≤ 23 ms. Cost: 4 bytes per event for the
 * chain and 4 per bucket (at most one bucket per two grouped events: ≤ 2 bytes per event), 6 of
 * the index's ~41 bytes per event.
 *
 * Pure; the hashes live in the index's own column (`group`), which every call is given.
 */

import { grow } from './grow.js';

/** Buckets before the first resize. */
const INITIAL_BUCKETS = 1024;
/** Grouped events per bucket beyond which the table doubles (the chains a lookup walks stay short). */
const LOAD = 4;

export class GroupIndex {
  private heads = new Int32Array(INITIAL_BUCKETS);
  /** Per id: the next id in its bucket (0 ends the chain). */
  private next = new Int32Array(0);
  private mask = INITIAL_BUCKETS - 1;
  private count = 0;

  get bytes(): number {
    return this.heads.byteLength + this.next.byteLength;
  }

  /** Room for ids below `length` (the chain array grows with the index's columns). */
  ensureCapacity(length: number): void {
    this.next = grow(this.next, length);
  }

  /** Links `id`, whose hash is `group[id]` (0: no group, not linked). */
  add(id: number, group: Uint32Array): void {
    const hash = group[id]!;
    if (hash === 0) return;
    const bucket = hash & this.mask;
    this.next[id] = this.heads[bucket]!;
    this.heads[bucket] = id;
    if (++this.count > LOAD * this.heads.length) this.rebuild(group, group.length, this.heads.length * 2);
  }

  /**
   * Links every grouped id below `length` at once (a bulk load), in a table sized for them.
   * Ids are linked in ascending order, so each chain runs from its newest id down.
   */
  rebuild(group: Uint32Array, length: number, buckets = INITIAL_BUCKETS): void {
    length = Math.min(length, group.length);
    let grouped = 0;
    for (let id = 1; id < length; id++) if (group[id] !== 0) grouped++;
    while (buckets * LOAD < grouped) buckets *= 2;
    this.heads = new Int32Array(buckets);
    this.mask = buckets - 1;
    this.ensureCapacity(length);
    this.next.fill(0);
    this.count = grouped;
    for (let id = 1; id < length; id++) {
      const hash = group[id]!;
      if (hash === 0) continue;
      const bucket = hash & this.mask;
      this.next[id] = this.heads[bucket]!;
      this.heads[bucket] = id;
    }
  }

  /** The ids whose hash is one of `hashes` (in no particular order). */
  idsOf(hashes: readonly number[], group: Uint32Array): number[] {
    const ids: number[] = [];
    for (const hash of hashes) {
      for (let id = this.heads[hash & this.mask]!; id !== 0; id = this.next[id]!) if (group[id] === hash) ids.push(id);
    }
    return ids;
  }
}
