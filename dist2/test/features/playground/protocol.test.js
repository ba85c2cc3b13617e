/** The advanced chunk's layout: what ChunkWriter writes, unpackChunk reads back. */
import t from 'tap';
import { ChunkWriter, unpackChunk } from '../../../src/features/playground/protocol.js';
const FLAGS = ['{"a":1},{"a":2}', '', '"é€"'.repeat(5000), 'x'.repeat(70_000)];
function roundTrip(expectedBytes, output) {
    const chunk = new ChunkWriter(FLAGS.length, expectedBytes, output);
    for (const text of FLAGS) {
        for (let i = 0; i < text.length; i += 1000)
            chunk.text.write(text.slice(i, i + 1000));
        chunk.endFlag();
    }
    const result = chunk.finish();
    const bytes = typeof result === 'number' ? new Uint8Array(output, 0, result) : result;
    const { bytes: text, ends } = unpackChunk(bytes);
    return {
        flags: ends.map((end, f) => text.subarray(f === 0 ? 0 : ends[f - 1], end).toString('utf8')),
        ownBuffer: bytes.byteOffset === 0 && bytes.buffer.byteLength >= bytes.byteLength,
        shared: typeof result === 'number',
    };
}
t.test('each flag text comes back, whether it fit the estimate or overflowed it', async (t) => {
    const fits = roundTrip(1_000_000);
    t.same(fits.flags, FLAGS, 'one buffer, uncopied');
    t.ok(fits.ownBuffer);
    const overflows = roundTrip(0);
    t.same(overflows.flags, FLAGS, 'several chunks, copied behind the header');
    t.ok(overflows.ownBuffer);
});
t.test('lent memory holds the chunk when it fits, and is left alone when it does not', async (t) => {
    const lent = new SharedArrayBuffer(1_000_000);
    const fits = roundTrip(200_000, lent);
    t.ok(fits.shared, 'written into the lent memory, only its length returned');
    t.same(fits.flags, FLAGS);
    const small = new SharedArrayBuffer(1_000);
    const tooSmall = roundTrip(200_000, small);
    t.notOk(tooSmall.shared, 'an estimate past the lent memory gets a buffer of its own');
    t.same(tooSmall.flags, FLAGS);
    t.same(new Uint8Array(small), new Uint8Array(1_000), 'the small lent memory untouched');
    const underestimated = roundTrip(10, new SharedArrayBuffer(100_000));
    t.notOk(underestimated.shared, 'text outgrowing the lent memory is copied into a buffer of its own');
    t.same(underestimated.flags, FLAGS);
});
t.test('a chunk ended with the wrong number of flags is refused', async (t) => {
    const chunk = new ChunkWriter(2, 100);
    chunk.text.write('[]');
    chunk.endFlag();
    t.throws(() => chunk.finish(), /chunk of 2 flags ended after 1/);
});
//# sourceMappingURL=protocol.test.js.map