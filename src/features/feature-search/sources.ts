/**
 * What the feature search asks of other features, declared here so they need nothing from this
 * folder. composition.ts passes what answers each: the flags store (its read model), the
 * projects, environments, tags, segments, users and change-request stores, the client metrics
 * and the configuration state's revision.
 */
import type { FavoriteReadModel } from '../favorites/read-model.js';
import type { FlagData } from '../flags/read-model.js';

export interface SearchFlagSource {
  /** Every flag, archived ones too, in creation order. */
  all(): Promise<readonly FlagData[]>;
}

export interface SearchProjectSource {
  /** Each project's connected environments. */
  list(): Promise<ReadonlyArray<{ id: string; environments: readonly string[] }>>;
}

export interface SearchEnvironmentSource {
  list(): Promise<ReadonlyArray<{ name: string; type: string; sortOrder: number }>>;
}

export interface SearchTagTypeSource {
  /** Every tag type with the colour the tag lists show (null when it has none). */
  listTypes(): Promise<ReadonlyArray<{ name: string; color: string | null }>>;
}

export interface SearchSegmentSource {
  list(): Promise<ReadonlyArray<{ id: number; name: string }>>;
}

export interface SearchUser {
  name: string | null;
  username: string | null;
  email: string | null;
}

export interface SearchUserSource {
  get(id: number): Promise<SearchUser | null>;
}

/** A change request that is neither applied, cancelled nor rejected, with the flags it changes. */
export interface OpenChangeRequest {
  id: number;
  environment: string;
  features: readonly string[];
}

export interface SearchChangeRequestSource {
  open(): Promise<readonly OpenChangeRequest[]>;
}

/** What SDKs report of the flags (kept in memory by the metrics service). */
export interface SearchUsageSource {
  /** flag → environment → when SDKs last saw it; the same map until a time changes. */
  lastSeenAll(): Promise<ReadonlyMap<string, ReadonlyMap<string, Date>>>;
  /** Per environment: the yes/no counts of the last hour. */
  environmentUsage(flag: string): Promise<ReadonlyMap<string, { yes: number; no: number }>>;
}

/** The configuration state's revision: every source above but the usage changes only with it. */
export interface RevisionSource {
  readonly revision: number;
}

export interface FeatureSearchSources {
  flags: SearchFlagSource;
  /** Each flag type's lifetime in days (null: never potentially stale). */
  featureTypes: { lifetimes(): ReadonlyMap<string, number | null> };
  projects: SearchProjectSource;
  environments: SearchEnvironmentSource;
  tagTypes: SearchTagTypeSource;
  segments: SearchSegmentSource;
  users: SearchUserSource;
  changeRequests: SearchChangeRequestSource;
  usage: SearchUsageSource;
  state: RevisionSource;
  favorites: FavoriteReadModel;
}
