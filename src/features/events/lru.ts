/**
 * A bounded map of values that never go stale (events are immutable): the least recently used
 * entry leaves when full. A Map keeps insertion order, so re-inserting on use is the recency list.
 */
export class Lru<K, V> {
  private readonly values = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  /** The value for `key` (now the most recently used), or undefined. */
  get(key: K): V | undefined {
    const value = this.values.get(key);
    if (value !== undefined) {
      this.values.delete(key);
      this.values.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    if (!this.values.delete(key) && this.values.size >= this.capacity) this.values.delete(this.values.keys().next().value!);
    this.values.set(key, value);
  }

  /** The value for `key`, made by `make` on a miss. */
  getOrCreate(key: K, make: () => V): V {
    let value = this.get(key);
    if (value === undefined) {
      value = make();
      this.set(key, value);
    }
    return value;
  }
}
