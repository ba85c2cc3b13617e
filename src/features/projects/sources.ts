/**
 * The question projects ask of environments, declared here so the environments feature needs
 * nothing from this folder (it asks projects to connect a new environment). composition.ts passes
 * the environments store.
 */

/** Every environment's name and whether it is enabled (a new project connects the enabled ones). */
export interface EnvironmentSource {
  list(): Promise<Array<{ name: string; enabled: boolean }>>;
}
