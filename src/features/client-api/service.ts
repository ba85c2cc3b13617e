import { gzipSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import { notFound } from '../../errors.js';
import {
  clientFeatureView, featuresDocument, FEATURES_OPENING, inlinesSegments, isAllProjects, resolveQuery, shortHash,
  type FeatureQuery, type FeaturesDocument, type TokenScope,
} from './features.js';
import { gzipJoined } from './gzip-groups.js';
import type { SdkState, SdkStateCache } from './state.js';

/** A serialized body kept for one (token scope, query, segment mode). */
export interface StoredBody extends FeaturesDocument {
  /** The state build it was checked against. */
  build: number;
  gzip?: Buffer;
}

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
  // Bounded: the key includes free-form query values (namePrefix, tag); 2 000 bodies of 60 KB is
  // at most ~120 MB in the worst case, in practice a handful of scopes.
  private readonly bodies = new LRUCache<string, StoredBody>({ max: 2000 });

  constructor(readonly states: SdkStateCache) {}

  /** The stored body for a token scope and query in `state` (the route holds it: `SdkStateCache.use`). */
  features(state: SdkState, scope: TokenScope, query: FeatureQuery, specHeader: string | undefined): StoredBody {
    const inline = inlinesSegments(specHeader);
    // SDKs poll without a query: key those by scope alone, without resolving and stringifying
    // the query (a 304 answer is little more than this look-up).
    const plain = !query.tag?.length && !query.project?.length && !query.namePrefix;
    const resolved = plain ? undefined : resolveQuery(scope, query, inline);
    const key = resolved === undefined ? `scope\0${inline}\0${scope.environment}\0${scope.projects.join(',')}` : JSON.stringify(resolved);
    const stored = this.bodies.get(key);
    if (stored && stored.build === state.build) return stored;
    const document = featuresDocument(state.flags, state.segments, resolved ?? resolveQuery(scope, query, inline), state.revisionId, stored?.pieces);
    if (stored && stored.etag === document.etag) {
      stored.build = state.build;
      stored.pieces = document.pieces; // the same content, made of this state's flag objects
      return stored;
    }
    const next: StoredBody = { ...document, build: state.build };
    this.bodies.set(key, next);
    return next;
  }

  /**
   * The body's gzip form, made on first demand and kept with it: a flag list from its flags'
   * groups compressed once (gzip-groups.ts), so after a write only the changed flags' group is.
   */
  compressed(body: StoredBody): Buffer | undefined {
    if (body.json.length < COMPRESS_THRESHOLD) return undefined;
    body.gzip ??= body.pieces ? gzipJoined(FEATURES_OPENING, body.pieces.parts.map((part) => part.bytes), body.pieces.tail) : gzipSync(body.json, { level: 6 });
    return body.gzip;
  }

  /**
   * One flag as bytes with a content ETag (so an SDK or proxy polling one flag gets 304s), kept in
   * the state's memo: a state rebuild drops it, and an unchanged flag gets the same ETag again.
   */
  async feature(scope: TokenScope, name: string, specHeader: string | undefined): Promise<FeaturesDocument> {
    const state: SdkState = await this.states.get();
    const flag = state.flagsByName.get(name);
    if (!flag || (!isAllProjects(scope.projects) && !scope.projects.includes(flag.project))) {
      throw notFound(`Could not find feature flag ${name}`);
    }
    const inline = inlinesSegments(specHeader);
    const key = `feature\0${scope.environment}\0${inline}\0${name}`;
    const memo = state.memo.get(key) as FeaturesDocument | undefined;
    if (memo) return memo;
    const json = JSON.stringify(clientFeatureView(flag, scope.environment, state.segments, inline));
    const document: FeaturesDocument = { json: Buffer.from(json, 'utf8'), etag: `"${shortHash(json)}:v1"` };
    state.memo.set(key, document);
    return document;
  }
}
