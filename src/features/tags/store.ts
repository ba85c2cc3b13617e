import type { Collection } from 'mongodb';
import { LIVE, type Outbox, type StoredDocument } from '../../db/outbox.js';
import { isDuplicateKey } from '../../db/keys.js';

export interface TagTypeDocument extends StoredDocument {
  _id: string;
  name: string;
  description: string;
  icon: string | null;
  createdAt: Date;
}

export interface TagDocument extends StoredDocument {
  /** `${type}:${value}` — the unique index that makes duplicate tags impossible. */
  _id: string;
  type: string;
  value: string;
  createdAt: Date;
}

export class TagStore {
  readonly types: Collection<TagTypeDocument>;
  readonly tags: Collection<TagDocument>;

  constructor(outbox: Outbox) {
    this.types = outbox.collection<TagTypeDocument>('tag_types');
    this.tags = outbox.collection<TagDocument>('tags');
  }

  /** Tag type `simple` exists in a fresh instance (docs/rules.md §7). */
  async init(): Promise<void> {
    await this.types.updateOne(
      { _id: 'simple' },
      { $setOnInsert: { name: 'simple', description: 'Used to simplify filtering of features', icon: '#', createdAt: new Date(), _rev: 1 } },
      { upsert: true },
    ).catch((err: unknown) => {
      if (!isDuplicateKey(err)) throw err;
    });
  }

  async getType(name: string): Promise<TagTypeDocument | null> {
    return await this.types.findOne({ _id: name, ...LIVE });
  }

  async listTypes(): Promise<TagTypeDocument[]> {
    return await this.types.find({ ...LIVE }).sort({ createdAt: 1, _id: 1 }).toArray();
  }

  async getTag(type: string, value: string): Promise<TagDocument | null> {
    return await this.tags.findOne({ _id: tagId(type, value), ...LIVE });
  }

  async listTags(): Promise<TagDocument[]> {
    return await this.tags.find({ ...LIVE }).sort({ createdAt: 1, _id: 1 }).toArray();
  }
}

export function tagId(type: string, value: string): string {
  return `${type}:${value}`;
}
