import type { Collection } from 'mongodb';
import type { Outbox, StoredDocument } from '../../db/outbox/index.js';
import type { CollectionMirror, ConfigState } from '../../db/state.js';
import { isDuplicateKey } from '../../db/keys.js';
import type { ConstraintConfig, StrategyVariantConfig } from '../../evaluation/types.js';

/** What the configuration state holds of the collection (src/db/state.ts). */
declare module '../../db/state.js' {
  interface HeldDocuments {
    projects: ProjectDocument;
  }
}

export interface ProjectDocument extends StoredDocument {
  _id: string;
  id: string;
  name: string;
  description: string | null;
  defaultStickiness: string;
  /** Environments connected to the project (every environment, in this subset). */
  environments: string[];
  archivedAt: Date | null;
  createdAt: Date;
  /**
   * Per connected environment, the strategy a flag turned on there without an active strategy gets
   * (Unleash's `project_environments.default_strategy`); gone with the connection.
   */
  defaultStrategies?: Record<string, ProjectDefaultStrategy>;
}

/** A project environment's default strategy as sent (always flexibleRollout), in jsonb key order. */
export interface ProjectDefaultStrategy {
  name: string;
  title?: string | null;
  disabled?: boolean | null;
  sortOrder?: number;
  constraints?: ConstraintConfig[];
  parameters?: Record<string, string>;
  variants?: StrategyVariantConfig[];
  segments?: number[];
}

export class ProjectStore {
  readonly collection: Collection<ProjectDocument>;
  private readonly mirror: CollectionMirror<ProjectDocument>;
  private readonly state: ConfigState;

  constructor(private readonly outbox: Outbox) {
    this.collection = outbox.collection<ProjectDocument>('projects');
    this.state = outbox.state;
    this.mirror = outbox.state.mirror('projects');
  }

  /** Project `default` (name `Default`), connected to both initial environments (docs/rules.md §7). */
  async init(): Promise<void> {
    if (this.mirror.get('default')) return;
    const project: ProjectDocument = {
      _id: 'default', id: 'default', name: 'Default', description: 'Default project', defaultStickiness: 'default',
      environments: ['development', 'production'], archivedAt: null, createdAt: new Date(),
    };
    await this.outbox.insert(this.collection, project, []).catch((err: unknown) => {
      if (!isDuplicateKey(err)) throw err; // another instance committed it first
    });
  }

  /** From the configuration state: nearly every admin call reads its project. */
  async get(id: string): Promise<ProjectDocument | null> {
    return this.mirror.get(id) ?? null;
  }

  async list(): Promise<ProjectDocument[]> {
    return this.state.derived('projects:list', () =>
      [...this.mirror.values()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0)));
  }
}
