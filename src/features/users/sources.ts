/**
 * What the users' routes ask of other features, declared here so that the sessions feature (which
 * reads users) needs nothing back from this folder; composition passes the session service.
 */
export interface SessionEnder {
  /** Ends the person's sessions except the one with `keep` as its secret (all of them without it). */
  endOtherSessions(userId: number, keep?: string): Promise<unknown>;
  /** Ends the session of this cookie secret (a reset link opened in a signed-in browser signs it out). */
  logout(secret: string): Promise<unknown>;
}

/** When each of a person's personal access tokens was last used (the inactive users' `patSeenAt`). */
export type TokensSeenAt = (userId: number) => Array<Date | null>;
