import type { Outbox } from '../../db/outbox.js';
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
 * The evaluation snapshot, rebuilt from MongoDB once per revision.
 *
 * A revision changes when (a) this instance commits a write (outbox listener: read-your-writes,
 * since the write's response goes out after its flush) or (b) another instance does, noticed
 * within REVISION_POLL_MS by the outbox's revision watcher (Outbox.watchRevisions).
 */
export class SnapshotCache {
  private current: CurrentSnapshot | undefined;
  private dirty = true;
  private revision = 0;
  private building: Promise<CurrentSnapshot> | undefined;

  constructor(
    private readonly source: SnapshotSource,
    outbox: Outbox,
  ) {
    outbox.onCommitted(() => this.invalidate());
  }

  invalidate(): void {
    this.dirty = true;
  }

  /**
   * The snapshot as of now: rebuilt first when a write happened since the last build. Concurrent
   * requests share one rebuild; a build that started before a write does not count for it (the
   * write marked the cache dirty again), so a request after an acknowledged write always sees it.
   */
  async get(): Promise<CurrentSnapshot> {
    while (this.dirty || !this.current) {
      this.building ??= this.build().finally(() => {
        this.building = undefined;
      });
      await this.building;
    }
    return this.current;
  }

  private async build(): Promise<CurrentSnapshot> {
    this.dirty = false;
    try {
      const raw = await this.source.load();
      this.revision++;
      const previous = this.current;
      const changes = previous && changesBetween(previous.raw, raw);
      const compiled = !previous ? compile(raw) : changes ? overlay(previous.compiled, changes) : previous.compiled;
      this.current = { ref: { revision: this.revision, buffer: snapshotJson(raw) }, compiled, raw };
      return this.current;
    } catch (err) {
      this.dirty = true;
      throw err;
    }
  }
}
