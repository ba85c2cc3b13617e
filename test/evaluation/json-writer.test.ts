/** UTF-8 chunk writer and the chunked playground output. */
import t from 'tap';
import { compile, evaluateToJson, evaluateToJsonChunks, JsonChunkWriter } from '../../src/evaluation/index.js';
import { PEER_SNAPSHOT } from './fixtures/peer-config.js';

t.test('bytes equal Buffer.from of the concatenated text, across chunk boundaries', async (t) => {
  const pieces = ['[', '"ñé😀\\u2028"', ',', 'x'.repeat(70_000), ',', '"€"'.repeat(30_000), ']'];
  const writer = new JsonChunkWriter();
  for (const piece of pieces) writer.write(piece);
  const expected = Buffer.from(pieces.join(''));
  t.equal(writer.byteLength, expected.length);
  const chunks = new JsonChunkWriter();
  for (const piece of pieces) chunks.write(piece);
  const views = chunks.chunksView();
  t.ok(views.length > 1, 'several chunks');
  t.ok(Buffer.concat(views).equals(expected));
  t.ok(writer.toBuffer().equals(expected));
  const empty = new JsonChunkWriter();
  t.equal(empty.toBuffer().length, 0);
});

t.test('chunked playground output equals the string output', async (t) => {
  const compiled = compile(PEER_SNAPSHOT);
  for (const environment of ['development', 'production']) {
    const context = { appName: 'a', userId: '123', region: 'eu' };
    const text = evaluateToJson(compiled, environment, context);
    t.equal(Buffer.concat(evaluateToJsonChunks(compiled, environment, context)).toString('utf8'), text);
  }
});
