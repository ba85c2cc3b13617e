/**
 * Parsers for typed constraint values. Each returns null instead of throwing: evaluation must
 * never throw, whatever the configuration or the context holds.
 */
import semver from 'semver';
import { Address4, Address6 } from 'ip-address';
/**
 * SemVer 2.0 as node-semver 7 parses it in strict mode (surrounding whitespace trimmed), except
 * that a leading `v` is refused: the client specification (14, `F8.invalidSemverWithLeadingV`)
 * treats `v2.0.0` as invalid, and by docs/rules.md D2 Vane follows SDKs there, not Unleash's playground.
 *
 * Performance: node-semver takes about 1 µs per parse, several times a whole SDK decision's
 * budget, while the versions in contexts repeat (one per app release). Parsed versions are kept in
 * a bounded memo; it is dropped whole when full, which costs one re-parse per distinct version.
 */
export function parseSemver(text) {
    let version = versionMemo.get(text);
    if (version === undefined) {
        if (versionMemo.size >= VERSION_MEMO_LIMIT)
            versionMemo.clear();
        version = parseSemverUncached(text);
        versionMemo.set(text, version);
    }
    return version;
}
const VERSION_MEMO_LIMIT = 10_000;
const versionMemo = new Map();
function parseSemverUncached(text) {
    const trimmed = text.trim();
    const first = trimmed.charCodeAt(0);
    if (first === 0x76 /* v */ || first === 0x56 /* V */)
        return null;
    try {
        return semver.parse(trimmed);
    }
    catch {
        return null;
    }
}
/**
 * A single IPv4 or IPv6 address; a CIDR suffix or anything unparseable gives null.
 *
 * Performance: ip-address spends about 3 µs on an IPv4 address (regex validation, hex and bigint
 * round trips), which alone would cap SDK decisions below 300,000/s for contexts checked by an
 * IN_CIDR or remoteAddress rule. Dotted quads are therefore parsed here (same acceptance rules:
 * four decimal parts 0–255, no leading zeros; a test cross-checks the two); IPv6 stays with
 * ip-address.
 */
export function parseIpAddress(text) {
    const ipv4 = parseDottedQuad(text);
    if (ipv4 >= 0)
        return { v6: false, n: ipv4 };
    if (!text.includes(':') || text.includes('/'))
        return null;
    const range = parseIpRange(text);
    return range !== null && range.v6 ? { v6: true, n: range.lo } : null;
}
/** `a.b.c.d` as an unsigned 32-bit integer, or -1. */
export function parseDottedQuad(text) {
    const length = text.length;
    if (length < 7 || length > 15)
        return -1;
    let value = 0;
    let part = 0;
    let digits = 0;
    let dots = 0;
    for (let i = 0; i < length; i++) {
        const code = text.charCodeAt(i);
        if (code === 0x2e /* . */) {
            if (digits === 0 || ++dots > 3)
                return -1;
            value = value * 256 + part;
            part = 0;
            digits = 0;
        }
        else if (code >= 0x30 && code <= 0x39) {
            if (digits > 0 && part === 0)
                return -1; // leading zero
            part = part * 10 + (code - 0x30);
            digits += 1;
            if (part > 255)
                return -1;
        }
        else {
            return -1;
        }
    }
    if (dots !== 3 || digits === 0)
        return -1;
    return value * 256 + part;
}
/** `a.b.c.d`, `a.b.c.d/n`, an IPv6 address or an IPv6 CIDR block; null when invalid. */
export function parseIpRange(text) {
    try {
        if (Address4.isValid(text)) {
            const address = new Address4(text);
            return {
                v6: false,
                lo: Number(address.startAddress().bigInt()),
                hi: Number(address.endAddress().bigInt()),
            };
        }
        if (Address6.isValid(text)) {
            const address = new Address6(text);
            return { v6: true, lo: address.startAddress().bigInt(), hi: address.endAddress().bigInt() };
        }
    }
    catch {
        // ip-address validated the text; a throw here would be its bug, and "no match" is the safe answer.
    }
    return null;
}
export function ipInRange(ip, range) {
    if (ip.v6 !== range.v6)
        return false;
    return ip.n >= range.lo && ip.n <= range.hi;
}
/**
 * A context's `currentTime` as a time value (NaN when unparseable), remembering the last text: a
 * playground request, or an SDK evaluating many flags for one context, passes the same currentTime
 * again and again, and parsing it costs about as much as evaluating a simple flag.
 */
export function parseContextTime(text) {
    if (text !== lastTimeText) {
        lastTimeMs = new Date(text).getTime();
        lastTimeText = text;
    }
    return lastTimeMs;
}
let lastTimeText = '';
let lastTimeMs = Number.NaN;
/** JavaScript `Date(value)` as a time value; NaN when unparseable (comparisons then fail). */
export function parseDateValue(value) {
    if (typeof value !== 'string' && typeof value !== 'number')
        return Number.NaN;
    return new Date(value).getTime();
}
//# sourceMappingURL=parse.js.map