import type { Collection } from 'mongodb';
import type { Outbox, StoredDocument } from '../../db/outbox/index.js';
import type { CollectionMirror } from '../../db/state.js';

declare module '../../db/state.js' {
  interface HeldDocuments {
    settings: SettingDocument;
  }
}

/** Unleash's `settings` row `unleash.frontend`: the origins the frontend API answers browsers from. */
export interface SettingDocument extends StoredDocument {
  _id: string;
  frontendApiOrigins: string[];
}

export const FRONTEND_SETTING = 'unleash.frontend';

/** Server settings changed through the admin API, from the configuration state. */
export class SettingStore {
  readonly collection: Collection<SettingDocument>;
  private readonly mirror: CollectionMirror<SettingDocument>;

  constructor(outbox: Outbox) {
    this.collection = outbox.collection<SettingDocument>('settings');
    this.mirror = outbox.state.mirror('settings');
  }

  get(id: string): SettingDocument | null {
    return this.mirror.get(id) ?? null;
  }
}
