import type { Collection } from 'mongodb';
import { LIVE, type Outbox, type StoredDocument } from '../../db/outbox.js';
import { ReadCache } from '../../db/read-cache.js';
import { isDuplicateKey } from '../../db/keys.js';

export interface EnvironmentDocument extends StoredDocument {
  _id: string;
  name: string;
  type: string;
  sortOrder: number;
  enabled: boolean;
  protected: boolean;
  createdAt: Date;
}

/** A fresh instance has exactly Unleash OSS's two environments (SPEC §7). */
const INITIAL: Array<Pick<EnvironmentDocument, 'name' | 'type' | 'sortOrder'>> = [
  { name: 'development', type: 'development', sortOrder: 2 },
  { name: 'production', type: 'production', sortOrder: 3 },
];

export class EnvironmentStore {
  readonly collection: Collection<EnvironmentDocument>;
  private readonly cache: ReadCache;

  constructor(outbox: Outbox) {
    this.collection = outbox.collection<EnvironmentDocument>('environments');
    this.cache = new ReadCache(outbox);
  }

  async init(): Promise<void> {
    for (const env of INITIAL) {
      await this.collection.updateOne(
        { _id: env.name },
        { $setOnInsert: { ...env, enabled: true, protected: false, createdAt: new Date(), _rev: 1 } },
        { upsert: true },
      ).catch((err: unknown) => {
        if (!isDuplicateKey(err)) throw err;
      });
    }
  }

  async get(name: string): Promise<EnvironmentDocument | null> {
    return (await this.list()).find((env) => env.name === name) ?? null;
  }

  /** Ordered by sortOrder, then creation (SPEC §1.4). Cached per revision (read by most admin calls). */
  async list(): Promise<EnvironmentDocument[]> {
    return await this.cache.get('all', () => this.collection.find({ ...LIVE }).sort({ sortOrder: 1, createdAt: 1, _id: 1 }).toArray());
  }
}
