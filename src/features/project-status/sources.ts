/**
 * What the project pages read of other features, declared here; composition.ts passes what
 * answers each (stores' read sides and the event log), so nothing here reaches into their folders.
 */
import type { FavoriteReadModel } from '../favorites/read-model.js';
import type { FlagData } from '../flags/read-model.js';
import type { EnabledEvent } from './dora.js';

export interface StatusProject {
  id: string;
  name: string;
  description: string | null;
  defaultStickiness: string;
  environments: string[];
  createdAt: Date;
}

/** A flag of the project's flag list (`GET /api/admin/projects/:projectId/features`). */
export interface StatusFlagView {
  name: string;
  description: string | null;
  type: string;
  stale: boolean;
  createdAt: string;
  impressionData: boolean;
  environments: Array<{
    name: string; enabled: boolean; type: string; sortOrder: number; variantCount: number; lastSeenAt: string | null;
    hasStrategies: boolean; hasEnabledStrategies: boolean;
  }>;
}

export interface ProjectStatusSources {
  favorites: FavoriteReadModel;
  project(id: string): Promise<StatusProject | null>;
  /** The project's flags, archived ones included. */
  flags(projectId: string): Promise<FlagData[]>;
  /** Tokens naming the project (not those for every project, as Unleash counts them). */
  apiTokens(): Promise<Array<{ projects: string[] }>>;
  segments(): Promise<Array<{ project: string | null }>>;
  /** Events of the project per UTC day since `since`, oldest first. */
  activityByDay(projectId: string, since: Date): Array<{ date: string; count: number }>;
  /** Events of the project between two times. */
  activityBetween(projectId: string, from: Date, to: Date): number;
  /** The project's live flags as its flag list shows them (environments with their summaries), in its order. */
  flagViews(projectId: string): Promise<StatusFlagView[]>;
  /** The project's `feature-environment-enabled` events, in any order. */
  enabledEvents(projectId: string): Promise<EnabledEvent[]>;
  /** Each environment's type, by name. */
  environmentTypes(): Promise<ReadonlyMap<string, string>>;
  /** The configuration state's revision: everything above but the event log changes only with it. */
  revision(): number;
  /** Days a flag of each type lives before it is potentially stale (null: never). */
  lifetimes(): ReadonlyMap<string, number | null>;
}
