import { gzipSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import { notFound } from '../../errors.js';
import { clientFeatureView, featuresDocument, inlinesSegments, isAllProjects, resolveQuery, shortHash, } from './features.js';
/**
 * Bodies below this are sent as they are: gzip costs more CPU than the bytes it saves on a
 * loopback or LAN link (a 1 KB body compresses in ~20 µs but only saves ~600 bytes).
 */
const COMPRESS_THRESHOLD = 1024;
/**
 * Serves the client API from the SDK state. A body is serialized once per (state build, scope,
 * query) and reused as bytes; when a rebuild leaves what a scope sees unchanged, the old bytes
 * (and so the ETag and meta.revisionId) are kept, so SDKs polling with If-None-Match stay at 304.
 */
export class ClientFeaturesService {
    states;
    // Bounded: the key includes free-form query values (namePrefix, tag); 2 000 bodies of 60 KB is
    // at most ~120 MB in the worst case, in practice a handful of scopes.
    bodies = new LRUCache({ max: 2000 });
    constructor(states) {
        this.states = states;
    }
    /** The stored body for a token scope and query in `state` (the route holds it: `SdkStateCache.use`). */
    features(state, scope, query, specHeader) {
        const inline = inlinesSegments(specHeader);
        // SDKs poll without a query: key those by scope alone, without resolving and stringifying
        // the query (a 304 answer is little more than this look-up).
        const plain = !query.tag?.length && !query.project?.length && !query.namePrefix;
        const resolved = plain ? undefined : resolveQuery(scope, query, inline);
        const key = resolved === undefined ? `scope\0${inline}\0${scope.environment}\0${scope.projects.join(',')}` : JSON.stringify(resolved);
        const stored = this.bodies.get(key);
        if (stored && stored.build === state.build)
            return stored;
        const document = featuresDocument(state.flags, state.segments, resolved ?? resolveQuery(scope, query, inline), state.revisionId);
        if (stored && stored.etag === document.etag) {
            stored.build = state.build;
            return stored;
        }
        const next = { ...document, build: state.build };
        this.bodies.set(key, next);
        return next;
    }
    /** The body's gzip form, made on first demand and kept with it. */
    compressed(body) {
        if (body.json.length < COMPRESS_THRESHOLD)
            return undefined;
        body.gzip ??= gzipSync(body.json, { level: 6 });
        return body.gzip;
    }
    /**
     * One flag as bytes with a content ETag (so an SDK or proxy polling one flag gets 304s), kept in
     * the state's memo: a state rebuild drops it, and an unchanged flag gets the same ETag again.
     */
    async feature(scope, name, specHeader) {
        const state = await this.states.get();
        const flag = state.flagsByName.get(name);
        if (!flag || (!isAllProjects(scope.projects) && !scope.projects.includes(flag.project))) {
            throw notFound(`Could not find feature flag ${name}`);
        }
        const inline = inlinesSegments(specHeader);
        const key = `feature\0${scope.environment}\0${inline}\0${name}`;
        const memo = state.memo.get(key);
        if (memo)
            return memo;
        const json = JSON.stringify(clientFeatureView(flag, scope.environment, state.segments, inline));
        const document = { json: Buffer.from(json, 'utf8'), etag: `"${shortHash(json)}:v1"` };
        state.memo.set(key, document);
        return document;
    }
}
//# sourceMappingURL=service.js.map