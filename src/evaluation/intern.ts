/**
 * One shared object per distinct definition in this thread, for as long as anything holds it: the
 * compiled constraints and address lists that many flags repeat (constraints.ts, strategies.ts)
 * are then one object each, whose per-context memo answers every flag after the first. Entries
 * are weak: what no snapshot holds any more is collected and forgotten, so the table never
 * outgrows the live configurations (and the playground's previews of them).
 */
export class Interner<T extends object> {
  private readonly byKey = new Map<string, WeakRef<T>>();
  private readonly forget = new FinalizationRegistry<string>((key) => {
    // The key may name a newer object made after this one was collected.
    if (this.byKey.get(key)?.deref() === undefined) this.byKey.delete(key);
  });

  /** The live object made for `key`, else `make()`'s, remembered under `key`. */
  get(key: string, make: () => T): T {
    const known = this.byKey.get(key)?.deref();
    if (known !== undefined) return known;
    const made = make();
    this.byKey.set(key, new WeakRef(made));
    this.forget.register(made, key);
    return made;
  }

  /** Live and not yet forgotten entries (tests). */
  get size(): number {
    return this.byKey.size;
  }
}
