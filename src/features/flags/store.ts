import { BSON, type Collection } from 'mongodb';
import { withoutBookkeeping, type Outbox, type PendingEvent, type StoredDocument } from '../../db/outbox/index.js';
import { MirrorView, type CollectionMirror, type ConfigState } from '../../db/state.js';
import { liveJsonOf, type FlagData, type FlagDocument, type LiveFlag } from './read-model.js';

/** What the configuration state holds of the collection (src/db/state.ts). */
declare module '../../db/state.js' {
  interface HeldDocuments {
    flags: StoredFlag;
  }
}

/**
 * How a flag is stored: the flag as one Extended JSON string (`body`, Dates kept), beside the
 * bookkeeping fields and the two fields queries and indexes use. Why: FerretDB converts every
 * field of a document on each read and write, and a flag is deeply nested (environments,
 * strategies, constraints, variants). Measured on FerretDB 1.24 (SQLite), a 4.8 KB bench flag
 * among 100: reading it by `_id` cost FerretDB 10.5 ms of CPU and replacing it 28 ms; the same
 * flag as one string 1.1 ms and 3.8 ms. The write replay's flag writes are one read and one
 * replace each, so this is most of the database's work. Reads never parse it on the hot path:
 * the configuration state holds stored documents and unpackFlag parses each revision once.
 */
export interface PackedFlag extends StoredDocument {
  _id: string;
  project: string;
  /** Kept outside `body` for the `project` index and for tools that look at stored documents. */
  strategyIds: string[];
  body: string;
}

export type StoredFlag = PackedFlag;

/** The stored form of a flag (bookkeeping fields are left to the outbox). */
export function packFlag(doc: FlagData): PackedFlag {
  const { _id, ...data } = withoutBookkeeping(doc as FlagDocument);
  const body = BSON.EJSON.stringify(data);
  packedLately.set(body, data as Omit<FlagData, '_id'>);
  if (packedLately.size > PACKED_LATELY) packedLately.delete(packedLately.keys().next().value!);
  return { _id: _id as string, project: doc.project, strategyIds: doc.strategyIds ?? [], body };
}

/**
 * The flags this process packed lately, by body: when the state takes in a flag this process
 * just wrote, its body is not parsed back (a 5 KB flag's EJSON parse is 0.2–0.4 ms, and it was
 * paid by the first request after every flag write, `--cpu-prof` of the server). The
 * written object is used as it is: flags are never changed once made, like every state document.
 */
const packedLately = new Map<string, Omit<FlagData, '_id'>>();
const PACKED_LATELY = 64;

/** Stored documents are shared and never changed, so each is parsed once. */
const unpacked = new WeakMap<StoredFlag, FlagDocument>();

/** A stored flag and the flag it holds. */
export interface UnpackedFlag {
  stored: StoredFlag;
  flag: FlagDocument;
}

/**
 * A stored flag as the flag it holds, with its bookkeeping fields.
 * `previous`, the same flag's earlier stored form: when the new one carries the same body (only
 * the bookkeeping changed, as when its events were flushed) the body is not parsed again (a 5 KB
 * flag's EJSON parse is 0.2–0.4 ms, and every write's flush makes such a copy).
 */
export function unpackFlag(stored: StoredFlag, previous?: UnpackedFlag): FlagDocument {
  let flag = unpacked.get(stored);
  if (!flag) {
    const { body, project: _p, strategyIds: _s, ...bookkeeping } = stored;
    const data = previous?.stored.body === body
      ? (withoutBookkeeping(previous.flag) as Omit<FlagData, '_id'>)
      : (packedLately.get(body) ?? (BSON.EJSON.parse(body) as Omit<FlagData, '_id'>));
    flag = { ...data, ...bookkeeping };
    unpacked.set(stored, flag);
  }
  return flag;
}

/** Keeps the denormalised fields in step with the environments (call before every write). */
export function finalise<T extends FlagData>(doc: T): T {
  const ids: string[] = [];
  for (const env of Object.values(doc.environments)) for (const s of env.strategies) ids.push(s.id);
  return { ...doc, strategyIds: ids };
}

const liveCopies = new WeakMap<FlagDocument, LiveFlag>();

/**
 * The flag as evaluation reads it, made once per unpacked flag (they are never changed); `before`,
 * the same flag's live copy in the previous list, is kept when nothing evaluation reads changed.
 * An SDK's first reports move up to 2 000 flags' lifecycles (rewrites.ts): with a new object for
 * each, every commit of 64 of them recompiled and reshipped 64 flags to every pool thread, and the
 * changes' weight reset the revision chains to full copies (8 MB at 2 000 flags) every 8 commits,
 * the soak's first 20 s of 0.5 s event-loop stalls.
 */
