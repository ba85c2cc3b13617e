/**
 * What the users' routes ask of other features, declared here so that the sessions feature (which
 * reads users) needs nothing back from this folder; composition passes the session service.
 */
export interface SessionEnder {
  /** Ends the person's sessions except the one with `keep` as its secret (all of them without it). */
  endOtherSessions(userId: number, keep?: string): Promise<unknown>;
}
