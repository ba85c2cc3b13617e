/**
 * A JSON value in shared memory, for state every worker thread reads: posted to a worker, a
 * SharedArrayBuffer is a reference, not a copy (the playground's snapshot, the frontend API's SDK
 * state). Written on the main thread, read once per revision in each worker (revision-chain.ts
 * decides what a revision writes: its changes, or a full copy).
 */

/** `value` as UTF-8 JSON in a new SharedArrayBuffer. */
export function toSharedJson(value: unknown): SharedArrayBuffer {
  return sharedText(JSON.stringify(value));
}

/** JSON text already serialised (e.g. joined from parts serialised once), in shared memory as UTF-8. */
export function sharedText(json: string): SharedArrayBuffer {
  const buffer = new SharedArrayBuffer(Buffer.byteLength(json, 'utf8'));
  Buffer.from(buffer).write(json, 'utf8');
  return buffer;
}

/** The JSON value in `buffer`, as its writer typed it (the caller names the type it wrote). */
export function fromSharedJson<T>(buffer: SharedArrayBuffer): T {
  return JSON.parse(Buffer.from(buffer).toString('utf8')) as T;
}
