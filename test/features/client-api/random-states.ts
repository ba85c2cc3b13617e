/**
 * Random SDK-state histories in memory: configurations of flags and segments, and writes that
 * hand out new objects only for what they change, as the flags store does (the frontend API's
 * shipped-state test and the delta log's test follow them build by build).
 */
import type { SegmentConfig, StrategyConfig } from '../../../src/evaluation/index.js';
import type { FlagData } from '../../../src/features/flags/read-model.js';

function randomStrategy(rng: () => number, id: string, segmentIds: number[]): StrategyConfig {
  const segments = segmentIds.length > 0 && rng() < 0.4 ? [segmentIds[Math.floor(rng() * segmentIds.length)]!] : [];
  const constraints = rng() < 0.5 ? [{ contextName: 'userId', operator: 'IN', values: ['1', '7'], inverted: false, caseInsensitive: false }] : [];
  return rng() < 0.5
    ? { id, name: 'default', parameters: {}, constraints, segments, ...(rng() < 0.15 ? { disabled: true } : {}) }
    : { id, name: 'flexibleRollout', parameters: { rollout: String(Math.floor(rng() * 101)), stickiness: 'userId', groupId: id }, constraints, segments, variants: [] };
}

export function randomFlag(rng: () => number, name: string, createdAt: Date, segmentIds: number[]): FlagData {
  const environments: FlagData['environments'] = {};
  for (const environment of ['development', 'production']) {
    environments[environment] = {
      enabled: rng() < 0.8,
      strategies: Array.from({ length: 1 + Math.floor(rng() * 2) }, (_, k) => randomStrategy(rng, `${name}-${environment}-${k}`, segmentIds)),
      variants: rng() < 0.3 ? [{ name: 'v', weight: 1000, weightType: 'variable', stickiness: 'default' }] : [],
    };
  }
  return {
    _id: name, name, project: rng() < 0.7 ? 'default' : 'other', description: null, type: 'release', impressionData: rng() < 0.3,
    stale: false, archived: false, archivedAt: null, createdAt, createdBy: { id: 1, name: 'admin' }, tags: [],
    lifecycle: { stage: 'initial', enteredStageAt: createdAt }, dependencies: [], environments, strategyIds: [],
  };
}

export function randomSegment(rng: () => number, id: number): SegmentConfig {
  return { id, name: `segment-${id}`, constraints: [{ contextName: 'userId', operator: 'IN', values: [String(Math.floor(rng() * 50)), '7'] }] };
}

export interface Config { flags: FlagData[]; segments: SegmentConfig[] }

/** One random write, with new objects only for what changes (as the flags store hands them out). */
export function write(rng: () => number, config: Config, counter: { next: number }): Config {
  let { flags, segments } = config;
  const ids = segments.map((s) => s.id);
  const kind = rng();
  const at = Math.floor(rng() * flags.length);
  if (kind < 0.4 && flags.length > 0) {
    flags = flags.map((f, k) => (k === at ? randomFlag(rng, f.name, f.createdAt, ids) : f));
  } else if (kind < 0.5 && flags.length > 0) {
    flags = flags.map((f, k) => (k === at ? { ...f, impressionData: !f.impressionData, project: f.project === 'default' ? 'other' : 'default' } : f));
  } else if (kind < 0.62) {
    flags = [...flags, randomFlag(rng, `flag-${counter.next++}`, new Date(Date.UTC(2026, 0, 1) + counter.next * 1000), ids)];
  } else if (kind < 0.72 && flags.length > 0) {
    flags = flags.filter((_, k) => k !== at);
  } else if (kind < 0.76 && flags.length > 0) {
    flags = flags.map((f, k) => (k === at ? { ...f, archived: true } : f));
  } else if (kind < 0.88 && segments.length > 0) {
    const i = Math.floor(rng() * segments.length);
    segments = segments.map((s, k) => (k === i ? randomSegment(rng, s.id) : s));
  } else if (kind < 0.94) {
    segments = [...segments, randomSegment(rng, counter.next++)];
  } else if (segments.length > 0) {
    segments = segments.filter((_, k) => k !== Math.floor(rng() * segments.length));
  }
  return { flags, segments };
}
