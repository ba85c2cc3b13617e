import type { Collection } from 'mongodb';
import { LIVE, type Outbox, type StoredDocument } from '../../db/outbox.js';

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

export class InviteLinkStore {
  readonly collection: Collection<InviteLinkDocument>;

  constructor(outbox: Outbox) {
    this.collection = outbox.collection<InviteLinkDocument>('public_signup_tokens');
  }

  async init(): Promise<void> {
    await this.collection.createIndex({ createdAt: 1 }, { name: 'created_at' });
  }

  async get(secret: string): Promise<InviteLinkDocument | null> {
    return await this.collection.findOne({ _id: secret, ...LIVE });
  }

  /** In creation order. */
  async list(): Promise<InviteLinkDocument[]> {
    return await this.collection.find({ ...LIVE }).sort({ createdAt: 1, _id: 1 }).toArray();
  }
}
