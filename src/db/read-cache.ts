import type { Outbox } from './outbox.js';

/**
 * Results of reads kept until the data may have changed: cleared by every commit of this process
 * (before the write is acknowledged, so a caller always reads its own writes) and when another
 * instance publishes a new revision token (checked at most every `pollMs`, one `_id` read).
 *
 * For small, read-mostly collections (projects, environments, strategy types) that nearly every
 * admin request consults: on FerretDB each such read is a round trip and, for lists, a scan.
 * Cached values are shared: callers must not mutate them.
 */
export class ReadCache {
  private readonly values = new Map<string, Promise<unknown>>();
  private checkedAt = 0;
  private lastToken: string | null | undefined;

  constructor(
    private readonly outbox: Outbox,
    private readonly pollMs = 250,
  ) {
    outbox.onCommitted(() => this.values.clear());
  }

  async get<T>(key: string, load: () => Promise<T>): Promise<T> {
    const now = Date.now();
    if (now - this.checkedAt >= this.pollMs) {
      this.checkedAt = now;
      const token = await this.outbox.revisionToken();
      if (token !== this.lastToken) {
        this.lastToken = token;
        this.values.clear();
      }
    }
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