function liveOf(flag: FlagDocument, before?: LiveFlag): LiveFlag {
  let copy = liveCopies.get(flag);
  if (!copy) {
    const { lifecycle: _l, createdBy: _c, links: _k, strategyIds: _s, archivedAt: _a, ...live } = withoutBookkeeping(flag) as FlagData;
    copy = before !== undefined && liveJsonOf(before) === liveJsonOf(live) ? before : live;
    liveCopies.set(flag, copy);
  }
  return copy;
}

/** The segments a flag's strategies use, in any environment (a stored flag may lack any part). */
function segmentsUsedBy(flag: Pick<FlagData, 'environments'>): Set<number> {
  const ids = new Set<number>();
  for (const env of Object.values(flag.environments ?? {})) {
    for (const strategy of env?.strategies ?? []) {
      for (const id of Array.isArray(strategy?.segments) ? strategy.segments : []) if (typeof id === 'number') ids.add(id);
    }
  }
  return ids;
}

/** The flags and projects that use one segment (FlagStore.segmentUsage). */
export interface SegmentUse {
  features: Set<string>;
  projects: Set<string>;
  allProjects: Set<string>;
}

/** How long one slice of the background parse after a load holds the main thread (FlagStore.unpackInBackground). */
const UNPACK_SLICE_MS = 10;

const byCreation = (a: FlagData, b: FlagData) =>
  a.createdAt.getTime() - b.createdAt.getTime() || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);

/**
 * What FlagStore keeps beside the state's flags, current flag by flag (see FlagStore.index).
 * Only `ordered` and the children lists are handed out, so only they are copied on a change; the
 * maps are private and updated in place.
 */
interface FlagIndex {
  /** Every flag, unpacked, in creation order. */
  ordered: FlagDocument[];
  /** Each flag's stored and unpacked form, by name. */
  byName: Map<unknown, UnpackedFlag>;
  /** Names of the non-archived flags that depend on each parent, in creation order. */
  children: Map<string, string[]>;
  /** Which flag holds each strategy id. */
  strategyOwner: Map<string, string>;
  /** Non-archived flags. */
  active: number;
}

function indexAll(docs: Iterable<StoredFlag>): FlagIndex {
  const index: FlagIndex = { ordered: [], byName: new Map(), children: new Map(), strategyOwner: new Map(), active: 0 };
  for (const stored of docs) {
    const flag = unpackFlag(stored);
    index.byName.set(stored._id, { stored, flag });
    index.ordered.push(flag);
  }
  index.ordered.sort(byCreation);
  for (const flag of index.ordered) enter(index, flag, +1);
  return index;
}

/** Adds (+1) or takes away (-1) what `flag` contributes to the children, owners and count. */
function enter(index: FlagIndex, flag: FlagDocument, sign: 1 | -1): void {
  for (const id of flag.strategyIds ?? []) {
    if (sign > 0) index.strategyOwner.set(id, flag.name);
    else if (index.strategyOwner.get(id) === flag.name) index.strategyOwner.delete(id);
  }
  if (flag.archived) return;
  index.active += sign;
  for (const d of flag.dependencies ?? []) {
    const list = index.children.get(d.feature) ?? [];
    // A new array each time: a reader may hold the previous one.
    const next = sign > 0 ? [...list, flag.name] : list.filter((name) => name !== flag.name);
    if (next.length === 0) index.children.delete(d.feature);
    else index.children.set(d.feature, sign > 0 && list.length > 0 ? inCreationOrder(index, next) : next);
  }
}

function inCreationOrder(index: FlagIndex, names: string[]): string[] {
  const created = (name: string) => index.byName.get(name)?.flag;
  return names.sort((a, b) => {
    const fa = created(a);
    const fb = created(b);
    return fa && fb ? byCreation(fa, fb) : 0;
  });
}

