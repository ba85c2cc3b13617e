import type { Outbox } from '../../db/outbox/index.js';
import { RevisionCache } from '../../db/revision-cache.js';
import {
  compile, overlay, RevisionChain, type CompiledSnapshot, type FlagConfig, type Snapshot, type SnapshotChanges,
} from '../../evaluation/index.js';
import type { SnapshotRef } from './protocol.js';

/** Where the flag configuration comes from (the flags and segments stores). */
export interface SnapshotSource {
  load(): Promise<Snapshot>;
}

export interface CurrentSnapshot {
  ref: SnapshotRef;
  /** Compiled on the main thread too, once per revision: flag order and counts for the limit. */
  compiled: CompiledSnapshot;
  /** What it was built from (the next build compiles only the flags and segments that differ). */
  raw: Snapshot;
}

/**
 * The flags and segments of `next` that are not in `previous` as the same object (the source makes
 * one object per flag revision, see source.ts; segments are compared by content, they are few), and
 * those gone; undefined when nothing changed. Compiling only these (`overlay`) instead of the
 * whole snapshot is what keeps the first playground request after a write close to a steady one.
 */
function changesBetween(previous: Snapshot, next: Snapshot): SnapshotChanges | undefined {
  const before = new Map(previous.flags.map((f) => [f.name, f]));
  const flags = next.flags.filter((f) => before.get(f.name) !== f);
  const names = new Set(next.flags.map((f) => f.name));
  const removedFlags = previous.flags.filter((f) => !names.has(f.name)).map((f) => f.name);
  const segmentsBefore = new Map(previous.segments.map((s) => [s.id, JSON.stringify(s)]));
  const segments = next.segments.filter((s) => segmentsBefore.get(s.id) !== JSON.stringify(s));
  const ids = new Set(next.segments.map((s) => s.id));
  const removedSegments = previous.segments.filter((s) => !ids.has(s.id)).map((s) => s.id);
  if (flags.length + removedFlags.length + segments.length + removedSegments.length === 0) return undefined;
  return { flags, removedFlags, segments, removedSegments };
}

/** Each flag's JSON, made once per flag revision (the source's objects are never changed). */
const flagJson = new WeakMap<object, string>();

function jsonOf(flag: FlagConfig): string {
  let json = flagJson.get(flag);
  if (json === undefined) {
    json = JSON.stringify(flag);
    flagJson.set(flag, json);
  }
  return json;
}

/**
 * `JSON.stringify(snapshot)`, from each flag's JSON made once: a full copy costs joining the
 * strings, not serialising every flag again (the snapshot of 2 000 flags is about 8 MB of JSON).
 */
function snapshotJson(snapshot: Snapshot): string {
  return `{"flags":[${snapshot.flags.map(jsonOf).join(',')}],"segments":${JSON.stringify(snapshot.segments)}}`;
}

/** How many flags and segments a change touches (the chain's bound counts them). */
function weightOf(changes: SnapshotChanges): number {
  return (changes.flags?.length ?? 0) + (changes.removedFlags?.length ?? 0) + (changes.segments?.length ?? 0) + (changes.removedSegments?.length ?? 0);
}

/**
 * The snapshot of `raw`, from the previous one: only the flags and segments that changed are
 * compiled again (`overlay`), and the threads are sent those changes (a `RevisionChain` step: the
 * changed flags' JSON, about 4 KB each) instead of a new full copy. A revision that changed
 * nothing the snapshot holds (a write to another collection) keeps the previous snapshot and its
 * revision number, so no thread does anything for it.
 */
export function nextSnapshot(chain: RevisionChain<SnapshotChanges>, revision: number, raw: Snapshot, previous: CurrentSnapshot | undefined): CurrentSnapshot {
  const items = raw.flags.length + raw.segments.length;
  const full = () => snapshotJson(raw);
  if (previous === undefined) {
    chain.record(revision, undefined, undefined, 0, items);
    return { ref: chain.ship(revision, full, changesJson), compiled: compile(raw), raw };
  }
  const changes = changesBetween(previous.raw, raw);
  if (changes === undefined) return { ...previous, raw };
  chain.record(revision, previous.ref.revision, changes, weightOf(changes), items);
  return { ref: chain.ship(revision, full, changesJson), compiled: overlay(previous.compiled, changes), raw };
}

/** A step's changes as JSON, the flags' from their JSON made once. */
function changesJson(changes: SnapshotChanges): string {
  return `{"flags":[${(changes.flags ?? []).map(jsonOf).join(',')}],"removedFlags":${JSON.stringify(changes.removedFlags ?? [])},` +
    `"segments":${JSON.stringify(changes.segments ?? [])},"removedSegments":${JSON.stringify(changes.removedSegments ?? [])}}`;
}

/**
 * The evaluation snapshot, rebuilt from the configuration state once per revision (RevisionCache):
 * after this instance's commits (read-your-writes) and other instances' noticed within
 * REVISION_POLL_MS (Outbox.follow). Its ref's revision is what the pool's threads bring
 * their compiled copies up to, once per revision.
 */
export class SnapshotCache extends RevisionCache<CurrentSnapshot> {
  constructor(source: SnapshotSource, outbox: Outbox) {
    const chain = new RevisionChain<SnapshotChanges>();
    super(async (revision, previous) => nextSnapshot(chain, revision, await source.load(), previous));
    outbox.onCommitted(() => this.invalidate());
  }
}

/** The last change request laid over each snapshot on the main thread, by its changes' key. */
const overlays = new WeakMap<CurrentSnapshot, { key: string; compiled: CompiledSnapshot }>();

/**
 * The snapshot with a change request's changes laid over it on the main thread (the preview's
 * flag selection and limit, the impact's affected flags): once per snapshot and changes key, so a
 * request previewed again, or its impact asked after its preview, is not overlaid again. The pool's
 * threads keep their own overlay by the same key (workers/compiled-cache.ts).
 */
export function withChanges(snapshot: CurrentSnapshot, changes: SnapshotChanges | undefined, changesKey: string | undefined): CompiledSnapshot {
  if (!changes) return snapshot.compiled;
  const last = overlays.get(snapshot);
  if (changesKey !== undefined && last?.key === changesKey) return last.compiled;
  const compiled = overlay(snapshot.compiled, changes);
  if (changesKey !== undefined) overlays.set(snapshot, { key: changesKey, compiled });
  return compiled;
}
