/**
 * NDJSON request bodies (one context per line) read as a stream: contexts are parsed, checked and
 * handed on in chunks while the rest of the body is still arriving, and reading waits while the
 * consumer is busy (async iteration pulls), so a million-line body never sits in memory whole.
 */
import { StringDecoder } from 'node:string_decoder';
import { validationError } from '../../errors.js';
/** One line longer than this is refused: a context is a few hundred bytes. */
export const MAX_LINE_BYTES = 1024 * 1024;
export async function* ndjsonChunks(body, chunkSize, check) {
    const decoder = new StringDecoder('utf8');
    let pending = '';
    let index = 0;
    let chunk = [];
    const take = (line) => {
        const text = line.endsWith('\r') ? line.slice(0, -1) : line;
        if (text.trim() === '')
            return;
        let value;
        try {
            value = JSON.parse(text);
        }
        catch (err) {
            throw validationError(`contexts[${index}] (line ${index + 1} of the NDJSON body) is not valid JSON: ${err.message}`);
        }
        check(value, index);
        chunk.push(value);
        index++;
    };
    for await (const piece of body) {
        pending += typeof piece === 'string' ? piece : decoder.write(piece);
        let newline = pending.indexOf('\n');
        let from = 0;
        while (newline >= 0) {
            take(pending.slice(from, newline));
            from = newline + 1;
            newline = pending.indexOf('\n', from);
        }
        pending = pending.slice(from);
        if (pending.length > MAX_LINE_BYTES)
            throw validationError(`contexts[${index}] is longer than ${MAX_LINE_BYTES} bytes`);
        if (chunk.length >= chunkSize) {
            yield chunk;
            chunk = [];
        }
    }
    take(pending + decoder.end());
    if (chunk.length > 0)
        yield chunk;
}
//# sourceMappingURL=ndjson.js.map