import { LRUCache } from 'lru-cache';

/**
 * Results of reads kept until the data may have changed: cleared by every commit of this process
 * (before the write is acknowledged, so a caller always reads its own writes) and when another
 * instance's write is noticed (Outbox.follow, after the configuration state took it in).
 *
 * For views built from the configuration state (one flag's resource) and event searches (single
 * flight included: concurrent identical reads share one promise). Never for read-modify-write:
 * mutations read the state's documents. Cached values are shared: callers must not mutate them.
 * At most `maxEntries` results, the least recently used dropped first.
 */
export class ReadCache {
  private readonly values: LRUCache<string, Promise<unknown>>;

  constructor(outbox: { onCommitted(listener: () => void): unknown }, maxEntries = 5000) {
    this.values = new LRUCache({ max: maxEntries });
    outbox.onCommitted(() => this.values.clear());
  }

  async get<T>(key: string, load: () => Promise<T>): Promise<T> {
    let value = this.values.get(key) as Promise<T> | undefined;
    if (!value) {
      value = load();
      this.values.set(key, value);
      // A failed read is not kept.
      value.catch(() => this.values.delete(key));
    }
    return await value;
  }
}
