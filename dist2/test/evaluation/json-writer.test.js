/** UTF-8 chunk writer and the chunked playground output. */
import t from 'tap';
import { compile, evaluateToJson, evaluateToJsonChunks, JsonChunkWriter } from '../../src/evaluation/index.js';
import { PEER_SNAPSHOT } from './fixtures/peer-config.js';
t.test('bytes equal Buffer.from of the concatenated text, across chunk boundaries', async (t) => {
    const pieces = ['[', '"ñé😀\\u2028"', ',', 'x'.repeat(70_000), ',', '"€"'.repeat(30_000), ']'];
    const writer = new JsonChunkWriter();
    for (const piece of pieces)
        writer.write(piece);
    const expected = Buffer.from(pieces.join(''));
    t.equal(writer.byteLength, expected.length);
    const chunks = new JsonChunkWriter();
    for (const piece of pieces)
        chunks.write(piece);
    const views = chunks.chunksView();
    t.ok(views.length > 1, 'several chunks');
    t.ok(Buffer.concat(views).equals(expected));
    t.ok(writer.toBuffer().equals(expected));
    const empty = new JsonChunkWriter();
    t.equal(empty.toBuffer().length, 0);
});
t.test('a reserved prefix and a sized first chunk give the text in one transferable view', async (t) => {
    const fits = new JsonChunkWriter({ firstChunkBytes: 200_000, reserve: 8 });
    for (let i = 0; i < 150; i++)
        fits.write('x'.repeat(1000)); // write() keeps room for 3 bytes a character
    fits.writeBytes(Buffer.from('"€"'));
    t.equal(fits.byteLength, 150_005, 'the reserve is not counted');
    const whole = fits.whole();
    t.ok(whole, 'everything fit in the first chunk');
    t.equal(whole.byteOffset, 0);
    t.equal(whole.length, 8 + 150_005);
    t.equal(whole.subarray(8).toString('utf8'), 'x'.repeat(150_000) + '"€"');
    const overflows = new JsonChunkWriter({ reserve: 8 });
    const pieces = ['a'.repeat(60_000), 'b'.repeat(60_000)];
    for (const piece of pieces)
        overflows.write(piece);
    overflows.writeBytes(Buffer.from('c'.repeat(70_000)));
    t.equal(overflows.whole(), undefined, 'not in one chunk');
    t.equal(Buffer.concat(overflows.chunksView()).toString('utf8'), pieces.join('') + 'c'.repeat(70_000), 'chunks leave the reserve out');
});
t.test('chunked playground output equals the string output', async (t) => {
    const compiled = compile(PEER_SNAPSHOT);
    for (const environment of ['development', 'production']) {
        const context = { appName: 'a', userId: '123', region: 'eu' };
        const text = evaluateToJson(compiled, environment, context);
        t.equal(Buffer.concat(evaluateToJsonChunks(compiled, environment, context)).toString('utf8'), text);
    }
});
//# sourceMappingURL=json-writer.test.js.map