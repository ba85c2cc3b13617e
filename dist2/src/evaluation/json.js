/** Small helpers shared by the compiler and the result builders. */
/** JSON text of a string (escaping as JSON.stringify does). */
export function jsonString(value) {
    return JSON.stringify(value);
}
/**
 * Sets an own enumerable property, also for the key `__proto__` (plain assignment would replace
 * the prototype instead). Stored configuration and contexts are arbitrary JSON, so keys are too.
 */
export function setOwn(target, key, value) {
    if (key === '__proto__') {
        Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
    }
    else {
        target[key] = value;
    }
}
/**
 * JSON of `object` with one more key appended, minus that key's value and the closing brace:
 * `{"a":1}` + "result" → `{"a":1,"result":`. The caller appends the value and `}`. This is how a
 * static object with one dynamic trailing key is serialized without re-encoding the static part.
 */
export function jsonPrefixBeforeKey(object, key) {
    const text = JSON.stringify(object);
    const head = text === '{}' ? '{' : text.slice(0, -1) + ',';
    return flat(head + jsonString(key) + ':');
}
/**
 * `text`, stored flat by V8. A string built with `+` is a rope (a tree of pieces), and every copy
 * into a response walks the tree again; static fragments are copied into every response, so they
 * are flattened once, at compile time. Converting a string to a number flattens it in place.
 */
export function flat(text) {
    Number(text);
    return text;
}
/** Any non-null object (arrays included: JSON data is read by key, never by prototype). */
export function isObject(value) {
    return typeof value === 'object' && value !== null;
}
//# sourceMappingURL=json.js.map