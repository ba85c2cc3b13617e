import { buildEvents, retrying, type AuditUser, type Outbox } from '../../db/outbox/index.js';
import { MAINTENANCE_SETTING, type MaintenanceStore } from './store.js';

/** The methods maintenance mode refuses: Unleash's middleware lets PATCH through (measured: a flag PATCH answered 404, not 503). */
const WRITE_METHODS = new Set(['POST', 'PUT', 'DELETE']);
const ADMIN_PREFIX = '/api/admin';

/**
 * Maintenance mode (docs/rules.md §1.4 "Maintenance mode", D19): while on, the admin API refuses
 * writes; SDKs, sign-in and Edge keep working. The setting is a commit like any configuration write, so every instance and a
 * restart see it; the check on the write path is a map read of the configuration state.
 */
export class MaintenanceService {
  constructor(
    private readonly store: MaintenanceStore,
    private readonly outbox: Outbox,
  ) {}

  get enabled(): boolean {
    return this.store.get()?.enabled === true;
  }

  /** What GET answers: the body last stored, as JSON text, or Unleash's default. */
  settingJson(): string {
    return this.store.get()?.content ?? '{"enabled":false}';
  }

  /**
   * Whether maintenance mode refuses this request: a POST, PUT or DELETE under /api/admin whose
   * path (after /api/admin, without the query) does not contain `/maintenance`. Unleash tests that
   * substring, so a flag, project or segment path with a segment starting `maintenance` is let
   * through too (measured: POST …/features/maintenance-flag/environments/development/on answered 200).
   */
  refuses(method: string, url: string): boolean {
    if (!WRITE_METHODS.has(method) || !url.startsWith(ADMIN_PREFIX) || !this.enabled) return false;
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    return !path.includes('/maintenance', ADMIN_PREFIX.length);
  }

  /**
   * Stores the body as sent (after the schema's coercion): Unleash keeps unknown keys and answers
   * them back. `setting-created` the first time, then `setting-updated` with the previous body as
   * preData, also when nothing changes (measured).
   */
  async toggle(body: { enabled: boolean } & Record<string, unknown>, audit: AuditUser): Promise<void> {
    const content = JSON.stringify(body);
    const data = { id: MAINTENANCE_SETTING, ...body };
    await retrying(async () => {
      const current = this.store.get();
      const next = { _id: MAINTENANCE_SETTING, enabled: body.enabled, content };
      if (current) {
        const preData = JSON.parse(current.content) as Record<string, unknown>;
        const events = buildEvents(audit, [{ type: 'setting-updated', data, preData }]);
        await this.outbox.replace(this.store.collection, current, { ...current, ...next }, events);
      } else {
        await this.outbox.insert(this.store.collection, next, buildEvents(audit, [{ type: 'setting-created', data }]));
      }
    });
  }
}
