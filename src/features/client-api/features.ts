/**
 * The client API's feature document (`GET /api/client/features`), built from the SDK state as
 * Unleash 8 shows it. Key orders were measured on the reference server (unleash-server 8.2.0).
 */
import { createHash, hash } from 'node:crypto';
import { finishHash, mixBlock, type ConstraintConfig, type SegmentConfig, type StrategyConfig, type VariantConfig } from '../../evaluation/index.js';
import type { LiveFlag } from '../flags/read-model.js';
import { sortStrategies } from '../flags/views.js';
import type { ClientFeature, ClientStrategyView, ClientVariantView } from './schemas.js';

/** What a token may read: its projects (`*` = all) in one environment. */
export interface TokenScope {
  projects: readonly string[];
  environment: string;
}

export interface FeatureQuery {
  project?: string[];
  namePrefix?: string;
  /** `type:value` pairs. */
  tag?: string[];
}

/** The query as Unleash echoes it: `{tag?, project?, namePrefix?, environment, inlineSegmentConstraints}`. */
export interface ResolvedQuery {
  tag?: [string, string][];
  project?: string[];
  namePrefix?: string;
  environment: string;
  inlineSegmentConstraints: boolean;
}

export function isAllProjects(projects: readonly string[]): boolean {
  return projects.length === 0 || projects.includes('*');
}

/** The token's projects and environment override the query (Unleash's resolveQuery). */
export function resolveQuery(scope: TokenScope, query: FeatureQuery, inline: boolean): ResolvedQuery {
  const resolved: ResolvedQuery = { environment: scope.environment, inlineSegmentConstraints: inline };
  const out: ResolvedQuery = {} as ResolvedQuery;
  if (query.tag && query.tag.length > 0) {
    out.tag = query.tag.map((pair) => {
      const colon = pair.indexOf(':');
      return colon < 0 ? [pair, ''] : [pair.slice(0, colon), pair.slice(colon + 1)];
    });
  }
  if (!isAllProjects(scope.projects)) out.project = [...scope.projects];
  else if (query.project && query.project.length > 0) out.project = [...query.project];
  if (query.namePrefix !== undefined && query.namePrefix !== '') out.namePrefix = query.namePrefix;
  return { ...out, ...resolved };
}

/** Segments travel in a separate list from client specification 4.2.0 on; older SDKs get them inlined. */
export function inlinesSegments(specHeader: string | undefined): boolean {
  if (!specHeader) return true;
  const match = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(specHeader.trim());
  if (!match) return true;
  const [major, minor] = [Number(match[1]), Number(match[2])];
  return major < 4 || (major === 4 && minor < 2);
}

export function matchesQuery(flag: LiveFlag, query: ResolvedQuery): boolean {
  if (query.project && !query.project.includes(flag.project)) return false;
  if (query.namePrefix !== undefined && !flag.name.startsWith(query.namePrefix)) return false;
  if (query.tag && !query.tag.some(([type, value]) => flag.tags.some((t) => t.type === type && t.value === value))) {
    return false;
  }
  return true;
}

function variantView(v: VariantConfig): ClientVariantView {
  return {
    name: v.name,
    weight: v.weight,
    ...(v.payload ? { payload: v.payload } : {}),
    ...(v.overrides && v.overrides.length > 0 ? { overrides: v.overrides } : {}),
    stickiness: v.stickiness ?? 'default',
    weightType: v.weightType ?? 'variable',
  };
}

function strategyView(
  s: StrategyConfig,
  segments: ReadonlyMap<number, SegmentConfig>,
  inline: boolean,
): ClientStrategyView {
  const ids = s.segments ?? [];
  let constraints: ConstraintConfig[] = s.constraints;
  if (inline && ids.length > 0) {
    constraints = [...constraints];
    for (const id of ids) constraints.push(...(segments.get(id)?.constraints ?? []));
  }
  return {
    name: s.name,
    constraints,
    parameters: s.parameters,
    variants: s.variants ?? [],
    ...(!inline && ids.length > 0 ? { segments: ids } : {}),
  };
}

