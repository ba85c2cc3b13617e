import type { Collection } from 'mongodb';
import type { Outbox, StoredDocument } from '../../db/outbox/index.js';
import type { CollectionMirror } from '../../db/state.js';

declare module '../../db/state.js' {
  interface HeldDocuments {
    maintenance: MaintenanceDocument;
  }
}

/**
 * Unleash's `settings` row `maintenance.mode`: the body an admin last sent, kept as its JSON text
 * (Unleash stores it whole, unknown keys and their order included, and answers it back), and
 * whether it turns maintenance mode on, read on every admin write.
 */
export interface MaintenanceDocument extends StoredDocument {
  _id: string;
  enabled: boolean;
  content: string;
}

export const MAINTENANCE_SETTING = 'maintenance.mode';

/** Maintenance mode's setting, from the configuration state. */
export class MaintenanceStore {
  readonly collection: Collection<MaintenanceDocument>;
  private readonly mirror: CollectionMirror<MaintenanceDocument>;

  constructor(outbox: Outbox) {
    this.collection = outbox.collection<MaintenanceDocument>('maintenance');
    this.mirror = outbox.state.mirror('maintenance');
  }

  get(): MaintenanceDocument | null {
    return this.mirror.get(MAINTENANCE_SETTING) ?? null;
  }
}
