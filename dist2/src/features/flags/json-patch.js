/**
 * A small RFC 6902 JSON-Patch applier (add, remove, replace, move, copy, test) working on a deep
 * copy. Failures throw JsonPatchError with a human-readable reason.
 */
export class JsonPatchError extends Error {
    name = 'JsonPatchError';
}
function parsePointer(pointer) {
    if (pointer === '')
        return [];
    if (!pointer.startsWith('/'))
        throw new JsonPatchError(`Invalid JSON pointer "${pointer}"`);
    return pointer.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}
function isContainer(value) {
    return value !== null && typeof value === 'object';
}
function isRecord(value) {
    return isContainer(value) && !Array.isArray(value);
}
function arrayIndex(token, length, allowEnd) {
    if (allowEnd && token === '-')
        return length;
    if (!/^(0|[1-9][0-9]*)$/.test(token))
        throw new JsonPatchError(`Invalid array index "${token}"`);
    const index = Number(token);
    if (index > length || (!allowEnd && index === length))
        throw new JsonPatchError(`Array index ${index} is out of bounds`);
    return index;
}
function parentOf(doc, tokens, pointer) {
    let node = doc;
    for (const token of tokens.slice(0, -1)) {
        if (Array.isArray(node))
            node = node[arrayIndex(token, node.length, false)];
        else if (isRecord(node) && Object.prototype.hasOwnProperty.call(node, token))
            node = node[token];
        else
            throw new JsonPatchError(`Path "${pointer}" does not exist`);
    }
    if (!isContainer(node))
        throw new JsonPatchError(`Path "${pointer}" does not exist`);
    return node;
}
function get(doc, pointer) {
    const tokens = parsePointer(pointer);
    if (tokens.length === 0)
        return doc;
    const parent = parentOf(doc, tokens, pointer);
    const last = tokens[tokens.length - 1];
    if (Array.isArray(parent))
        return parent[arrayIndex(last, parent.length, false)];
    if (!Object.prototype.hasOwnProperty.call(parent, last))
        throw new JsonPatchError(`Path "${pointer}" does not exist`);
    return parent[last];
}
function add(doc, pointer, value) {
    const tokens = parsePointer(pointer);
    if (tokens.length === 0)
        return value;
    const parent = parentOf(doc, tokens, pointer);
    const last = tokens[tokens.length - 1];
    if (Array.isArray(parent))
        parent.splice(arrayIndex(last, parent.length, true), 0, value);
    else
        parent[last] = value;
    return doc;
}
function remove(doc, pointer) {
    const tokens = parsePointer(pointer);
    if (tokens.length === 0)
        return undefined;
    const parent = parentOf(doc, tokens, pointer);
    const last = tokens[tokens.length - 1];
    if (Array.isArray(parent))
        parent.splice(arrayIndex(last, parent.length, false), 1);
    else {
        if (!Object.prototype.hasOwnProperty.call(parent, last))
            throw new JsonPatchError(`Path "${pointer}" does not exist`);
        delete parent[last];
    }
    return doc;
}
export function applyJsonPatch(document, operations) {
    if (!Array.isArray(operations))
        throw new JsonPatchError('Patch must be an array of operations');
    let doc = structuredClone(document);
    for (const operation of operations) {
        if (!isContainer(operation) || typeof operation.path !== 'string')
            throw new JsonPatchError('Operation has no "path"');
        switch (operation.op) {
            case 'add':
                if (!('value' in operation))
                    throw new JsonPatchError('Operation "add" needs a "value"');
                doc = add(doc, operation.path, structuredClone(operation.value));
                break;
            case 'remove':
                doc = remove(doc, operation.path);
                break;
            case 'replace':
                if (!('value' in operation))
                    throw new JsonPatchError('Operation "replace" needs a "value"');
                get(doc, operation.path);
                doc = add(remove(doc, operation.path), operation.path, structuredClone(operation.value));
                break;
            case 'move': {
                if (typeof operation.from !== 'string')
                    throw new JsonPatchError('Operation "move" needs a "from"');
                if (operation.path.startsWith(`${operation.from}/`))
                    throw new JsonPatchError('Cannot move a value into one of its children');
                const value = get(doc, operation.from);
                doc = add(remove(doc, operation.from), operation.path, value);
                break;
            }
            case 'copy': {
                if (typeof operation.from !== 'string')
                    throw new JsonPatchError('Operation "copy" needs a "from"');
                doc = add(doc, operation.path, structuredClone(get(doc, operation.from)));
                break;
            }
            case 'test':
                if (JSON.stringify(get(doc, operation.path)) !== JSON.stringify(operation.value)) {
                    throw new JsonPatchError(`Test operation failed at "${operation.path}"`);
                }
                break;
            default:
                throw new JsonPatchError(`Unknown operation "${String(operation.op)}"`);
        }
    }
    return doc;
}
//# sourceMappingURL=json-patch.js.map