/** What the personal dashboard reads of other features (composition.ts passes what answers each). */
import type { FavoriteReadModel } from '../favorites/read-model.js';
import type { FlagData } from '../flags/read-model.js';

export interface DashboardPerson {
  id: number;
  name: string | null;
  username: string | null;
  email: string | null;
}

export interface DashboardSources {
  favorites: FavoriteReadModel;
  projects(): Promise<Array<{ id: string; name: string }>>;
  /** Live flags (not archived), in creation order. */
  flags(): Promise<FlagData[]>;
  /** People holding the Admin root role. */
  admins(): Promise<DashboardPerson[]>;
  /** The project's overview (404 for an unknown project), as the project page shows it. */
  overview(projectId: string): Promise<{ health: number; onboardingStatus: { status: string; feature?: string } }>;
  /** The project's status: its stale and potentially stale flags. */
  staleCount(projectId: string): Promise<number>;
  /** The project's newest events, newest first. */
  latestEvents(projectId: string, limit: number): Promise<Array<{ id: number; createdAt: string; createdBy: string; summary: string | null }>>;
}
