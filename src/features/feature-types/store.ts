import type { Collection } from 'mongodb';
import type { Outbox, StoredDocument } from '../../db/outbox/index.js';
import type { CollectionMirror, ConfigState } from '../../db/state.js';
import { FEATURE_TYPES, type FeatureType, type FeatureTypeReadModel } from './read-model.js';

declare module '../../db/state.js' {
  interface HeldDocuments {
    feature_types: FeatureTypeDocument;
  }
}

/** A type whose lifetime was changed; the others keep Unleash's defaults (read-model.ts). */
export interface FeatureTypeDocument extends StoredDocument {
  _id: string;
  lifetimeDays: number | null;
}

/** The six types with their lifetimes as changed, from the configuration state. */
export class FeatureTypeStore implements FeatureTypeReadModel {
  readonly collection: Collection<FeatureTypeDocument>;
  private readonly mirror: CollectionMirror<FeatureTypeDocument>;
  private readonly state: ConfigState;

  constructor(outbox: Outbox) {
    this.collection = outbox.collection<FeatureTypeDocument>('feature_types');
    this.mirror = outbox.state.mirror('feature_types');
    this.state = outbox.state;
  }

  list(): readonly FeatureType[] {
    return this.state.derived('feature-types:list', () => FEATURE_TYPES.map((type) => {
      const changed = this.mirror.get(type.id);
      return changed ? { ...type, lifetimeDays: changed.lifetimeDays } : type;
    }));
  }

  lifetimes(): ReadonlyMap<string, number | null> {
    return this.state.derived('feature-types:lifetimes', () => new Map(this.list().map((type) => [type.id, type.lifetimeDays])));
  }

  document(id: string): FeatureTypeDocument | null {
    return this.mirror.get(id) ?? null;
  }
}
