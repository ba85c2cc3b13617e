import type { Collection } from 'mongodb';
import { LIVE, type Outbox, type StoredDocument } from '../../db/outbox.js';
import { ReadCache } from '../../db/read-cache.js';
import { isDuplicateKey } from '../../db/keys.js';

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
}

export class ProjectStore {
  readonly collection: Collection<ProjectDocument>;
  private readonly cache: ReadCache;

  constructor(outbox: Outbox) {
    this.collection = outbox.collection<ProjectDocument>('projects');
    this.cache = new ReadCache(outbox);
  }

  /** Project `default` (name `Default`), connected to both initial environments (SPEC §7). */
  async init(): Promise<void> {
    await this.collection.updateOne(
      { _id: 'default' },
      {
        $setOnInsert: {
          id: 'default', name: 'Default', description: 'Default project', defaultStickiness: 'default',
          environments: ['development', 'production'], archivedAt: null, createdAt: new Date(), _rev: 1,
        },
      },
      { upsert: true },
    ).catch((err: unknown) => {
      if (!isDuplicateKey(err)) throw err;
    });
  }

  /** Cached per revision: nearly every admin call reads its project. */
  async get(id: string): Promise<ProjectDocument | null> {
    return await this.cache.get(`id:${id}`, () => this.collection.findOne({ _id: id, ...LIVE }));
  }

  async list(): Promise<ProjectDocument[]> {
    return await this.collection.find({ ...LIVE }).sort({ createdAt: 1, _id: 1 }).toArray();
  }
}
