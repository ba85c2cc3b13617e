/** The advanced chunk's layout: what ChunkWriter writes, unpackChunk reads back. */
import t from 'tap';
import { ChunkWriter, unpackChunk } from '../../../src/features/playground/protocol.js';

const FLAGS = ['{"a":1},{"a":2}', '', '"é€"'.repeat(5000), 'x'.repeat(70_000)];

function roundTrip(expectedBytes: number): { flags: string[]; ownBuffer: boolean } {
  const chunk = new ChunkWriter(FLAGS.length, expectedBytes);
  for (const text of FLAGS) {
    for (let i = 0; i < text.length; i += 1000) chunk.text.write(text.slice(i, i + 1000));
    chunk.endFlag();
  }
  const bytes = chunk.finish();
  const { bytes: text, ends } = unpackChunk(bytes);
  return {
    flags: ends.map((end, f) => text.subarray(f === 0 ? 0 : ends[f - 1], end).toString('utf8')),
    ownBuffer: bytes.byteOffset === 0 && bytes.buffer.byteLength >= bytes.byteLength,
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

t.test('a chunk ended with the wrong number of flags is refused', async (t) => {
  const chunk = new ChunkWriter(2, 100);
  chunk.text.write('[]');
  chunk.endFlag();
  t.throws(() => chunk.finish(), /chunk of 2 flags ended after 1/);
});
