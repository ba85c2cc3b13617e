import { createHash, randomBytes } from 'node:crypto';
import type { Collection } from 'mongodb';
import type { Outbox, PendingEvent, StoredDocument } from '../../db/outbox/index.js';
import { MirrorView, type CollectionMirror } from '../../db/state.js';
import { insertUnderNextId } from '../../db/keys.js';

/** What the configuration state holds of the collection (src/db/state.ts). */
declare module '../../db/state.js' {
  interface HeldDocuments {
    personal_access_tokens: PatDocument;
  }
}

/** A personal access token: `_id` is its integer id, sequential across every user (as Unleash's serial). */
export interface PatDocument extends StoredDocument {
  _id: number;
  /** SHA-256 of the secret, hex. The plain secret is shown once, at creation, and never stored. */
  secretHash: string;
  description: string;
  /** `<userId>:<description>`: a description is unique per user. */
  descriptionKey: string;
  userId: number;
  expiresAt: Date;
  createdAt: Date;
  seenAt: Date | null;
}

export function hashPatSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** `user:<56 hex>`, as Unleash's (28 random bytes). */
export function generatePatSecret(): string {
  return `user:${randomBytes(28).toString('hex')}`;
}

export const PAT_PREFIX = 'user:';

export function descriptionKey(userId: number, description: string): string {
  return `${userId}:${description}`;
}

/** The tokens by secret hash and by user, kept current change by change. */
interface PatIndex {
  byHash: Map<string, PatDocument>;
  byUser: Map<number, PatDocument[]>;
}

const MAX_ATTEMPTS = 50;

function indexOf(docs: Iterable<PatDocument>): PatIndex {
  const index: PatIndex = { byHash: new Map(), byUser: new Map() };
  for (const doc of docs) {
    index.byHash.set(doc.secretHash, doc);
    const own = index.byUser.get(doc.userId);
    if (own) own.push(doc);
    else index.byUser.set(doc.userId, [doc]);
  }
  for (const own of index.byUser.values()) own.sort((a, b) => a._id - b._id);
  return index;
}

/**
 * Personal access tokens, read from the configuration state (src/db/state.ts): an admin request
 * carrying one authenticates by a map look-up, and a deletion reaches every instance with the
 * revision. The index is rebuilt only when the tokens change, not on every revision.
 */
export class PatStore {
  readonly collection: Collection<PatDocument>;
  private readonly mirror: CollectionMirror<PatDocument>;
  private readonly index: MirrorView<PatDocument, PatIndex>;
  private nextId: number | undefined;

  constructor(private readonly outbox: Outbox) {
    this.collection = outbox.collection<PatDocument>('personal_access_tokens');
    this.mirror = outbox.state.mirror('personal_access_tokens');
    // A change rebuilds the whole index: tokens are few (at most 10 per user) and change rarely.
    this.index = new MirrorView(this.mirror, indexOf, () => undefined);
    outbox.unique('personal_access_tokens', ['secretHash', 'descriptionKey']);
  }

  byHash(hash: string): PatDocument | undefined {
    return this.index.get().byHash.get(hash);
  }

  get(id: number): PatDocument | undefined {
    return this.mirror.get(id);
  }

  /** A user's tokens, by id (creation order). */
  ofUser(userId: number): PatDocument[] {
    return this.index.get().byUser.get(userId) ?? [];
  }

  private highestId(): number {
    let highest = 0;
    for (const doc of this.mirror.values()) highest = Math.max(highest, doc._id);
    return highest;
  }

  /** Inserts under the next free id; a taken description or secret is the caller's `otherKey`. */
  async insertNew(build: (id: number) => PatDocument, events: (doc: PatDocument) => PendingEvent[], otherKey: () => Promise<PatDocument>): Promise<PatDocument> {
    return await this.outbox.exclusive('personal_access_tokens:insert', () => insertUnderNextId<PatDocument>({
      firstFree: () => Math.max(this.nextId ?? 0, this.highestId() + 1),
      insert: async (id) => {
        const doc = build(id);
        await this.outbox.insert(this.collection, doc, events(doc));
        this.nextId = id + 1;
        return doc;
      },
      otherKey,
      maxAttempts: MAX_ATTEMPTS,
    }));
  }

  async replace(current: PatDocument, next: PatDocument, events: PendingEvent[]): Promise<void> {
    await this.outbox.replace(this.collection, current, next, events);
  }

  async remove(current: PatDocument, events: PendingEvent[]): Promise<void> {
    await this.outbox.remove(this.collection, current, events);
  }
}
