import type { Collection } from 'mongodb';
import type { Outbox, StoredDocument } from '../../db/outbox/index.js';
import type { CollectionMirror, ConfigState } from '../../db/state.js';

/** What the configuration state holds of the collection (src/db/state.ts). */
declare module '../../db/state.js' {
  interface HeldDocuments {
    public_signup_tokens: InviteLinkDocument;
  }
}

export interface InviteLinkDocument extends StoredDocument {
  /** The secret: 32 lowercase hex characters. Kept in clear, as Unleash does: it is part of the link shown to admins. */
  _id: string;
  name: string;
  expiresAt: Date;
  /** As stored; what the API reports is `enabled && expiresAt > now` (docs/rules.md D3). */
  enabled: boolean;
  createdAt: Date;
  createdBy: string;
  roleId: number;
}

/**
 * Invite links, read from the configuration state (src/db/state.ts): a link created or disabled
 * on one instance is usable or refused on the others with the next revision.
 */
export class InviteLinkStore {
  readonly collection: Collection<InviteLinkDocument>;
  private readonly mirror: CollectionMirror<InviteLinkDocument>;
  private readonly state: ConfigState;

  constructor(outbox: Outbox) {
    this.collection = outbox.collection<InviteLinkDocument>('public_signup_tokens');
    this.state = outbox.state;
    this.mirror = outbox.state.mirror('public_signup_tokens');
  }

  async get(secret: string): Promise<InviteLinkDocument | null> {
    return this.mirror.get(secret) ?? null;
  }

  /** In creation order. */
  async list(): Promise<InviteLinkDocument[]> {
    return this.state.derived('invite-links:list', () => [...this.mirror.values()].sort((a, b) =>
      a.createdAt.getTime() - b.createdAt.getTime() || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0)));
  }
}
