/** What favourites read of other features (composition.ts passes what answers each). */
export interface FavoriteSources {
  /** A flag by name (archived ones included), or null. */
  flagCreatedAt(name: string): Date | null;
  /** A project by id, or null. */
  projectCreatedAt(id: string): Promise<Date | null>;
}
