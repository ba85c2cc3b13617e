/**
 * Who may evaluate over OFREP (docs/rules.md §10.1): the tokens an SDK holds — frontend, client and
 * backend — with the same environment and project scope as on the frontend API; an admin token is
 * refused. OFREP providers send the token as `Authorization: Bearer <token>` or `X-API-Key`.
 *
 * An event stream is opened by a browser's EventSource, which cannot send headers, so its URL
 * carries a stream key instead of the token: a digest of the token's stored digest, which names
 * the token without revealing anything that authenticates a request.
 */
import { createHash } from 'node:crypto';
import { ofrepForbidden, ofrepUnauthorized } from '../../errors.js';
const BEARER = /^bearer\s+/i;
/** The credential of a request: `Authorization` (with or without `Bearer `) first, else `X-API-Key`. */
export function credential(headers) {
    const authorization = headers.authorization?.replace(BEARER, '').trim();
    if (authorization)
        return authorization;
    const apiKey = headers['x-api-key'];
    const key = (Array.isArray(apiKey) ? apiKey[0] : apiKey)?.trim();
    return key || undefined;
}
/** The token of a request, or the 401 / 403 of §10.1. Without a promise: a map read in the configuration state. */
export function authenticate(tokens, headers) {
    const secret = credential(headers);
    if (secret === undefined)
        throw ofrepUnauthorized('This endpoint needs a frontend or client token, as `Authorization: Bearer <token>` or `X-API-Key: <token>`');
    const token = tokens.lookup(secret);
    if (token === null)
        throw ofrepUnauthorized('The token is not a valid token (unknown, revoked or expired)');
    if (token.type === 'admin')
        throw ofrepForbidden();
    return token;
}
export function scopeOf(token) {
    return { projects: token.projects, environment: token.environment };
}
const streamKeys = new WeakMap();
/** The key in a token's event-stream URL, made once per token document. */
export function streamKey(token) {
    let key = streamKeys.get(token);
    if (key === undefined) {
        key = createHash('sha256').update(`vane-ofrep-events\0${token._id}`, 'utf8').digest('hex');
        streamKeys.set(token, key);
    }
    return key;
}
const byStreamKey = new WeakMap();
/** The live SDK token a stream key names (the list is the store's, one array per revision, so the index is built once per revision). */
export async function tokenOfStream(tokens, key) {
    const list = await tokens.list();
    let index = byStreamKey.get(list);
    if (index === undefined) {
        index = new Map(list.map((token) => [streamKey(token), token]));
        byStreamKey.set(list, index);
    }
    const token = index.get(key);
    if (token === undefined || token.type === 'admin')
        return undefined;
    if (token.expiresAt !== null && token.expiresAt.getTime() <= Date.now())
        return undefined;
    return token;
}
//# sourceMappingURL=tokens.js.map