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
 * and, when `base` is older than `revision`, the steps from `base` to `revision` in order, in
 * chunks of at most CHUNK_STEPS (each a JSON array of `Step`s, shared) with the revision each
 * chunk ends at. All buffers are references, not copies.
 */
export interface ShippedRevision {
  revision: number;
  base: number;
  buffer: SharedArrayBuffer;
  steps?: SharedArrayBuffer[];
  stepsTo?: number[];
}

/**
 * How long a chain may grow before the next revision ships a full copy again. A thread without a
 * copy applies every step after parsing the base, so steps are bounded by the items they change:
 * past a quarter of the state's items (at least 64), compiling them costs as much as a full
 * compile. Each full copy costs the main thread the whole state's JSON (8 MB at 2 000 flags,
 * 0.2–0.45 s on the soak's busy main thread) and every thread a parse and compile of it; with one
 * buffer of every step rewritten per revision, the count had to stop at 64 steps, which the soak's
 * six writes a second reached every 10 s. Steps are now sealed in chunks of CHUNK_STEPS, each
 * written once, so a revision rewrites at most one chunk and the count bound is far off.
 */
export const MAX_STEPS = 1024;
export const CHUNK_STEPS = 64;
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
  /** The first `sealed.length * CHUNK_STEPS` steps, in chunks written once. */
  private sealed: Array<{ buffer: SharedArrayBuffer; to: number }> = [];
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
      this.restart();
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
      this.restart();
    }
    if (this.steps.length === 0) {
      this.shipped = { revision, base: this.base.revision, buffer };
    } else {
      const chunkOf = (steps: Array<Held<C>>) => ({
        buffer: sharedText(`[${steps.map((step) => (step.json ??= `{"from":${step.from},"to":${step.to},"changes":${json(step.changes)}}`)).join(',')}]`),
        to: steps.at(-1)!.to,
      });
      while ((this.sealed.length + 1) * CHUNK_STEPS <= this.steps.length) {
        const start = this.sealed.length * CHUNK_STEPS;
        const chunk = this.steps.slice(start, start + CHUNK_STEPS);
        this.sealed.push(chunkOf(chunk));
        for (const step of chunk) step.json = undefined;
      }
      const open = this.steps.slice(this.sealed.length * CHUNK_STEPS);
      const chunks = open.length === 0 ? this.sealed : [...this.sealed, chunkOf(open)];
      this.shipped = { revision, base: this.base.revision, buffer, steps: chunks.map((c) => c.buffer), stepsTo: chunks.map((c) => c.to) };
    }
    return this.shipped;
  }

  private restart(): void {
    this.steps = [];
    this.sealed = [];
    this.weight = 0;
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
  const chunks = shipped.steps ?? [];
  if (held !== undefined && held.revision >= shipped.base && held.revision < shipped.revision) {
    // Only the chunks that end after the held revision are read.
    const first = (shipped.stepsTo ?? []).findIndex((to) => to > held.revision);
    const steps = stepsIn<C>(chunks.slice(Math.max(first, 0)));
    const from = steps.findIndex((step) => step.from === held.revision);
    if (from >= 0) return { revision: shipped.revision, value: apply(held.value, steps.slice(from)) };
  }
  const steps = stepsIn<C>(chunks);
  const value = whole(textOf(shipped.buffer));
  return { revision: shipped.revision, value: steps.length > 0 ? apply(value, steps) : value };
}

function stepsIn<C>(chunks: readonly SharedArrayBuffer[]): Array<Step<C>> {
  return chunks.flatMap((chunk) => JSON.parse(textOf(chunk)) as Array<Step<C>>);
}

function textOf(buffer: SharedArrayBuffer): string {
  return Buffer.from(buffer).toString('utf8');
}
