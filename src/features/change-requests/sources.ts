/**
 * The questions change requests ask of other features, declared here so those features need
 * nothing from this folder. composition.ts passes what answers each: the flags, projects and
 * environments stores and the event log.
 */
import type { PendingEvent } from '../../db/outbox/index.js';
import type { FlagData, FlagDocument } from '../flags/read-model.js';

/**
 * The flags a change request simulates, as stored (with `_rev`, so an apply's write is
 * conditional on what its dry run read), and the apply's write itself: the dry run has already
 * applied the live rules, so the apply writes its result as it is.
 */
export interface FlagDocuments {
  get(name: string): Promise<FlagDocument | null>;
  /** Every flag, archived ones too. */
  all(): Promise<FlagDocument[]>;
  listByProject(project: string, options?: { archived?: boolean }): Promise<FlagDocument[]>;
  findByStrategyId(id: string): Promise<FlagDocument | null>;
  /** Replaces `current` (as read) by `next` with its events, if `current` is still the stored revision. */
  replace(current: FlagDocument, next: FlagData, events: PendingEvent[]): Promise<void>;
}

/** A project's connected environments (a change request names one). */
export interface ProjectLookup {
  get(id: string): Promise<{ environments: string[] } | null>;
}

/** Whether an environment exists. */
export interface EnvironmentLookup {
  get(name: string): Promise<object | null>;
}

/** Whether any of these events is in the log already (an interrupted apply must not write its changes twice). */
export interface EventLookup {
  has(keys: Iterable<string>): Promise<boolean>;
}
