/**
 * What crosses the thread boundary between the playground service (main thread) and its workers.
 * Kept tiny on purpose: the flag snapshot travels as a SharedArrayBuffer reference (no copy) with a
 * revision number, and each worker compiles it once per revision; a request carries only its
 * context, environment, projects and index ranges. Results come back as UTF-8 bytes in a
 * transferred buffer, so the main thread never clones or re-serialises result objects.
 */
import type { SnapshotChanges } from '../../evaluation/index.js';

export interface SnapshotRef {
  revision: number;
  /** UTF-8 JSON of the evaluation `Snapshot`, shared by all workers. */
  buffer: SharedArrayBuffer;
}

export interface DeprecatedTask {
  kind: 'deprecated';
  snapshot: SnapshotRef;
  environment: string;
  projects?: string[];
  context: Record<string, unknown>;
  /** JSON of the request body, echoed as `input`. */
  inputJson: string;
}

/** One slice of an advanced (or change-request) playground request. */
export interface AdvancedChunkTask {
  kind: 'advanced-chunk';
  snapshot: SnapshotRef;
  /** Change-request preview: changed flags/segments applied over the snapshot, in memory only. */
  changes?: SnapshotChanges;
  /** Identifies `changes` so a worker compiles one preview once even when it gets several slices. */
  changesKey?: string;
  environment: string;
  projects?: string[];
  /** The cleaned context (docs/rules.md §3.4); the worker expands combinations [comboStart, comboEnd). */
  context: Record<string, unknown>;
  comboStart: number;
  comboEnd: number;
  /** Flags [flagStart, flagEnd) of the selection are written. */
  flagStart: number;
  flagEnd: number;
}

export interface CrashTask {
  /** Fault injection for tests: the worker exits abruptly. Not reachable from HTTP. */
  kind: 'crash';
}

export type PlaygroundTask = DeprecatedTask | AdvancedChunkTask | CrashTask;

export interface ChunkResult {
  /** UTF-8 text: for each flag of the range, its entries joined by ',' (no brackets). */
  bytes: Buffer;
  /** End offset in `bytes` of each flag's text. */
  ends: number[];
}

/** Chunk layout (written by worker.ts): u32 flag count, u32 end offset of each flag's text, then the text. */
export function unpackChunk(bytes: Uint8Array): ChunkResult {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.readUInt32LE(0);
  const header = 4 * (count + 1);
  const ends: number[] = new Array(count);
  for (let f = 0; f < count; f++) ends[f] = view.readUInt32LE(4 * (f + 1));
  return { bytes: view.subarray(header), ends };
}
