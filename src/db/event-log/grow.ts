/**
 * A typed array with room for at least `minLength` elements: the same array when it has it, else a
 * copy in one twice as long (or `initial`), doubled until it fits. The event log's columns grow so,
 * one append at a time, at amortised constant cost.
 */
export function grow<T extends Float64Array | Uint32Array | Uint16Array | Int32Array | Uint8Array>(array: T, minLength: number, initial = 1024): T {
  if (array.length >= minLength) return array;
  let length = Math.max(array.length * 2, initial);
  while (length < minLength) length *= 2;
  const next = new (array.constructor as new (n: number) => T)(length);
  next.set(array);
  return next;
}