/** One flag as the client API shows it in an environment: disabled strategies are left out. */
export function clientFeatureView(
  flag: LiveFlag,
  environment: string,
  segments: ReadonlyMap<number, SegmentConfig>,
  inline: boolean,
): ClientFeature {
  const env = flag.environments[environment];
  const strategies = env ? sortStrategies(env.strategies).filter((s) => s.disabled !== true) : [];
  return {
    name: flag.name,
    type: flag.type,
    enabled: env?.enabled ?? false,
    project: flag.project,
    stale: flag.stale,
    strategies: strategies.map((s) => strategyView(s, segments, inline)),
    variants: (env?.variants ?? []).map(variantView),
    description: flag.description,
    impressionData: flag.impressionData,
    ...(flag.dependencies.length > 0
      ? {
          // `variants` only on an "enabled" dependency (measured on Unleash 8.2.0).
          dependencies: flag.dependencies.map((d) => {
            const enabled = d.enabled ?? true;
            return { feature: d.feature, enabled, ...(enabled ? { variants: d.variants ?? [] } : {}) };
          }),
        }
      : {}),
  };
}

/** Segments the listed flags' enabled strategies use, by id. */
export function usedSegments(
  flags: readonly LiveFlag[],
  environment: string,
  segments: ReadonlyMap<number, SegmentConfig>,
): SegmentConfig[] {
  const ids = new Set<number>();
  for (const flag of flags) {
    for (const s of flag.environments[environment]?.strategies ?? []) {
      if (s.disabled !== true) for (const id of s.segments ?? []) ids.add(id);
    }
  }
  return [...ids]
    .sort((a, b) => a - b)
    .flatMap((id) => {
      const segment = segments.get(id);
      return segment ? [{ id: segment.id, name: segment.name, constraints: segment.constraints }] : [];
    });
}

export function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

interface ViewBytes extends FeaturePart {
  /** The segments it inlines constraints from, when it does: the bytes hold while the state keeps that map. */
  segments: ReadonlyMap<number, SegmentConfig> | undefined;
}

/** A flag's view as UTF-8 JSON, with 64 bits of its SHA-1 (the body's ETag combines them, see featuresDocument). */
export interface FeaturePart {
  readonly bytes: Buffer;
  readonly high: number;
  readonly low: number;
}

/** Each flag revision's view as UTF-8 JSON by environment and segment mode (the state's flag objects are never changed). */
const views = new WeakMap<LiveFlag, Map<string, ViewBytes>>();

/**
 * `JSON.stringify(clientFeatureView(…))` as UTF-8 and its fingerprint, made once per flag
 * revision, environment and segment mode: a new state serialises only the flags a write changed,
 * and the body is the pieces copied together. Serialising every view, then hashing and encoding
 * the body as one string, took 97 ms of CPU at 5 000 flags; the pieces and a SHA-256 of the
 * body, 16 ms (bench/readers.ts); the pieces and their fingerprints combined, see
 * featuresDocument. A view that inlines segment constraints is made again when the state's
 * segments change (the state keeps its segment map while they do not).
 */
export function featurePart(flag: LiveFlag, environment: string, segments: ReadonlyMap<number, SegmentConfig>, inline: boolean): FeaturePart {
  let byKey = views.get(flag);
  if (byKey === undefined) views.set(flag, (byKey = new Map<string, ViewBytes>()));
  const key = `${environment}\0${inline}`;
  const held = byKey.get(key);
  if (held !== undefined && (held.segments === undefined || held.segments === segments)) return held;
  const bytes = Buffer.from(JSON.stringify(clientFeatureView(flag, environment, segments, inline)), 'utf8');
  const digest = hash('sha1', bytes, 'buffer');
  const inlined = inline && (flag.environments[environment]?.strategies ?? []).some((s) => s.disabled !== true && (s.segments?.length ?? 0) > 0);
  const view: ViewBytes = { bytes, high: digest.readInt32LE(0), low: digest.readInt32LE(4), segments: inlined ? segments : undefined };
  byKey.set(key, view);
  return view;
}

