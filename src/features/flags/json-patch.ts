/**
 * RFC 6902 JSON Patch through fast-json-patch (as Unleash applies variant patches), on a copy of
 * the document, every operation validated first. Failures throw JsonPatchError with a one-line
 * human-readable reason.
 */
import jsonPatch, { type Operation } from 'fast-json-patch';

export interface PatchOperation {
  op: string;
  path: string;
  value?: unknown;
  from?: string;
}

export class JsonPatchError extends Error {
  override name = 'JsonPatchError';
}

/** Pointer tokens the library refuses to write through (it throws a TypeError for them). */
function reachesPrototype(pointer: string | undefined): boolean {
  if (pointer === undefined) return false;
  const tokens = pointer.split('/');
  return tokens.some((token, i) => token === '__proto__' || (token === 'prototype' && tokens[i - 1] === 'constructor'));
}

/**
 * The library's own checks (known op, path syntax, value present, path and `from` resolvable,
 * index in bounds), plus the two it leaves to a later TypeError: moving a value into one of its
 * own children (RFC 6902 §4.4) and paths through `__proto__`.
 */
function validate(operation: Operation, index: number, document: unknown, existingPath: string): void {
  // Before the library's checks: resolving `from` already walks the path.
  const from = 'from' in operation && typeof operation.from === 'string' ? operation.from : undefined;
  const banned = [operation.path, from].find(reachesPrototype);
  if (banned !== undefined) throw new JsonPatchError(`Path "${banned}" does not exist`);
  if (operation.op === 'move' && from !== undefined && operation.path.startsWith(`${from}/`)) {
    throw new JsonPatchError('Cannot move a value into one of its children');
  }
  jsonPatch.validator(operation, index, document, existingPath);
}

export function applyJsonPatch<T>(document: T, operations: PatchOperation[]): T {
  if (!Array.isArray(operations)) throw new JsonPatchError('Patch must be an array of operations');
  try {
    return jsonPatch.applyPatch(document, operations as Operation[], validate, false).newDocument;
  } catch (err) {
    // The library's message goes on with the operation and the whole document: its first line is the reason.
    if (err instanceof jsonPatch.JsonPatchError) throw new JsonPatchError(err.message.split('\n')[0]);
    throw err;
  }
}
