/**
 * What other features may read of favourites: whom a flag or project is a favourite of. A mark
 * carries the creation time of what it marked, so a flag or project deleted and created again
 * under the same name is no one's favourite (Unleash's rows go with the flag, by foreign key).
 */
export interface FavoriteMarks {
  /** Flag name → creation time (ms) of the flag marked. */
  readonly flags: ReadonlyMap<string, number>;
  /** Project id → creation time (ms) of the project marked. */
  readonly projects: ReadonlyMap<string, number>;
}

export interface FavoriteReadModel {
  /** The person's marks; empty for a person with none (and for API tokens: `null`). */
  marksOf(userId: number | null): FavoriteMarks;
}

export const NO_MARKS: FavoriteMarks = { flags: new Map(), projects: new Map() };

/** Whether `marks` holds this very flag or project (by name and creation time). */
export function isMarked(marks: ReadonlyMap<string, number>, name: string, createdAt: Date): boolean {
  return marks.get(name) === createdAt.getTime();
}
