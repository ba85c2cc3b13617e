import type { Collection } from 'mongodb';
import type { Outbox, StoredDocument } from '../../db/outbox/index.js';
import type { CollectionMirror, ConfigState } from '../../db/state.js';
import { isDuplicateKey } from '../../db/keys.js';

/** What the configuration state holds of the collections (src/db/state.ts). */
declare module '../../db/state.js' {
  interface HeldDocuments {
    tag_types: TagTypeDocument;
    tags: TagDocument;
  }
}

export interface TagTypeDocument extends StoredDocument {
  _id: string;
  name: string;
  /** null when the type was created without one (Unleash 8.2 answers null, measured). */
  description: string | null;
  icon: string | null;
  /** Absent on types written before colours were kept (read as `colorOf` does). */
  color?: string | null;
  createdAt: Date;
}

export interface TagDocument extends StoredDocument {
  /** `${type}:${value}` — the unique index that makes duplicate tags impossible. */
  _id: string;
  type: string;
  value: string;
  createdAt: Date;
}

/** Unleash's built-in type `simple` is white. */
export const SIMPLE_COLOR = '#FFFFFF';

/** A type's colour; `simple` stored before colours were kept is still white. */
export function colorOf(type: TagTypeDocument): string | null {
  return type.color !== undefined ? type.color : type._id === 'simple' ? SIMPLE_COLOR : null;
}

/** In creation order, then by `_id` (what the lists answer). */
const byCreation = (a: { createdAt: Date; _id: string }, b: { createdAt: Date; _id: string }) =>
  a.createdAt.getTime() - b.createdAt.getTime() || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);

/**
 * Tags and tag types, read from the configuration state (src/db/state.ts): flag creation checks
 * every tag and its type, and the lists are admin reads. Creation stays an insert under the
 * unique `_id`, so a tag or type another instance created meanwhile is still refused (409).
 */
export class TagStore {
  readonly types: Collection<TagTypeDocument>;
  readonly tags: Collection<TagDocument>;
  private readonly typeMirror: CollectionMirror<TagTypeDocument>;
  private readonly tagMirror: CollectionMirror<TagDocument>;
  private readonly state: ConfigState;

  constructor(private readonly outbox: Outbox) {
    this.types = outbox.collection<TagTypeDocument>('tag_types');
    this.tags = outbox.collection<TagDocument>('tags');
    this.state = outbox.state;
    this.typeMirror = outbox.state.mirror('tag_types');
    this.tagMirror = outbox.state.mirror('tags');
  }

  /** Tag type `simple` exists in a fresh instance (docs/rules.md §7). */
  async init(): Promise<void> {
    if (this.typeMirror.get('simple')) return;
    const simple: TagTypeDocument = { _id: 'simple', name: 'simple', description: 'Used to simplify filtering of features', icon: '#', color: SIMPLE_COLOR, createdAt: new Date() };
    await this.outbox.insert(this.types, simple, []).catch((err: unknown) => {
      if (!isDuplicateKey(err)) throw err; // another instance committed it first
    });
  }

  async getType(name: string): Promise<TagTypeDocument | null> {
    return this.typeMirror.get(name) ?? null;
  }

  async listTypes(): Promise<TagTypeDocument[]> {
    return this.state.derived('tag-types:list', () => [...this.typeMirror.values()].sort(byCreation));
  }

  async getTag(type: string, value: string): Promise<TagDocument | null> {
    return this.tagMirror.get(tagId(type, value)) ?? null;
  }

  async listTags(): Promise<TagDocument[]> {
    return this.state.derived('tags:list', () => [...this.tagMirror.values()].sort(byCreation));
  }
}

export function tagId(type: string, value: string): string {
  return `${type}:${value}`;
}
