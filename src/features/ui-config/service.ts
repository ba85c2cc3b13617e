import { buildEvents, retrying, type AuditUser, type Outbox } from '../../db/outbox/index.js';
import { validationError } from '../../errors.js';
import { FRONTEND_SETTING, type SettingStore } from './store.js';

/** `*`, or an origin as the URL standard writes it (scheme, host, port; no path, not even `/`): Unleash 8.2's check, measured. */
function isOrigin(value: unknown): boolean {
  if (value === '*') return true;
  if (typeof value !== 'string') return false;
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
}

/** The frontend API's CORS origins: set by an admin (stored, with Unleash's setting events), else FRONTEND_API_ORIGINS. */
export class FrontendSettingsService {
  constructor(
    private readonly store: SettingStore,
    private readonly outbox: Outbox,
    private readonly configured: readonly string[],
  ) {}

  origins(): readonly string[] {
    return this.store.get(FRONTEND_SETTING)?.frontendApiOrigins ?? this.configured;
  }

  /** Every call records an event, also when nothing changes: `setting-created` the first time, then `setting-updated` (measured). */
  async setOrigins(origins: readonly unknown[], audit: AuditUser): Promise<void> {
    const invalid = origins.find((origin) => !isOrigin(origin));
    if (invalid !== undefined) throw validationError(`Invalid origin: ${String(invalid)}`);
    const frontendApiOrigins = origins as string[];
    await retrying(async () => {
      const current = this.store.get(FRONTEND_SETTING);
      const data = { id: FRONTEND_SETTING, frontendApiOrigins };
      if (current) {
        const events = buildEvents(audit, [{ type: 'setting-updated', data, preData: { frontendApiOrigins: current.frontendApiOrigins } }]);
        await this.outbox.replace(this.store.collection, current, { ...current, frontendApiOrigins }, events);
      } else {
        const events = buildEvents(audit, [{ type: 'setting-created', data }]);
        await this.outbox.insert(this.store.collection, { _id: FRONTEND_SETTING, frontendApiOrigins }, events);
      }
    });
  }
}
