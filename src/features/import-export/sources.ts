/**
 * What export and import ask of other features, declared here so those features need nothing from
 * this folder (composition.ts passes the answers: the flags, projects, environments, strategy
 * types, segments, context fields and tags stores, and the change writer).
 *
 * An import is one commit whatever it touches (flags, tags, tag types, context fields): the
 * writers below only build each document's change (`Change`), and `commit` writes them all with the
 * events at once.
 */
import type { Change, PendingEvent } from '../../db/outbox/index.js';
import type { ContextField } from '../context-fields/read-model.js';
import type { FlagData, FlagDocument } from '../flags/read-model.js';
import type { Segment } from '../segments/read-model.js';

export interface ImportProject {
  /** Environments connected to the project. */
  environments: string[];
  defaultStickiness: string;
  archivedAt: Date | null;
}

export interface ImportEnvironment {
  name: string;
  type: string;
  sortOrder: number;
  enabled: boolean;
}

export interface ImportStrategyType {
  name: string;
  /** A custom type (Unleash's `editable`): the import warns that its parameters must match. */
  editable: boolean;
}

export interface ImportTagType {
  name: string;
  description: string | null;
  icon: string | null;
  color: string | null;
}

/** The state an export or an import reads, as it is now (the configuration state). */
export interface ImportSources {
  /** The flag of that name, archived or not. */
  flag(name: string): FlagDocument | null;
  /** Every flag, archived ones too, in creation order. */
  flags(): Promise<readonly FlagDocument[]>;
  project(id: string): Promise<ImportProject | null>;
  /** Every environment, in sortOrder. */
  environments(): Promise<ImportEnvironment[]>;
  strategyTypes(): Promise<ImportStrategyType[]>;
  /** Ordered by name. */
  segments(): Promise<Segment[]>;
  /** Ordered by name. */
  contextFields(): Promise<ContextField[]>;
  /** In creation order. */
  tagTypes(): Promise<ImportTagType[]>;
  tags(): Promise<Array<{ type: string; value: string }>>;
  /** Names of the live flags that depend on a flag. */
  children(name: string): readonly string[];
}

/** The documents an import writes, each as its change of one commit. */
export interface ImportWriter {
  /** A flag as `next`: inserted when `current` is null, else replacing `current` as read. */
  flag(current: FlagDocument | null, next: FlagData): Change;
  tagType(type: ImportTagType, at: Date): Change;
  tag(type: string, value: string, at: Date): Change;
  contextField(field: ContextField): Change;
  /** All of it or nothing (Outbox.write). */
  commit(changes: Change[], events: PendingEvent[]): Promise<void>;
}
