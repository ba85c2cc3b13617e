/**
 * Per-revision state shipped to the pool's threads as a full copy of an earlier revision plus the
 * changes since, so that a new revision costs the main thread the changes' JSON and a thread that
 * holds a recent revision only the changes' apply (the playground's snapshot, the frontend API's
 * SDK state). Without it every revision cost the main thread the whole state's JSON (about 4 KB a
 * flag: 20 MB at 5 000 flags) and every thread a parse and compile of all of it (seconds at
 * 5 000 flags), whichever flag a write changed.
 *
 * The main thread's side is `RevisionChain`, the thread's `catchUp`; both are pure apart from the
 * shared memory they write and read. Revision numbers only grow within one chain.
 */
import { sharedText } from './shared-json.js';

/** The changes of one revision: from revision `from` (the previous one) to `to`. */
export interface Step<C> {
  from: number;
  to: number;
  changes: C;
}

/**
 * One revision as a task carries it: the full state as of revision `base` (UTF-8 JSON, shared),
 * and, when `base` is older than `revision`, the steps from `base` to `revision` in order (a JSON
 * array of `Step`s, shared). Both buffers are references, not copies.
 */
export interface ShippedRevision {
  revision: number;
  base: number;
  buffer: SharedArrayBuffer;
  steps?: SharedArrayBuffer;
}

/**
 * How long a chain may grow before the next revision ships a full copy again. A thread without a
 * copy applies every step after parsing the base, so steps are bounded by their count (each is a
 * shared buffer rewritten per revision: 64 steps of one flag are ~300 KB) and by the items they
 * change: past a quarter of the state's items (at least 64), compiling them costs as much as a
 * full compile.
 */
export const MAX_STEPS = 64;
export const MIN_CHANGED_ITEMS = 64;

interface Held<C> {
  from: number;
  to: number;
  changes: C;
  weight: number;
  /** The step's JSON, made when first shipped. */
  json?: string;
}

/**
 * The main thread's chain: the revision of the last full copy and the changes of each revision
 * after it. `record` is told of every revision as it is built (cheap: the changes are kept as
 * they are); `ship` makes the shared form of the latest revision when a task needs it, so
 * revisions no task needed cost no JSON. A revision that does not follow the last one recorded
 * (a value built whole) starts a new chain.
 */
export class RevisionChain<C> {
  private base: { revision: number; buffer?: SharedArrayBuffer } | undefined;
  private steps: Array<Held<C>> = [];
  private weight = 0;
  private last: number | undefined;
  private shipped: ShippedRevision | undefined;

  /**
   * Revision `revision` was built: from `previous` with `changes` (undefined: built whole) that
   * touch `weight` flags and segments, of the `items` the state now holds.
   */
  record(revision: number, previous: number | undefined, changes: C | undefined, weight: number, items: number): void {
    const follows = this.base !== undefined && previous !== undefined && previous === this.last && changes !== undefined;
    if (!follows || this.steps.length >= MAX_STEPS || this.weight + weight > Math.max(MIN_CHANGED_ITEMS, items / 4)) {
      this.base = { revision };
      this.steps = [];
      this.weight = 0;
    } else {
      this.steps.push({ from: previous, to: revision, changes, weight });
      this.weight += weight;
    }
    this.last = revision;
    this.shipped = undefined;
  }

  /**
   * The shipped form of `revision`. `full`: the JSON of the whole state as of `revision`, made
   * when no full copy since the chain's base was shipped yet (the chain then starts again at
   * `revision`) or for a revision other than the last recorded one (shipped whole, on its own);
   * `json`: a step's changes as the threads read them.
   */
  ship(revision: number, full: () => string, json: (changes: C) => string): ShippedRevision {
    if (revision !== this.last || this.base === undefined) return { revision, base: revision, buffer: sharedText(full()) };
    if (this.shipped !== undefined) return this.shipped;
    let buffer = this.base.buffer;
    if (buffer === undefined) {
      buffer = sharedText(full());
      this.base = { revision, buffer };
      this.steps = [];
      this.weight = 0;
    }
    if (this.steps.length === 0) {
      this.shipped = { revision, base: this.base.revision, buffer };
    } else {
      const steps = this.steps.map((step) => (step.json ??= `{"from":${step.from},"to":${step.to},"changes":${json(step.changes)}}`));
      this.shipped = { revision, base: this.base.revision, buffer, steps: sharedText(`[${steps.join(',')}]`) };
    }
    return this.shipped;
  }
}

/** A thread's copy of a shipped value: the value and the revision it is of. */
export interface Caught<T> {
  revision: number;
  value: T;
}

/**
 * The value of `shipped.revision` on a thread that holds `held`: `held` itself when it is of that
 * revision; `held` with the steps after it applied when it is of a revision the chain passes
 * through; else the base parsed and built whole (`whole`), with every step applied. `apply` gets
 * the steps to apply in order (at least one) and returns the new value without changing the one it
 * was given.
 */
export function catchUp<T, C>(
  held: Caught<T> | undefined,
  shipped: ShippedRevision,
  whole: (json: string) => T,
  apply: (value: T, steps: ReadonlyArray<Step<C>>) => T,
): Caught<T> {
  if (held !== undefined && held.revision === shipped.revision) return held;
  const steps = shipped.steps === undefined ? [] : JSON.parse(textOf(shipped.steps)) as Array<Step<C>>;
  if (held !== undefined && held.revision >= shipped.base && held.revision < shipped.revision) {
    const from = steps.findIndex((step) => step.from === held.revision);
    if (from >= 0) return { revision: shipped.revision, value: apply(held.value, steps.slice(from)) };
  }
  const value = whole(textOf(shipped.buffer));
  return { revision: shipped.revision, value: steps.length > 0 ? apply(value, steps) : value };
}

function textOf(buffer: SharedArrayBuffer): string {
  return Buffer.from(buffer).toString('utf8');
}
