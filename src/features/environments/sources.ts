/**
 * The questions environments ask of other features, declared here so those features need nothing
 * from this folder (projects and flags read environments). composition.ts passes what answers each.
 */

/** Which environments each project is connected to (the projects store answers). */
export interface ProjectSource {
  list(): Promise<Array<{ id: string; environments: string[] }>>;
}

/** Each API token's environment (the API tokens store answers). */
export interface ApiTokenSource {
  list(): Promise<Array<{ environment: string; projects: string[] }>>;
}

/** Every non-archived flag's per-environment state (the flags store answers). */
export interface FlagSource {
  snapshotSource(): Promise<Array<{ project: string; environments: Record<string, { enabled: boolean }> }>>;
}

/**
 * A feature that keeps configuration per environment and so takes in a new one (projects connect
 * it, flags get a disabled feature-environment). Each writes its own documents.
 */
export interface EnvironmentJoiner {
  addEnvironment(name: string): Promise<void>;
}
