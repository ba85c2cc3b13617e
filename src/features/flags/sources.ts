/**
 * The questions flags ask of other features, declared here so those features need nothing from
 * this folder to answer them (and can read flags through read-model.ts without a cycle).
 * composition.ts passes what answers each: the projects, environments, strategy types and
 * segments stores, and the client metrics service.
 */
import type { SegmentInfo } from './apply.js';
import type { UsageInfo } from './views.js';
import type { ConstraintConfig, StrategyVariantConfig } from '../../evaluation/types.js';

/** A flag's project: its connected environments, stickiness and whether it is archived. */
export interface FlagProject {
  /** Environments connected to the project. */
  environments: string[];
  defaultStickiness: string;
  archivedAt: Date | null;
  /** Per environment, the strategy turning a flag on adds when it has no active one. */
  defaultStrategies?: Readonly<Record<string, DefaultStrategy>>;
}

/** A project environment's default strategy (flexibleRollout; any part may be absent). */
export interface DefaultStrategy {
  title?: string | null;
  constraints?: ConstraintConfig[];
  parameters?: Record<string, string>;
  variants?: StrategyVariantConfig[];
  segments?: number[];
}

export interface ProjectSource {
  get(id: string): Promise<FlagProject | null>;
}

export interface FlagEnvironmentInfo {
  name: string;
  type: string;
  sortOrder: number;
  enabled: boolean;
}

export interface EnvironmentSource {
  /** Every environment, in sortOrder. */
  list(): Promise<FlagEnvironmentInfo[]>;
}

/** Which strategy names exist (a strategy must name one). */
export interface StrategyTypeSource {
  list(): Promise<Array<{ name: string }>>;
}

/** How flags look segments up (strategy validation). */
export interface SegmentSource {
  get(id: number): Promise<SegmentInfo | null>;
  /** Of `ids`, those missing or being deleted as the database has them now (the state only while no other instance runs). */
  missingNow(ids: number[]): Promise<number[]>;
}

/** What SDKs report of a flag's use (the admin flag views show it). */
export interface UsageSource {
  /** Per environment: when the flag was last seen and its yes/no counts over the last hour. */
  environmentUsage(flag: string): Promise<ReadonlyMap<string, UsageInfo>>;
  /** flag → environment → when SDKs last saw it (the project flag list). */
  lastSeenAll(): Promise<ReadonlyMap<string, ReadonlyMap<string, Date>>>;
}

/** A context field's legal values (empty: any value; the context fields' store answers). */
export interface ContextFieldSource {
  legalValues(name: string): Promise<readonly string[]>;
}

/** Someone who changed a flag, as its view lists them. */
export interface Collaborator {
  id: number;
  name: string;
  imageUrl: string;
}

/**
 * Who recorded events under a flag's name, latest first, as Unleash 8.2 lists a flag's
 * collaborators: every event of that name counts, those of an earlier flag of the same name too
 * (measured: a flag deleted and imported back lists the admin token user of its first life).
 */
export interface CollaboratorSource {
  of(featureName: string): Promise<Collaborator[]>;
}
