import t from 'tap';
import { presetDictionary } from '../../../src/db/event-log/dictionary.js';
import {
  BLOCK_SIZE, CURRENT_FORMAT, decodeBlockIndex, encodeBlock, EventBodies, sealedBodiesOf, type BlockEntry,
} from '../../../src/db/event-log/blocks.js';

const BASE = Date.UTC(2026, 0, 1);

/** Block 3 (ids 769–1024), with a void slot and a few multi-byte characters. */
function entries(): Array<BlockEntry | null> {
  return Array.from({ length: BLOCK_SIZE }, (_, slot) => {
    const id = 3 * BLOCK_SIZE + 1 + slot;
    if (slot === 17) return null;
    const event = {
      id, at: BASE + id, type: slot % 2 ? 'feature-strategy-add' : 'feature-created', project: 'default',
      featureName: `flag-${slot % 9}`, environment: slot % 3 ? 'production' : null, createdByUserId: slot % 4 ? 1 : null,
      groupId: slot % 5 ? `group-${slot}` : null,
    };
    return { event, json: JSON.stringify({ ...event, note: slot % 11 ? 'plain' : 'naïve – ✓' }) };
  });
}

function readAll(bodies: EventBodies, block: Array<BlockEntry | null>): Array<string | undefined> {
  return block.map((_, slot) => bodies.json(3 * BLOCK_SIZE + 1 + slot));
}

t.test('a block written now: every event\'s JSON back, void slots empty, index fields back', async (t) => {
  const block = entries();
  const doc = encodeBlock(3, block);
  t.equal(doc.segmentSize, CURRENT_FORMAT.segmentSize);
  t.equal(doc.dictionary, CURRENT_FORMAT.dictionary);
  const bodies = new EventBodies();
  bodies.seal(3, sealedBodiesOf(doc));
  t.same(readAll(bodies, block), block.map((e) => e?.json));
  const indexed = decodeBlockIndex(doc);
  t.equal(indexed.length, BLOCK_SIZE - 1);
  t.same(indexed.map((e) => [e.id, e.featureName, e.environment, e.createdByUserId]),
    block.filter((e) => e).map((e) => [e!.event.id, e!.event.featureName, e!.event.environment, e!.event.createdByUserId]));
  t.ok(bodies.segmentText(3 * BLOCK_SIZE + 1)!.text.toString().startsWith(block[0]!.json), 'a segment\'s text starts with its first event');
});

t.test('a block in another layout (32-event segments, no dictionary) is read by the layout it records', async (t) => {
  const block = entries();
  const doc = encodeBlock(3, block, { segmentSize: 32, dictionary: 0 });
  const bodies = new EventBodies();
  bodies.seal(3, sealedBodiesOf(doc));
  t.same(readAll(bodies, block), block.map((e) => e?.json));
});

t.test('the dictionary makes small segments small; an unknown version or a mismatched layout is refused', async (t) => {
  const block = entries();
  const withDictionary = encodeBlock(3, block).bodies.buffer.length;
  const without = encodeBlock(3, block, { segmentSize: CURRENT_FORMAT.segmentSize, dictionary: 0 }).bodies.buffer.length;
  t.ok(withDictionary < without, `${withDictionary} < ${without} bytes`);
  t.throws(() => presetDictionary(99), /dictionary 99/);
  const doc = encodeBlock(3, block);
  t.throws(() => sealedBodiesOf({ ...doc, dictionary: 99 }), /dictionary 99/);
  t.throws(() => sealedBodiesOf({ ...doc, segmentSize: 32 }), /segment size of 32/);
});
