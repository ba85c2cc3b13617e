/**
 * The question API tokens ask of environments, declared here so the environments feature needs
 * nothing from this folder (it counts tokens per environment). composition.ts passes the
 * environments store.
 */

/** Whether an environment exists (a token's environment must). */
export interface EnvironmentLookup {
  get(name: string): Promise<object | null>;
}

/** Whether a project exists (a project's tokens need it); the projects store answers. */
export interface ProjectLookup {
  get(id: string): Promise<object | null>;
}