/** The body up to the first flag: the same for every body. */
export const FEATURES_OPENING = Buffer.from('{"version":2,"features":[');
const COMMA = Buffer.from(',');

export interface FeaturesDocument {
  /** The JSON body, UTF-8. */
  json: Buffer;
  /** Strong ETag: the query's hash and a hash of the content, so it changes exactly when the body does. */
  etag: string;
  /**
   * The body as FEATURES_OPENING, the parts' bytes joined by commas and `tail`: what its gzip form
   * is assembled from (gzip-groups.ts). Absent for a one-flag body.
   */
  pieces?: DocumentPieces;
}

export interface DocumentPieces {
  /** The selected flags' parts, in the body's order. */
  parts: readonly FeaturePart[];
  tail: Buffer;
  /** What the parts were made of: the flags selected (aligned) and the segments (see featuresDocument's `previous`). */
  selected: readonly LiveFlag[];
  segments: ReadonlyMap<number, SegmentConfig>;
}

/**
 * `{version: 2, features, query, segments?, meta}`. The ETag hashes what the token sees (flags,
 * query, segments) rather than the global revision, so a change to a flag outside the token's
 * scope does not make its SDKs download again.
 *
 * Performance: the content hash combines the flags' fingerprints in order (made once per flag
 * revision, featurePart) with the segments' JSON, where a SHA-256 of the whole body (3.5 MB at
 * 5 000 bench flags) was a large part of the first request's cost after every write. Equal bodies
 * get equal ETags on every instance: the fingerprints are of content only. `previous`: the pieces
 * of the last document of the same query and segment mode, whose parts are taken where the flag
 * is the same object in the same place.
 */
export function featuresDocument(
  flags: readonly LiveFlag[],
  segments: ReadonlyMap<number, SegmentConfig>,
  query: ResolvedQuery,
  revisionId: number,
  previous?: DocumentPieces,
): FeaturesDocument {
  const selected = flags.filter((flag) => matchesQuery(flag, query));
  const inline = query.inlineSegmentConstraints;
  const parts: FeaturePart[] = [];
  const body: Buffer[] = [FEATURES_OPENING];
  let high = 0;
  let low = 0;
  // The previous document of the same query: a flag in the same place as then takes its part
  // without the look-ups (a write changes a few; at 5 000 flags the look-ups were 5 ms a build).
  const same = previous !== undefined && previous.segments === segments ? previous : undefined;
  for (let i = 0; i < selected.length; i++) {
    const flag = selected[i]!;
    const part = same !== undefined && same.selected[i] === flag ? same.parts[i]! : featurePart(flag, query.environment, segments, inline);
    parts.push(part);
    if (i > 0) body.push(COMMA);
    body.push(part.bytes);
    high = mixBlock(high, part.high);
    low = mixBlock(low, part.low);
  }
  const queryJson = JSON.stringify(query);
  const segmentsJson = inline ? undefined : JSON.stringify(usedSegments(selected, query.environment, segments));
  const queryHash = shortHash(queryJson);
  const segmentsDigest = hash('sha1', `\n${segmentsJson ?? ''}`, 'buffer');
  high = mixBlock(high, segmentsDigest.readInt32LE(0));
  low = mixBlock(low, segmentsDigest.readInt32LE(4));
  const contentHash = ((finishHash(high, selected.length + 1) ^ finishHash(low, selected.length + 1)) >>> 0).toString(16).padStart(8, '0');
  const etag = `"${queryHash}:${contentHash}:v1"`;
  const meta = JSON.stringify({ revisionId, etag, queryHash });
  const tail = Buffer.from(`],"query":${queryJson}${segmentsJson === undefined ? '' : `,"segments":${segmentsJson}`},"meta":${meta}}`, 'utf8');
  body.push(tail);
  return { json: Buffer.concat(body), etag, pieces: { parts, tail, selected, segments } };
}
