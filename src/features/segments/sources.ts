/**
 * The questions segments ask of other features, declared here so those features need nothing
 * from this folder (composition.ts passes the stores that answer them).
 */
import type { StrategyConfig } from '../../evaluation/types.js';

/** Which flags and projects use one segment. */
export interface SegmentUse {
  /** Non-archived flags (Unleash's usedInFeatures). */
  features: Set<string>;
  /** Their projects (Unleash's usedInProjects). */
  projects: Set<string>;
  /** Projects of every flag using it, archived ones included (they can be revived). */
  allProjects: Set<string>;
}

/** Strategies keep their segment references inside the flag; the flags store answers. */
export interface FlagUsage {
  /** Every used segment's use, from the configuration state (derived once per revision). */
  segmentUsage(): ReadonlyMap<number, SegmentUse>;
  /** Whether a flag uses the segment as the database has the flags now (deletions only). */
  usesSegmentInDatabase(id: number): Promise<boolean>;
}

/** Whether a project exists (a segment's project must); the projects store answers. */
export interface ProjectLookup {
  get(id: string): Promise<object | null>;
}

/** A live flag as the strategy-segment routes read it (the flags read model answers). */
export interface StrategyHolder {
  name: string;
  project: string;
  environments: Record<string, { strategies: StrategyConfig[] }>;
}

/** The strategies of live flags and the flag holding one strategy; the flags store answers. */
export interface StrategySource {
  /** Every non-archived flag, in creation order. */
  snapshotSource(): Promise<StrategyHolder[]>;
  findByStrategyId(id: string): Promise<StrategyHolder | null>;
}

/** One strategy rewritten without an event (false: no flag has it); the flag service answers. */
export interface StrategyRewriter {
  rewriteStrategy(strategyId: string, change: (strategy: StrategyConfig) => StrategyConfig | null): Promise<boolean>;
}

/** A context field's legal values (none: any value); the context-field store answers. */
export interface LegalValueSource {
  legalValues(name: string): Promise<readonly string[]>;
}
