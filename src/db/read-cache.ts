import type { Outbox } from './outbox.js';

/**
 * Results of reads kept until the data may have changed: cleared by every commit of this process
 * (before the write is acknowledged, so a caller always reads its own writes) and when another
 * instance's write is noticed (Outbox.watchRevisions, within REVISION_POLL_MS).
 *
 * For what nearly every admin request consults (projects, environments), flag views and event
 * searches (single flight included: concurrent identical reads share one promise): on
 * FerretDB each read is a round trip and, for lists, a scan, and under playground load those
 * round trips wait for CPU. Never for read-modify-write: mutations read fresh documents.
 * Cached values are shared: callers must not mutate them.
 */
export class ReadCache {
  private readonly values = new Map<string, Promise<unknown>>();

  constructor(outbox: Outbox, private readonly maxEntries = 5000) {
    outbox.onCommitted(() => this.values.clear());
  }

  async get<T>(key: string, load: () => Promise<T>): Promise<T> {
    let value = this.values.get(key) as Promise<T> | undefined;
    if (!value) {
      if (this.values.size >= this.maxEntries) this.values.clear();
      value = load();
      this.values.set(key, value);
      // A failed read is not kept.
      value.catch(() => this.values.delete(key));
    }
    return await value;
  }
}
