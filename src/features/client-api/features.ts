/**
 * The client API's feature document (`GET /api/client/features`), built from the SDK state as
 * Unleash 8 shows it. Key orders were measured on the reference server (unleash-server 8.2.0).
 */
import { createHash } from 'node:crypto';
import type { ConstraintConfig, SegmentConfig, StrategyConfig, VariantConfig } from '../../evaluation/index.js';
import type { FlagData } from '../flags/read-model.js';
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

export function matchesQuery(flag: FlagData, query: ResolvedQuery): boolean {
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
  flag: FlagData,
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
  flags: readonly FlagData[],
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

interface ViewBytes {
  bytes: Buffer;
  /** The segments it inlines constraints from, when it does: the bytes hold while the state keeps that map. */
  segments: ReadonlyMap<number, SegmentConfig> | undefined;
}

/** Each flag revision's view as UTF-8 JSON by environment and segment mode (the state's flag objects are never changed). */
const views = new WeakMap<FlagData, Map<string, ViewBytes>>();

/**
 * `JSON.stringify(clientFeatureView(…))` as UTF-8, made once per flag revision, environment and
 * segment mode: a new state serialises only the flags a write changed, and the body is the pieces
 * copied together, hashed as bytes. Serialising every view, then hashing and encoding the body as
 * one string, took 97 ms of CPU at 5 000 flags; this way 16 ms, most of it the SHA-256 and the
 * copies (bench/readers.ts). A view that inlines segment constraints is made again when the state's segments change
 * (the state keeps its segment map while they do not).
 */
export function featureBytes(flag: FlagData, environment: string, segments: ReadonlyMap<number, SegmentConfig>, inline: boolean): Buffer {
  let byKey = views.get(flag);
  if (byKey === undefined) views.set(flag, (byKey = new Map<string, ViewBytes>()));
  const key = `${environment}\0${inline}`;
  const held = byKey.get(key);
  if (held !== undefined && (held.segments === undefined || held.segments === segments)) return held.bytes;
  const bytes = Buffer.from(JSON.stringify(clientFeatureView(flag, environment, segments, inline)), 'utf8');
  const inlined = inline && (flag.environments[environment]?.strategies ?? []).some((s) => s.disabled !== true && (s.segments?.length ?? 0) > 0);
  byKey.set(key, { bytes, segments: inlined ? segments : undefined });
  return bytes;
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');
const HEAD = Buffer.from('{"version":2,"features":');

export interface FeaturesDocument {
  /** The JSON body, UTF-8. */
  json: Buffer;
  /** Strong ETag: the query's hash and a hash of the content, so it changes exactly when the body does. */
  etag: string;
}

/**
 * `{version: 2, features, query, segments?, meta}`. The ETag hashes what the token sees (flags,
 * query, segments) rather than the global revision, so a change to a flag outside the token's
 * scope does not make its SDKs download again.
 */
export function featuresDocument(
  flags: readonly FlagData[],
  segments: ReadonlyMap<number, SegmentConfig>,
  query: ResolvedQuery,
  revisionId: number,
): FeaturesDocument {
  const selected = flags.filter((flag) => matchesQuery(flag, query));
  const inline = query.inlineSegmentConstraints;
  // `JSON.stringify` of the views as UTF-8, from each flag's bytes made once per flag revision.
  const parts: Buffer[] = [OPEN];
  for (let i = 0; i < selected.length; i++) {
    if (i > 0) parts.push(COMMA);
    parts.push(featureBytes(selected[i]!, query.environment, segments, inline));
  }
  parts.push(CLOSE);
  const features = Buffer.concat(parts);
  const queryJson = JSON.stringify(query);
  const segmentsJson = inline ? undefined : JSON.stringify(usedSegments(selected, query.environment, segments));
  const queryHash = shortHash(queryJson);
  const contentHash = createHash('sha256').update(features).update(`\n${segmentsJson ?? ''}`).digest('hex').slice(0, 8);
  const etag = `"${queryHash}:${contentHash}:v1"`;
  const meta = JSON.stringify({ revisionId, etag, queryHash });
  const tail = `,"query":${queryJson}${segmentsJson === undefined ? '' : `,"segments":${segmentsJson}`},"meta":${meta}}`;
  return { json: Buffer.concat([HEAD, features, Buffer.from(tail, 'utf8')]), etag };
}
