/**
 * The question projects ask of environments, declared here so the environments feature needs
 * nothing from this folder (it asks projects to connect a new environment). composition.ts passes
 * the environments store.
 */
import type { Change } from '../../db/outbox/index.js';

/** Every environment's name and whether it is enabled (a new project connects the enabled ones). */
export interface EnvironmentSource {
  list(): Promise<Array<{ name: string; enabled: boolean }>>;
}

/** What a project's environment being disconnected does to its flags (composition.ts asks the flags store). */
export interface ProjectFlagSource {
  /**
   * The changes that leave each of the project's flags (archived ones too) off and without
   * variants in `environment`, strategies kept (Unleash 8.2 deletes the feature_environments rows
   * and the variants with them; the strategies are other rows, measured).
   */
  environmentRemoved(projectId: string, environment: string): Promise<Change[]>;
}
