/**
 * A value built from the configuration as of one revision, kept until a commit may have changed
 * it: the playground's snapshot (features/playground/snapshot.ts) and the SDK state
 * (features/client-api/state.ts). Its owner calls `invalidate` from `outbox.onCommitted` (this
 * process's writes before they are acknowledged, other instances' within REVISION_POLL_MS).
 *
 * An invalidation only marks the value stale; the next `get` rebuilds it. Concurrent callers share
 * one rebuild, and a rebuild that started before an invalidation does not count for it (the value
 * is stale again when it ends), so a caller after an acknowledged write always sees that write.
 * A failed rebuild leaves the value stale and fails its callers; the next `get` tries again.
 */
export class RevisionCache<T> {
  private current: T | undefined;
  private dirty = true;
  private builds = 0;
  private building: Promise<T> | undefined;
  private readonly listeners = new Set<(value: T, previous: T | undefined) => void>();

  /**
   * `build(number, previous)`: the value now. `number` counts this cache's builds from 1 (a failed
   * build does not use one up), so it identifies a value within the process; `previous` lets a
   * build reuse what did not change.
   */
  constructor(private readonly build: (number: number, previous: T | undefined) => Promise<T>) {}

  invalidate(): void {
    this.dirty = true;
  }

  /** The value when it is current, else undefined: for callers that answer without a promise when they can. */
  get fresh(): T | undefined {
    return this.dirty ? undefined : this.current;
  }

  /** The value as of now: rebuilt first when it is stale. */
  async get(): Promise<T> {
    while (this.dirty || this.current === undefined) {
      this.building ??= this.rebuild().finally(() => {
        this.building = undefined;
      });
      await this.building;
    }
    return this.current;
  }

  /** Told of every rebuilt value, once it is the current one. */
  onRebuilt(listener: (value: T, previous: T | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async rebuild(): Promise<T> {
    this.dirty = false;
    const previous = this.current;
    let value: T;
    try {
      value = await this.build(this.builds + 1, previous);
    } catch (err) {
      this.dirty = true;
      throw err;
    }
    this.builds++;
    this.current = value;
    for (const listener of this.listeners) listener(value, previous);
    return value;
  }
}

/**
 * The same idea where the revision comes with the question, synchronously: a value derived from
 * the latest revision asked about, rebuilt when another one is asked. For a pool thread's copy of
 * what a task refers to by revision number (workers/compiled-cache.ts, workers/sdk-state.ts) and
 * for views derived from the configuration state (ConfigState.derived).
 */
export class LatestRevision<T> {
  private revision: number | undefined;
  private value: T | undefined;

  /** The value of `revision`: kept from the last call when it asked for the same one, else `build(previous)`. */
  get(revision: number, build: (previous: T | undefined) => T): T {
    if (this.revision === revision && this.value !== undefined) return this.value;
    const value = build(this.value);
    this.value = value;
    this.revision = revision;
    return value;
  }
}
