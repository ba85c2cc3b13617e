import { buildEvents, retrying, type AuditUser, type Outbox } from '../../db/outbox/index.js';
import { notFound } from '../../errors.js';
import type { FeatureType } from './read-model.js';
import type { FeatureTypeStore } from './store.js';

export class FeatureTypeService {
  constructor(
    private readonly store: FeatureTypeStore,
    private readonly outbox: Outbox,
  ) {}

  list(): readonly FeatureType[] {
    return this.store.list();
  }

  /** 0 days means never potentially stale, stored as null (measured on Unleash 8.2); the event carries the type before and after. */
  async setLifetime(id: string, days: number | null, audit: AuditUser): Promise<FeatureType> {
    const lifetimeDays = days === 0 ? null : days;
    return await retrying(async () => {
      const before = this.store.list().find((type) => type.id === id);
      if (!before) throw notFound(`The feature type you tried to update ("${id}") does not exist.`);
      const after = { ...before, lifetimeDays };
      const events = buildEvents(audit, [{ type: 'feature-type-updated', data: after, preData: before }]);
      const current = this.store.document(id);
      if (current) await this.outbox.replace(this.store.collection, current, { ...current, lifetimeDays }, events);
      else await this.outbox.insert(this.store.collection, { _id: id, lifetimeDays }, events);
      return after;
    });
  }
}
