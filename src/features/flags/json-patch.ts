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
 * The two checks the library leaves to a later TypeError: moving a value into one of its own
 * children (RFC 6902 §4.4) and paths through `__proto__`. Alone, they are the lenient mode, in
 * which Unleash applies a strategy patch (without the library's validation: removing an absent
 * key is no error, measured 200); what then fails in the library (a path through a missing
 * parent, a failed `test`) is a JsonPatchError too.
 */
function validateLeniently(operation: Operation): void {
  const from = 'from' in operation && typeof operation.from === 'string' ? operation.from : undefined;
  const banned = [operation.path, from].find(reachesPrototype);
  if (banned !== undefined) throw new JsonPatchError(`Path "${banned}" does not exist`);
  if (operation.op === 'move' && from !== undefined && operation.path.startsWith(`${from}/`)) {
    throw new JsonPatchError('Cannot move a value into one of its children');
  }
}

/** The library's own checks (known op, path syntax, value present, path and `from` resolvable, index in bounds) and the lenient ones. */
function validate(operation: Operation, index: number, document: unknown, existingPath: string): void {
  // Before the library's checks: resolving `from` already walks the path.
  validateLeniently(operation);
  jsonPatch.validator(operation, index, document, existingPath);
}

export function applyJsonPatch<T>(document: T, operations: PatchOperation[], options: { lenient?: boolean } = {}): T {
  if (!Array.isArray(operations)) throw new JsonPatchError('Patch must be an array of operations');
  try {
    if (options.lenient) {
      for (const operation of operations as Operation[]) validateLeniently(operation);
      return jsonPatch.applyPatch(document, operations as Operation[], false, false).newDocument;
    }
    return jsonPatch.applyPatch(document, operations as Operation[], validate, false).newDocument;
  } catch (err) {
    // The library's message goes on with the operation and the whole document: its first line is the reason.
    if (err instanceof jsonPatch.JsonPatchError) throw new JsonPatchError(err.message.split('\n')[0]);
    if (options.lenient && err instanceof TypeError) throw new JsonPatchError(`Path does not exist: ${err.message}`);
    throw err;
  }
}
