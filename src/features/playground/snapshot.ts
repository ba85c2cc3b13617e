import type { Outbox } from '../../db/outbox/index.js';
import { RevisionCache } from '../../db/revision-cache.js';
import { compile, overlay, sharedText, type CompiledSnapshot, type Snapshot, type SnapshotChanges } from '../../evaluation/index.js';
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

/**
 * `JSON.stringify(snapshot)`, from each flag's JSON made once: a revision costs joining the
 * strings, not serialising every flag again (the snapshot of 2 000 flags is about 8 MB of JSON).
 */
function snapshotJson(snapshot: Snapshot): SharedArrayBuffer {
  const parts = snapshot.flags.map((flag) => {
    let json = flagJson.get(flag);
    if (json === undefined) {
      json = JSON.stringify(flag);
      flagJson.set(flag, json);
    }
    return json;
  });
  return sharedText(`{"flags":[${parts.join(',')}],"segments":${JSON.stringify(snapshot.segments)}}`);
}

/**
 * The evaluation snapshot, rebuilt from the configuration state once per revision (RevisionCache):
 * after this instance's commits (read-your-writes) and other instances' noticed within
 * REVISION_POLL_MS (Outbox.watchRevisions). Its build number is the revision the pool's threads
 * compile it once for.
 */
export class SnapshotCache extends RevisionCache<CurrentSnapshot> {
  constructor(source: SnapshotSource, outbox: Outbox) {
    super(async (revision, previous) => {
      const raw = await source.load();
      const changes = previous && changesBetween(previous.raw, raw);
      const compiled = !previous ? compile(raw) : changes ? overlay(previous.compiled, changes) : previous.compiled;
      return { ref: { revision, buffer: snapshotJson(raw) }, compiled, raw };
    });
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
