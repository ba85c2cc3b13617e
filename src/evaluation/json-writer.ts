/**
 * Collects JSON text as UTF-8 bytes in fixed-size chunks.
 *
 * Performance: V8 puts any string over ~128 KiB in large-object space, and creating one costs
 * about 130–230 µs per 280 KiB (page mapping), whatever the number of pieces it is built from —
 * more than evaluating and serializing 100 flags. A playground response is exactly such a string.
 * Writing each flag's (small, cheaply flattened) JSON straight into reusable-size Buffers costs
 * about 20–30 µs for the same bytes, and the chunks can be streamed as they are.
 */
import { Buffer } from 'node:buffer';

/** 64 KiB: large enough that per-chunk overhead vanishes, small enough to stream early. */
const CHUNK_BYTES = 64 * 1024;

export class JsonChunkWriter {
  private readonly chunks: Buffer[] = [];
  private current: Buffer;
  private offset: number;
  /** Where the current chunk's text starts: after the reserved prefix in the first chunk, else 0. */
  private start: number;
  private inFirstChunk = true;
  private total = 0;

  /**
   * `firstChunkBytes`: room for the text in the first chunk (at least CHUNK_BYTES), so a caller
   * that can estimate its output gets it in one allocation. `reserve`: bytes left free in front of
   * the text for the caller to fill (a header), not counted in `byteLength` nor in `chunksView`.
   */
  constructor(options: { firstChunkBytes?: number; reserve?: number; firstChunk?: Buffer } = {}) {
    const reserve = options.reserve ?? 0;
    this.current = options.firstChunk ?? Buffer.allocUnsafe(reserve + Math.max(CHUNK_BYTES, options.firstChunkBytes ?? 0));
    this.offset = this.start = reserve;
  }

  /** Appends `text` as UTF-8. */
  write(text: string): void {
    // UTF-8 needs at most 3 bytes per UTF-16 code unit; checking that bound avoids measuring.
    if (this.offset + text.length * 3 > this.current.length) this.startChunk(text.length * 3);
    const written = this.current.write(text, this.offset, 'utf8');
    this.offset += written;
    this.total += written;
  }

  /** Appends bytes already encoded (a remembered fragment). */
  writeBytes(bytes: Uint8Array): void {
    if (this.offset + bytes.length > this.current.length) this.startChunk(bytes.length);
    this.current.set(bytes, this.offset);
    this.offset += bytes.length;
    this.total += bytes.length;
  }

  /** Bytes written so far. */
  get byteLength(): number {
    return this.total;
  }

  /** The written bytes as chunks (views; the writer must not be used afterwards). */
  chunksView(): Buffer[] {
    if (this.offset > this.start) this.chunks.push(this.current.subarray(this.start, this.offset));
    this.current = Buffer.alloc(0);
    this.offset = this.start = 0;
    return this.chunks;
  }

  /**
   * The reserved prefix and the text as one view starting at offset 0 of its own ArrayBuffer, when
   * all of it fit in the first chunk (so it can be transferred to another thread without a copy);
   * undefined otherwise. The writer must not be used afterwards.
   */
  whole(): Buffer | undefined {
    return this.inFirstChunk ? this.current.subarray(0, this.offset) : undefined;
  }

  /**
   * The written bytes copied into one buffer of its own, to transfer to another thread: small
   * Buffers share Node's 8 kB pool slab, and transferring a view of it would hand over the slab.
   * The writer must not be used afterwards.
   */
  toTransferable(): Uint8Array {
    const out = Buffer.allocUnsafeSlow(this.total);
    let offset = 0;
    for (const chunk of this.chunksView()) offset += chunk.copy(out, offset);
    return out;
  }

  /** The written bytes as one Buffer (the writer must not be used afterwards). */
  toBuffer(): Buffer {
    const chunks = this.chunksView();
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.total);
  }

  private startChunk(atLeast: number): void {
    if (this.offset > this.start) this.chunks.push(this.current.subarray(this.start, this.offset));
    this.current = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, atLeast));
    this.offset = this.start = 0;
    this.inFirstChunk = false;
  }
}
