import { notFound, validationError } from '../../errors.js';
import type { Segment, SegmentReadModel } from './read-model.js';
import type { StrategyRewriter, StrategySource } from './sources.js';

/** Unleash's strategySegmentsLimit (default 5): counted on the list as sent, repeats included. */
const SEGMENTS_PER_STRATEGY = 5;

export interface StrategyUsingSegment {
  id: string;
  projectId: string;
  featureName: string;
  strategyName: string;
  environment: string;
}

export interface StrategySegmentsInput {
  projectId: string;
  strategyId: string;
  environmentId: string;
  segmentIds: number[];
}

/**
 * Which strategies use a segment and which segments a strategy uses, and setting the latter:
 * Unleash 8.2's `/api/admin/segments/…strategies` routes. Strategies live inside flags, so the
 * flags answer (their read model, and their service for the write).
 */
export class StrategySegmentService {
  constructor(
    private readonly segments: SegmentReadModel,
    private readonly flags: StrategySource,
    private readonly rewriter: StrategyRewriter,
  ) {}

  /** Strategies of live flags using segment `id` (archived flags left out, as Unleash's join does); 404 for an unknown id. */
  async strategiesUsing(id: number): Promise<StrategyUsingSegment[]> {
    if (!(await this.segments.get(id))) throw notFound(`No segment exists with ID "${id}"`);
    const found: StrategyUsingSegment[] = [];
    for (const flag of await this.flags.snapshotSource()) {
      for (const [environment, env] of Object.entries(flag.environments)) {
        for (const strategy of env.strategies) {
          if (!strategy.segments?.includes(id)) continue;
          found.push({ id: strategy.id, projectId: flag.project, featureName: flag.name, strategyName: strategy.name, environment });
        }
      }
    }
    return found;
  }

  /** The segments a strategy uses, by id (measured: [6] then [3, 6] lists 3 first); none for an unknown strategy. */
  async segmentsOf(strategyId: string): Promise<Segment[]> {
    const ids = this.strategy(await this.flags.findByStrategyId(strategyId), strategyId)?.segments ?? [];
    const segments = await Promise.all([...ids].sort((a, b) => a - b).map((id) => this.segments.get(id)));
    return segments.filter((s): s is Segment => s !== null);
  }

  /**
   * Sets a strategy's segments to exactly `segmentIds`, without an event (Unleash 8.2 records
   * none). Unleash ignores `projectId` and `environmentId` (measured: `nope` for both → 201), so
   * does Vane. Where Unleash fails with a foreign-key 500 after removing some segments (an unknown
   * strategy or segment), Vane answers 404 and writes nothing (docs/rules.md D10).
   */
  async setSegments(input: StrategySegmentsInput): Promise<void> {
    if (input.segmentIds.length > SEGMENTS_PER_STRATEGY) {
      throw validationError(`Strategies may not have more than ${SEGMENTS_PER_STRATEGY} segments`);
    }
    const ids = [...new Set(input.segmentIds)].sort((a, b) => a - b);
    for (const id of ids) {
      if (!(await this.segments.get(id))) throw notFound(`No segment exists with ID "${id}"`);
    }
    const sameIds = (current: number[] | undefined) => (current ?? []).length === ids.length && [...(current ?? [])].sort((a, b) => a - b).every((id, i) => id === ids[i]);
    const found = await this.rewriter.rewriteStrategy(input.strategyId, (strategy) => (sameIds(strategy.segments) ? null : { ...strategy, segments: ids }));
    if (!found) throw notFound(`Could not find strategy with id ${input.strategyId}`);
  }

  private strategy(flag: Awaited<ReturnType<StrategySource['findByStrategyId']>>, strategyId: string) {
    for (const env of Object.values(flag?.environments ?? {})) {
      const strategy = env.strategies.find((s) => s.id === strategyId);
      if (strategy) return strategy;
    }
    return undefined;
  }
}
