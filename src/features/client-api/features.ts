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
  const features = selected.map((flag) => clientFeatureView(flag, query.environment, segments, inline));
  const featuresJson = JSON.stringify(features);
  const queryJson = JSON.stringify(query);
  const segmentsJson = inline ? undefined : JSON.stringify(usedSegments(selected, query.environment, segments));
  const queryHash = shortHash(queryJson);
  const contentHash = shortHash(`${featuresJson}\n${segmentsJson ?? ''}`);
  const etag = `"${queryHash}:${contentHash}:v1"`;
  const meta = JSON.stringify({ revisionId, etag, queryHash });
  const body = `{"version":2,"features":${featuresJson},"query":${queryJson}${
    segmentsJson === undefined ? '' : `,"segments":${segmentsJson}`
  },"meta":${meta}}`;
  return { json: Buffer.from(body, 'utf8'), etag };
}
