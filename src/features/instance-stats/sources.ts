/**
 * What the instance statistics read of other features, declared here; composition.ts passes what
 * answers each (stores' read sides, the client metrics and the event search).
 */
import type { FlagData } from '../flags/read-model.js';

export interface StatsUser {
  id: number;
  email: string | null;
  seenAt: Date | null;
}

/** An hour of one flag's SDK counts, as the client metrics keep it. */
export interface StatsMetricsBucket {
  flag: string;
  environment: string;
  hour: Date;
  appNames: readonly string[];
  variants: Readonly<Record<string, number>>;
}

export interface StatsEventFilter {
  type?: string;
  environments?: readonly string[];
  from?: Date;
}

export interface InstanceStatsSources {
  /** The installation's stable id (the one ui-config's version information carries). */
  readonly instanceId: string;
  /** The Unleash version Vane answers as. */
  readonly version: string;
  users(): Promise<StatsUser[]>;
  /** When each of a user's personal access tokens was last used. */
  tokensSeenAt(userId: number): Array<Date | null>;
  /** The stored type of every API token (`client` and `backend` are kept apart, as Unleash counts them). */
  apiTokenTypes(): Promise<string[]>;
  /** Every flag, archived ones included. */
  flags(): Promise<FlagData[]>;
  projects(): Promise<Array<{ archivedAt: Date | null }>>;
  contextFieldCount(): Promise<number>;
  environments(): Promise<Array<{ name: string; type: string }>>;
  segmentCount(): Promise<number>;
  /** Strategy types, deprecated and custom ones included. */
  strategyTypeCount(): Promise<number>;
  sdkInstances(): Promise<Array<{ appName: string; lastSeen: Date }>>;
  metricsBuckets(): Promise<StatsMetricsBucket[]>;
  /** How many events of the log match. */
  eventCount(filter: StatsEventFilter): Promise<number>;
}
