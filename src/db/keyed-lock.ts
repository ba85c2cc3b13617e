/**
 * Serialises async work per key inside one process.
 *
 * Why: FerretDB 1.x (our test and embedded database) does not make conditional updates atomic
 * under concurrency — measured here, 50 racing `replaceOne({_id, _rev: 1})` calls matched 3 times
 * and 300 racing `$inc`s produced 20 distinct values. Real MongoDB makes each of those atomic, so
 * across instances the `_rev` condition in `outbox.ts` protects us there; within an instance this
 * lock makes read-modify-write of one aggregate (a flag, a segment…) correct on both servers.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** `fn` holding the lock of `keys`: one, or several taken in sorted order (two callers cannot deadlock). */
  async run<T>(keys: string | readonly string[], fn: () => Promise<T>): Promise<T> {
    if (typeof keys === 'string') return await this.runOne(keys, fn);
    const sorted = [...new Set(keys)].sort();
    const from = async (held: number): Promise<T> => (held < sorted.length ? await this.runOne(sorted[held]!, () => from(held + 1)) : await fn());
    return await from(0);
  }

  private async runOne<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const current = new Promise<void>((r) => (release = r));
    const tail = previous.then(() => current);
    this.tails.set(key, tail);
    try {
      await previous.catch(() => undefined);
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
