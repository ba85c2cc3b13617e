/**
 * The questions context fields ask of other features, declared here so those features need nothing
 * from this folder (composition.ts passes what answers them).
 */
import type { FlagReadModel } from '../flags/read-model.js';

/** The strategies that name a field in a constraint live in the flags: their read model answers. */
export type FlagStrategies = FlagReadModel;

/** Whether a project exists (a project-scoped field's project must); the projects store answers. */
export interface ProjectLookup {
  get(id: string): Promise<object | null>;
}
