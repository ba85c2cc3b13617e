/** What Edge's routes ask of other features (wired in src/composition.ts). */
export interface EdgeSources {
  /** The live API token a secret belongs to (unknown, revoked and expired alike: null), as authentication finds it. */
  token(secret: string): { type: string; projects: string[]; environment: string } | null;
}
