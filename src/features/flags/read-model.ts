/**
 * What other features may read of flags (the flags store is the write model and stays inside this
 * folder): the flag's shape, its form for the evaluation engine, and the questions several
 * features ask. A feature that asks something only it needs declares that question itself (see
 * its `sources.ts`); the flags store answers both.
 */
import type { StoredDocument } from '../../db/outbox/index.js';
import type { DependencyConfig, FlagConfig, FlagEnvironmentConfig, StrategyConfig, VariantConfig } from '../../evaluation/types.js';

export interface FlagTag {
  type: string;
  value: string;
}

export interface FlagEnvironment extends FlagEnvironmentConfig {
  enabled: boolean;
  strategies: StrategyConfig[];
  variants: VariantConfig[];
}

export type LifecycleStage = 'initial' | 'pre-live' | 'live' | 'completed' | 'archived';

/** One stage a flag entered; `status`, `statusValue` only on `completed` (lifecycle.ts). */
export interface LifecycleEntry {
  stage: LifecycleStage;
  enteredStageAt: Date;
  status?: 'kept' | 'discarded';
  statusValue?: string;
}

/**
 * The current stage (Unleash's preferred order over the stages entered) and, in `stages`, every
 * stage entered, in the order entered, each once. A flag stored before `stages` was kept has only
 * its current stage (lifecycle.ts `stagesOf`).
 */
export interface FlagLifecycle extends LifecycleEntry {
  stages?: LifecycleEntry[];
}

/** A link shown on the flag's page (links.ts): `url` as normalised, `id` a ULID-like string. */
export interface FlagLink {
  id: string;
  url: string;
  title: string | null;
}

/**
 * One document per flag: metadata plus every environment's configuration. A flag change of any
 * kind is therefore one document write, carrying its events (see src/db/outbox/index.ts).
 */
export interface FlagData {
  /** The flag name: unique across projects, archived flags included. */
  _id: string;
  name: string;
  project: string;
  description: string | null;
  type: string;
  impressionData: boolean;
  stale: boolean;
  archived: boolean;
  archivedAt: Date | null;
  createdAt: Date;
  createdBy: { id: number | null; name: string };
  tags: FlagTag[];
  lifecycle: FlagLifecycle;
  /** Absent on flags without links. */
  links?: FlagLink[];
  /** 0 or 1 entries: a child has at most one parent (docs/rules.md §1.4 S7). */
  dependencies: DependencyConfig[];
  environments: Record<string, FlagEnvironment>;
  /** Denormalised ids of every strategy in every environment (finds a strategy's flag). */
  strategyIds: string[];
}

export interface FlagDocument extends FlagData, StoredDocument {
  _id: string;
}

/**
 * A live flag as evaluation and the SDKs read it: the flag without the fields only the admin API
 * shows (lifecycle, creator, links, the strategy-id index), so a write of those alone changes no
 * evaluation or SDK state (FlagStore.snapshotSource keeps the previous object then).
 */
export type LiveFlag = Omit<FlagData, 'lifecycle' | 'createdBy' | 'links' | 'strategyIds' | 'archivedAt'>;

const liveJsons = new WeakMap<LiveFlag, string>();

/**
 * The live flag's JSON, made once per object (live flags are never changed): what tells one
 * revision's flag from another's, for the store's reuse and the SDK state's changes.
 */
export function liveJsonOf(flag: LiveFlag): string {
  let json = liveJsons.get(flag);
  if (json === undefined) {
    json = JSON.stringify(flag);
    liveJsons.set(flag, json);
  }
  return json;
}

/** A flag document as the evaluation engine wants it (docs/rules.md §3.3). */
export function toFlagConfig(doc: LiveFlag): FlagConfig {
  const environments: FlagConfig['environments'] = {};
  for (const [name, env] of Object.entries(doc.environments ?? {})) {
    environments[name] = { enabled: env.enabled, strategies: env.strategies, variants: env.variants };
  }
  return {
    name: doc.name,
    project: doc.project,
    createdAt: doc.createdAt.toISOString(),
    archived: doc.archived,
    environments,
    dependencies: doc.dependencies ?? [],
  };
}

/** The question the SDK state, the playground's snapshot and the project and environment lists ask. */
export interface FlagReadModel {
  /** Every non-archived flag as evaluation reads it, in creation order (derived once per revision). */
  snapshotSource(): Promise<LiveFlag[]>;
}
