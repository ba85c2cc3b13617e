/**
 * What crosses the thread boundary between the playground service (main thread) and its entry
 * point (workers/playground.ts; kinds `deprecated` and `advanced-chunk` of workers/protocol.ts).
 * Kept tiny on purpose: the flag snapshot travels as SharedArrayBuffer references (no copy) with a
 * revision number, and each worker brings its compiled copy up to that revision once; a request carries only its
 * context, environment, projects and index ranges. Results come back as UTF-8 bytes in a
 * transferred buffer, so the main thread never clones or re-serialises result objects.
 */
import { JsonChunkWriter, type ShippedRevision, type SnapshotChanges } from '../../evaluation/index.js';

/**
 * The snapshot of one revision: the evaluation `Snapshot` of revision `base` as UTF-8 JSON and the
 * `SnapshotChanges` of each revision after it (src/evaluation/revision-chain.ts), shared by all
 * workers; a worker holding a revision since `base` applies only the changes after it.
 */
export type SnapshotRef = ShippedRevision;

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
  /**
   * Memory lent by the main thread: the chunk is written into it when it fits, and the result is
   * then only the chunk's length (see ChunkWriter).
   */
  output?: SharedArrayBuffer;
}

export interface ChunkResult {
  /** UTF-8 text: for each flag of the range, its entries joined by ',' (no brackets). */
  bytes: Buffer;
  /** End offset in `bytes` of each flag's text. */
  ends: number[];
}

/*
 * An advanced chunk's layout, written by ChunkWriter (in the worker) and read by unpackChunk (on
 * the main thread), kept together so the two cannot drift: u32 flag count, u32 end offset of each
 * flag's text (relative to the text), then the text, all little-endian, in one transferred buffer.
 */

/** Writes one chunk: the caller writes each flag's text into `text`, then calls `endFlag`. */
export class ChunkWriter {
  readonly text: JsonChunkWriter;
  private readonly ends: number[] = [];

  /**
   * `expectedBytes`: the caller's estimate of the text's size. When the text fits, it is written
   * behind room reserved for the header and the chunk leaves as that one buffer, uncopied.
   */
  private readonly shared: boolean;

  /**
   * `output`: the task's lent memory, used when the estimate fits in it; `finish` then returns the
   * chunk's length in it instead of a buffer.
   */
  constructor(private readonly flagCount: number, expectedBytes: number, output?: SharedArrayBuffer) {
    const reserve = this.headerBytes();
    this.shared = output !== undefined && reserve + expectedBytes <= output.byteLength;
    this.text = new JsonChunkWriter({
      firstChunkBytes: expectedBytes, reserve, firstChunk: this.shared ? Buffer.from(output!) : undefined,
    });
  }

  /** The text written so far is the next flag's. */
  endFlag(): void {
    this.ends.push(this.text.byteLength);
  }

  /**
   * The chunk's length in the lent memory when it was written there; else the chunk in a buffer
   * of its own (transferable). The writer must not be used afterwards.
   */
  finish(): Uint8Array | number {
    if (this.ends.length !== this.flagCount) throw new Error(`chunk of ${this.flagCount} flags ended after ${this.ends.length}`);
    const whole = this.text.whole();
    // Past the estimate: header and chunks copied into one buffer (small Buffers share Node's
    // pool slab, and transferring a view of it would hand over the slab).
    const out = whole ?? Buffer.allocUnsafeSlow(this.headerBytes() + this.text.byteLength);
    out.writeUInt32LE(this.flagCount, 0);
    for (let f = 0; f < this.flagCount; f++) out.writeUInt32LE(this.ends[f]!, 4 * (f + 1));
    if (whole === undefined) {
      let offset = this.headerBytes();
      for (const chunk of this.text.chunksView()) offset += chunk.copy(out, offset);
    }
    return whole !== undefined && this.shared ? whole.length : out;
  }

  private headerBytes(): number {
    return 4 * (this.flagCount + 1);
  }
}

/** Reads a chunk written by ChunkWriter. */
export function unpackChunk(bytes: Uint8Array): ChunkResult {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.readUInt32LE(0);
  const header = 4 * (count + 1);
  const ends = new Array<number>(count);
  for (let f = 0; f < count; f++) ends[f] = view.readUInt32LE(4 * (f + 1));
  return { bytes: view.subarray(header), ends };
}