/** Where `flag` is, or would be inserted, in `ordered` (binary search by creation). */
function positionOf(ordered: readonly FlagDocument[], flag: FlagDocument): number {
  let low = 0;
  let high = ordered.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (byCreation(ordered[middle]!, flag) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The index after some flags changed: each changed flag leaves its place and takes its new one
 * (binary search) in a copy of the order, and its contributions are taken away and added again.
 * Many changes at once (another instance's burst) build it whole instead.
 */
function reindex(index: FlagIndex, changed: Array<[id: unknown, stored: StoredFlag | undefined]>): FlagIndex | undefined {
  if (changed.length > 16 + index.ordered.length / 8) return undefined;
  const ordered = index.ordered.slice();
  const next: FlagIndex = { ...index, ordered };
  for (const [id, stored] of changed) {
    const previous = next.byName.get(id);
    if (previous) {
      const at = positionOf(ordered, previous.flag);
      ordered.splice(ordered[at] === previous.flag ? at : ordered.indexOf(previous.flag), 1);
      next.byName.delete(id);
      enter(next, previous.flag, -1);
    }
    if (stored) {
      const flag = unpackFlag(stored, previous);
      ordered.splice(positionOf(ordered, flag), 0, flag);
      next.byName.set(id, { stored, flag });
      enter(next, flag, +1);
    }
  }
  return next;
}

/** The live list of `ordered` made whole, keeping `previous` copies of flags whose evaluated part did not change. */
function liveWhole(previous: readonly LiveFlag[] | undefined, ordered: readonly FlagDocument[]): LiveFlag[] {
  let byName: Map<string, LiveFlag> | undefined;
  return ordered.filter((f) => !f.archived).map((flag) => {
    if (liveCopies.has(flag) || previous === undefined) return liveOf(flag);
    byName ??= new Map(previous.map((copy) => [copy.name, copy]));
    return liveOf(flag, byName.get(flag.name));
  });
}

/**
 * The live list of `ordered` from the one made of `previous.ordered`, when the flags changed in
 * place (see FlagStore.snapshotSource); undefined otherwise.
 */
function liveInPlace(previous: { ordered: readonly FlagDocument[]; live: LiveFlag[] }, ordered: readonly FlagDocument[]): LiveFlag[] | undefined {
  if (ordered.length !== previous.ordered.length) return undefined;
  const limit = 16 + ordered.length / 8;
  let live: LiveFlag[] | undefined;
  let position = -1; // the live position of ordered[counted - 1]
  let counted = 0;
  let changes = 0;
  for (let i = 0; i < ordered.length; i++) {
    const flag = ordered[i]!;
    const before = previous.ordered[i]!;
    if (flag === before) continue;
    if (flag.name !== before.name || flag.archived || before.archived || ++changes > limit) return undefined;
    for (; counted <= i; counted++) if (!previous.ordered[counted]!.archived) position++;
    const copy = liveOf(flag, previous.live[position]);
    if (copy === previous.live[position]) continue;
    live ??= previous.live.slice();
    live[position] = copy;
  }
  return live ?? previous.live;
}

/**
 * Flags, read from the configuration state (src/db/state.ts): no read here goes to the database.
 * Lists and indexes are derived once per revision.
 */
export class FlagStore {
  readonly collection: Collection<StoredFlag>;
  private readonly mirror: CollectionMirror<StoredFlag>;
  private readonly state: ConfigState;

  /**
   * Every flag in creation order, the child lists, the strategy owners and the count of active
   * flags, kept current flag by flag. Derived whole per revision they were the largest cost of a
   * flag creation at 1 100 flags (5.5 of its ~11 ms of CPU: every flag unpacked again and sorted,
   * then a pass over all of them for the child list its response shows, ~1 µs a flag); now a
   * write costs its own flag's unpack and two binary searches. Only the project lists and the
   * playground's list are still one pass over `ordered` per revision, paid by their readers.
   */
  private readonly index: MirrorView<StoredFlag, FlagIndex>;

  constructor(private readonly outbox: Outbox) {
    this.collection = outbox.collection<StoredFlag>('flags');
    this.state = outbox.state;
    this.mirror = outbox.state.mirror('flags');
    this.index = new MirrorView(this.mirror, indexAll, reindex);
    this.mirror.onLoaded(() => this.unpackInBackground());
  }

  /**
   * After a load, every flag is parsed and the index built in the background, in slices of
   * UNPACK_SLICE_MS between which requests are served. Left to the first reader, that was a stall
   * of the main thread of the size of the configuration, right after a start: at 5 000 bench
   * flags the first write (or playground, SDK or list request) waited ~500 ms for 5 000 EJSON
   * parses (`--cpu-prof` of the server: `indexAll` 481 ms of a 558 ms strategy add). A
   * reader that comes before the slices are done parses only what they have not.
   */
  private unpackInBackground(): void {
    const docs = [...this.mirror.values()];
    let next = 0;
    const slice = () => {
      const until = performance.now() + UNPACK_SLICE_MS;
      while (next < docs.length && performance.now() < until) {
        try {
          unpackFlag(docs[next++]!);
        } catch {
          // A body that does not parse fails the reader that needs it, with its own error.
        }
      }
      if (next < docs.length) {
        setImmediate(slice);
        return;
      }
      try {
        this.index.get();
      } catch {
        // As above: the reader that asks for the index meets the same error and reports it.
      }
    };
    setImmediate(slice);
  }

  /** The flag as stored (with `_rev`), archived or not; null when unknown. */
  async get(name: string): Promise<FlagDocument | null> {
    return this.getNow(name);
  }

  getNow(name: string): FlagDocument | null {
    const doc = this.mirror.get(name);
    return doc ? unpackFlag(doc, this.index.get().byName.get(name)) : null;
  }

  /** Every flag, decoded, in creation order. */
  private ordered(): FlagDocument[] {
    return this.index.get().ordered;
  }

  async listByProject(project: string, options: { archived?: boolean } = {}): Promise<FlagDocument[]> {
    const archived = options.archived ?? false;
    return this.state.derived(`flags:project:${project}:${archived}`, () =>
      this.ordered().filter((f) => f.project === project && f.archived === archived));
  }

  /** Every flag (archived ones too), for operations that touch all of them. */
  async all(): Promise<FlagDocument[]> {
    return this.ordered();
  }

  /** Names of the non-archived flags that depend on `name`. */
  async children(name: string): Promise<string[]> {
    return this.childrenNow(name);
  }

  childrenNow(name: string): string[] {
    return this.index.get().children.get(name) ?? [];
  }

  /** Inserts a new flag with its events. */
  async insert(doc: FlagData, events: PendingEvent[]): Promise<void> {
    await this.outbox.insert<StoredFlag>(this.collection, packFlag(doc), events);
  }

  /** Replaces `current` (as read) by `next`, with its events (see Outbox.replace). */
  async replace(current: FlagDocument, next: FlagData, events: PendingEvent[]): Promise<void> {
    // The outbox reads only the bookkeeping of `current` (its `_id`, `_rev` and pending events).
    await this.outbox.replace<StoredFlag>(this.collection, current, packFlag(next), events);
  }

  /**
   * Several flags in one commit, all or nothing (a bulk operation): each `current` (as read) is
   * replaced by its `next`, or removed when `next` is null; ConcurrentModificationError when another
   * write came first to any of them.
   */
  async writeMany(writes: ReadonlyArray<{ current: FlagDocument; next: FlagData | null }>, events: PendingEvent[]): Promise<void> {
    await this.outbox.write(writes.map(({ current, next }) => {
      const base = current._rev ?? 0;
      return { coll: this.collection.collectionName, id: current._id, base, doc: next && { ...packFlag(next), _id: current._id, _rev: base + 1 } };
    }), events);
  }

  async countActive(): Promise<number> {
    return this.index.get().active;
  }

  async findByStrategyId(id: string): Promise<FlagDocument | null> {
    const index = this.index.get();
    const owner = index.strategyOwner.get(id);
    return owner === undefined ? null : index.byName.get(owner)?.flag ?? null;
  }

  async projectHasDependencies(project: string): Promise<boolean> {
    return (await this.listByProject(project)).some((f) => (f.dependencies ?? []).length > 0);
  }

  /**
   * Which flags and projects use each segment in a strategy (the segments feature's usage counts
   * and deletion check): `features`/`projects` count flags that are not archived (Unleash's
   * usedInFeatures/usedInProjects), `allProjects` includes archived ones. Derived once per revision.
   */
  segmentUsage(): ReadonlyMap<number, SegmentUse> {
    return this.state.derived('flags:segment-usage', () => {
      const result = new Map<number, SegmentUse>();
      // Straight from the held documents: a flag written by hand may lack the fields the
      // ordered list sorts by, and must still count.
      for (const stored of this.mirror.values()) {
        const flag = unpackFlag(stored);
        const name = String(flag.name ?? flag._id);
        const project = String(flag.project ?? '');
        for (const segmentId of segmentsUsedBy(flag)) {
          let entry = result.get(segmentId);
          if (!entry) result.set(segmentId, (entry = { features: new Set(), projects: new Set(), allProjects: new Set() }));
          entry.allProjects.add(project);
          if (!flag.archived) {
            entry.features.add(name);
            entry.projects.add(project);
          }
        }
      }
      return result;
    });
  }

  /**
   * Whether a flag uses the segment, asked right after a write of this process (the segment's
   * deletion mark): exact then, since the commit log orders every write and this process has
   * applied every commit before its own (src/db/outbox/).
   */
  async usesSegmentInDatabase(id: number): Promise<boolean> {
    return this.segmentUsage().has(id);
  }

  /**
   * Every non-archived flag as evaluation reads it: what the playground evaluates and the SDK
   * state holds. Each flag's copy is made once per stored revision (`liveOf`), and after the usual write
   * (flags changed in place: the same flags in the same order, none archived or restored) the
   * list is the previous one copied with the changed places replaced, found by identity (the
   * index keeps an unchanged flag's object): at 5 000 flags the filter and the copies' look-ups
   * were 4 ms of every build after a write (`--cpu-prof`), the copy is a memcpy.
   */
  async snapshotSource(): Promise<LiveFlag[]> {
    return this.state.derived('flags:snapshot', () => {
      const ordered = this.ordered();
      const previous = this.lastSnapshot;
      const live = (previous !== undefined && liveInPlace(previous, ordered)) || liveWhole(previous?.live, ordered);
      this.lastSnapshot = { ordered, live };
      return live;
    });
  }

  private lastSnapshot: { ordered: readonly FlagDocument[]; live: LiveFlag[] } | undefined;
}
