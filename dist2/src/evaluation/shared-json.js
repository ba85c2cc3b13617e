/**
 * A JSON value in shared memory, for state every worker thread reads: posted to a worker, a
 * SharedArrayBuffer is a reference, not a copy (the playground's snapshot, the frontend API's SDK
 * state). Written once per revision on the main thread, parsed once per revision in each worker.
 */
/** `value` as UTF-8 JSON in a new SharedArrayBuffer. */
export function toSharedJson(value) {
    const bytes = Buffer.from(JSON.stringify(value), 'utf8');
    const buffer = new SharedArrayBuffer(bytes.length);
    new Uint8Array(buffer).set(bytes);
    return buffer;
}
/** The JSON value in `buffer`, as its writer typed it (the caller names the type it wrote). */
export function fromSharedJson(buffer) {
    return JSON.parse(Buffer.from(buffer).toString('utf8'));
}
//# sourceMappingURL=shared-json.js.map