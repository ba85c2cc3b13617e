import type { Collection } from 'mongodb';
import type { Outbox, StoredDocument } from '../../db/outbox/index.js';
import type { CollectionMirror, ConfigState } from '../../db/state.js';
import { isDuplicateKey } from '../../db/keys.js';

/** What the configuration state holds of the collection (src/db/state.ts). */
declare module '../../db/state.js' {
  interface HeldDocuments {
    environments: EnvironmentDocument;
  }
}

export interface EnvironmentDocument extends StoredDocument {
  _id: string;
  name: string;
  type: string;
  sortOrder: number;
  enabled: boolean;
  protected: boolean;
  createdAt: Date;
}

/** A fresh instance has exactly Unleash OSS's two environments (docs/rules.md §7). */
const INITIAL: Array<Pick<EnvironmentDocument, 'name' | 'type' | 'sortOrder'>> = [
  { name: 'development', type: 'development', sortOrder: 2 },
  { name: 'production', type: 'production', sortOrder: 3 },
];

export class EnvironmentStore {
  readonly collection: Collection<EnvironmentDocument>;
  private readonly mirror: CollectionMirror<EnvironmentDocument>;
  private readonly state: ConfigState;

  constructor(private readonly outbox: Outbox) {
    this.collection = outbox.collection<EnvironmentDocument>('environments');
    this.state = outbox.state;
    this.mirror = outbox.state.mirror('environments');
  }

  async init(): Promise<void> {
    for (const env of INITIAL) {
      if (this.mirror.get(env.name)) continue;
      const doc: EnvironmentDocument = { _id: env.name, ...env, enabled: true, protected: false, createdAt: new Date() };
      await this.outbox.insert(this.collection, doc, []).catch((err: unknown) => {
        if (!isDuplicateKey(err)) throw err; // another instance committed it first
      });
    }
  }

  async get(name: string): Promise<EnvironmentDocument | null> {
    return this.mirror.get(name) ?? null;
  }

  /** Ordered by sortOrder, then creation (docs/rules.md §1.4); from the configuration state, sorted once per revision. */
  async list(): Promise<EnvironmentDocument[]> {
    return this.state.derived('environments:list', () =>
      [...this.mirror.values()].sort((a, b) =>
        a.sortOrder - b.sortOrder || a.createdAt.getTime() - b.createdAt.getTime() || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0)));
  }
}
