/**
 * Differential tester, part 2: normalising and comparing two playground answers.
 *
 * Server-generated ids are the only legitimate difference: strategy ids (ULIDs in Unleash, other
 * strings in Vane) in `id` and in `links.edit`, and the UUID of an error body. Everything else —
 * values, array order and key order — must match.
 */
/**
 * A playground body made comparable: ids normalised (below) and `features` sorted by name.
 * Unleash lists flags in PostgreSQL's physical row order, which moves with every update of a flag
 * row, so no server can reproduce it (docs/rules.md §3.3 asks to look flags up by name).
 */
export function normaliseBody(body) {
    const normalised = normaliseIds(body);
    if (normalised !== null && typeof normalised === 'object' && Array.isArray(normalised.features)) {
        const features = normalised.features;
        features.sort((a, b) => (String(a.name) < String(b.name) ? -1 : String(a.name) > String(b.name) ? 1 : 0));
    }
    return normalised;
}
/** Strategy ids (and error ids) replaced by `<id>`; the strategy id inside `links.edit` too. */
export function normaliseIds(value, parentKey = '') {
    if (Array.isArray(value))
        return value.map((item) => normaliseIds(item, parentKey));
    if (value !== null && typeof value === 'object') {
        const out = {};
        for (const [key, inner] of Object.entries(value)) {
            if (key === 'links' && inner !== null && typeof inner === 'object' && typeof inner.edit === 'string') {
                out[key] = { ...inner, edit: inner.edit.replace(/strategyId=[^&]*/, 'strategyId=<id>') };
            }
            else if (key === 'id' && typeof inner === 'string') {
                out[key] = '<id>';
            }
            else {
                out[key] = normaliseIds(inner, key);
            }
        }
        return out;
    }
    return value;
}
function typeOf(value) {
    return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}
/**
 * Differences between `expected` (the reference) and `actual` (Vane), depth first, at most `limit`.
 * Key order is reported only where the key sets are equal (otherwise the missing/extra keys say more).
 */
export function differences(expected, actual, limit = 10, path = '') {
    const found = [];
    walk(expected, actual, path, found, limit);
    return found;
}
function walk(expected, actual, path, found, limit) {
    if (found.length >= limit)
        return;
    const te = typeOf(expected);
    const ta = typeOf(actual);
    if (te !== ta) {
        found.push({ path, what: 'type', expected, actual });
        return;
    }
    if (te === 'array') {
        const e = expected;
        const a = actual;
        if (e.length !== a.length)
            found.push({ path, what: 'length', expected: e.length, actual: a.length });
        for (let i = 0; i < Math.min(e.length, a.length); i++)
            walk(e[i], a[i], `${path}[${i}]`, found, limit);
        return;
    }
    if (te === 'object') {
        const e = expected;
        const a = actual;
        const ek = Object.keys(e);
        const ak = Object.keys(a);
        for (const key of ek) {
            if (!Object.hasOwn(a, key))
                found.push({ path: join(path, key), what: 'missing', expected: e[key] });
        }
        for (const key of ak) {
            if (!Object.hasOwn(e, key))
                found.push({ path: join(path, key), what: 'extra', actual: a[key] });
        }
        if (ek.length === ak.length && ek.every((key) => Object.hasOwn(a, key)) && ek.join('\u0000') !== ak.join('\u0000')) {
            found.push({ path, what: 'key-order', expected: ek, actual: ak });
        }
        for (const key of ek) {
            if (Object.hasOwn(a, key))
                walk(e[key], a[key], join(path, key), found, limit);
        }
        return;
    }
    if (!Object.is(expected, actual))
        found.push({ path, what: 'value', expected, actual });
}
function join(path, key) {
    return /^[A-Za-z_$][\w$]*$/.test(key) ? (path === '' ? key : `${path}.${key}`) : `${path}[${JSON.stringify(key)}]`;
}
/** The kind of a difference: its path with array indices and environment keys generalised. */
export function kindOf(endpoint, difference) {
    const generic = difference.path
        .replace(/\[\d+\]/g, '[]')
        .replace(/\.environments\.[^.[]+/g, '.environments.<env>')
        .replace(/\.environments\["[^"]*"\]/g, '.environments.<env>');
    return `${endpoint} ${difference.what} ${generic || '<root>'}`;
}
//# sourceMappingURL=compare.js.map