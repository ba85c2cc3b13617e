/**
 * What crosses the thread boundary between the playground service (main thread) and its workers.
 * Kept tiny on purpose: the flag snapshot travels as a SharedArrayBuffer reference (no copy) with a
 * revision number, and each worker compiles it once per revision; a request carries only its
 * context, environment, projects and index ranges. Results come back as UTF-8 bytes in a
 * transferred buffer, so the main thread never clones or re-serialises result objects.
 */
import { JsonChunkWriter } from '../../evaluation/index.js';
/*
 * An advanced chunk's layout, written by ChunkWriter (in the worker) and read by unpackChunk (on
 * the main thread), kept together so the two cannot drift: u32 flag count, u32 end offset of each
 * flag's text (relative to the text), then the text, all little-endian, in one transferred buffer.
 */
/** Writes one chunk: the caller writes each flag's text into `text`, then calls `endFlag`. */
export class ChunkWriter {
    flagCount;
    text;
    ends = [];
    /**
     * `expectedBytes`: the caller's estimate of the text's size. When the text fits, it is written
     * behind room reserved for the header and the chunk leaves as that one buffer, uncopied.
     */
    shared;
    /**
     * `output`: the task's lent memory, used when the estimate fits in it; `finish` then returns the
     * chunk's length in it instead of a buffer.
     */
    constructor(flagCount, expectedBytes, output) {
        this.flagCount = flagCount;
        const reserve = this.headerBytes();
        this.shared = output !== undefined && reserve + expectedBytes <= output.byteLength;
        this.text = new JsonChunkWriter({
            firstChunkBytes: expectedBytes, reserve, firstChunk: this.shared ? Buffer.from(output) : undefined,
        });
    }
    /** The text written so far is the next flag's. */
    endFlag() {
        this.ends.push(this.text.byteLength);
    }
    /**
     * The chunk's length in the lent memory when it was written there; else the chunk in a buffer
     * of its own (transferable). The writer must not be used afterwards.
     */
    finish() {
        if (this.ends.length !== this.flagCount)
            throw new Error(`chunk of ${this.flagCount} flags ended after ${this.ends.length}`);
        const whole = this.text.whole();
        // Past the estimate: header and chunks copied into one buffer (small Buffers share Node's
        // pool slab, and transferring a view of it would hand over the slab).
        const out = whole ?? Buffer.allocUnsafeSlow(this.headerBytes() + this.text.byteLength);
        out.writeUInt32LE(this.flagCount, 0);
        for (let f = 0; f < this.flagCount; f++)
            out.writeUInt32LE(this.ends[f], 4 * (f + 1));
        if (whole === undefined) {
            let offset = this.headerBytes();
            for (const chunk of this.text.chunksView())
                offset += chunk.copy(out, offset);
        }
        return whole !== undefined && this.shared ? whole.length : out;
    }
    headerBytes() {
        return 4 * (this.flagCount + 1);
    }
}
/** Reads a chunk written by ChunkWriter. */
export function unpackChunk(bytes) {
    const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const count = view.readUInt32LE(0);
    const header = 4 * (count + 1);
    const ends = new Array(count);
    for (let f = 0; f < count; f++)
        ends[f] = view.readUInt32LE(4 * (f + 1));
    return { bytes: view.subarray(header), ends };
}
//# sourceMappingURL=protocol.js.map