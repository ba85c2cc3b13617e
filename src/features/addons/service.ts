import { buildEvents, retrying, type AuditUser } from '../../db/outbox/index.js';
import { notFound, schemaValidationError, unnamedValidationError, validationError } from '../../errors.js';
import { isUrlFriendly } from '../shared.js';
import type { DeliveryLog } from './log.js';
import type { AddonSources } from './sources.js';
import { PROVIDERS } from './providers.js';
import type { AddonInput, AddonView, CreatedAddonView, IntegrationEventView, ProviderDefinition } from './schemas.js';
import type { AddonDocument, AddonStore, ParameterValue } from './store.js';
import { AddonUrlError, checkUrl, type UrlPolicy } from './url.js';

/** What a sensitive parameter is shown as; sent back in an update, it keeps the stored value (docs/rules.md §11.1). */
export const MASKED = '*****';

const BY_NAME = new Map(PROVIDERS.map((provider) => [provider.name, provider]));

function sensitive(provider: string): Set<string> {
  return new Set((BY_NAME.get(provider)?.parameters ?? []).filter((p) => p.sensitive).map((p) => p.name));
}

/** The configuration as `addon-config-*` events carry it: no parameters (measured). */
function eventData(doc: AddonDocument, withCreatedAt: boolean) {
  const { _id: id, provider, enabled, description, events, projects, environments } = doc;
  return { id, provider, enabled, description, events, projects, environments, ...(withCreatedAt ? { createdAt: doc.createdAt.toISOString() } : {}) };
}

/** A configuration in Unleash's key order, with the parameters given (masked or not). */
function ordered(doc: AddonDocument, parameters: Record<string, ParameterValue>): AddonView {
  return {
    id: doc._id, provider: doc.provider, enabled: doc.enabled, description: doc.description, parameters,
    events: doc.events, projects: doc.projects, environments: doc.environments, createdAt: doc.createdAt.toISOString(),
  };
}

/** How Joi writes a value it refused in a message. */
function shown(value: unknown): string {
  return typeof value === 'string' ? `"${value}"` : JSON.stringify(value);
}

/** Listing: the delivery log's page bounds (Unleash's: 1–100, else 50; an offset not positive is 0). */
export function pageOf(limit: string | undefined, offset: string | undefined): { limit: number; offset: number } {
  const l = Number(limit ?? '50');
  const o = Number(offset ?? '0');
  return { limit: l > 0 && l <= 100 ? Math.floor(l) : 50, offset: o > 0 ? Math.floor(o) : 0 };
}

export class AddonService {
  constructor(
    private readonly store: AddonStore,
    private readonly deliveries: DeliveryLog,
    private readonly sources: AddonSources,
    private readonly policy: UrlPolicy,
    private readonly log: { warn(obj: object, message: string): void },
  ) {}

  providers(): readonly ProviderDefinition[] {
    return PROVIDERS;
  }

  /** Every configuration with its sensitive parameters masked. */
  list(): AddonView[] {
    return this.store.list().map((doc) => ordered(doc, this.masked(doc)));
  }

  get(id: number): AddonView {
    const doc = this.store.get(id);
    if (!doc) throw notFound('Could not find addon');
    return ordered(doc, this.masked(doc));
  }

  private masked(doc: AddonDocument): Record<string, ParameterValue> {
    const hidden = sensitive(doc.provider);
    return Object.fromEntries(Object.entries(doc.parameters).map(([key, value]) => [key, hidden.has(key) ? MASKED : value]));
  }

  /** Unleash's checks in its order: the body's rules (Joi), the provider, its required parameters, then the URL. */
  private async check(input: AddonInput): Promise<Record<string, ParameterValue>> {
    if (input.provider === '') throw schemaValidationError([{ message: '"provider" is not allowed to be empty.' }]);
    if (!isUrlFriendly(input.provider)) throw schemaValidationError([{ message: `"provider" must be URL friendly. You provided ${shown(input.provider)}.` }]);
    for (const [key, value] of Object.entries(input.parameters)) {
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
        throw schemaValidationError([{ message: `"parameters.${key}" must be one of [string, number, boolean]. You provided ${shown(value)}.` }]);
      }
    }
    const parameters = input.parameters as Record<string, ParameterValue>;
    const provider = BY_NAME.get(input.provider);
    if (!provider) throw unnamedValidationError(`Unknown addon provider ${input.provider}`);
    const missing = provider.parameters.filter((p) => p.required && !(p.name in parameters)).map((p) => p.name);
    if (missing.length > 0) throw unnamedValidationError(`Missing required parameters: ${missing.join(',')} `);
    const url = parameters.url;
    if (url !== undefined && url !== '' && url !== MASKED) {
      try {
        await checkUrl(String(url), this.policy);
      } catch (err) {
        // Unleash answers 500 for a URL that does not parse (D10).
        if (err instanceof AddonUrlError) throw unnamedValidationError(err.message);
        throw err;
      }
    }
    return parameters;
  }

  async create(input: AddonInput, audit: AuditUser): Promise<CreatedAddonView> {
    const parameters = await this.check(input);
    const provider = BY_NAME.get(input.provider)!;
    if (provider.deprecated) throw validationError(provider.deprecated);
    // Recorded before the configuration's own event, as Unleash records them.
    for (const tagType of provider.tagTypes ?? []) await this.sources.ensureTagType(tagType);
    const createdAt = new Date();
    const doc = await retrying(() => this.store.insertNext((id) => ({
      _id: id,
      provider: input.provider,
      enabled: input.enabled,
      description: input.description === undefined ? null : input.description ?? '',
      parameters,
      events: input.events,
      projects: input.projects ?? [],
      environments: input.environments ?? [],
      createdAt,
      since: this.store.lastEventId,
    }), (created) => buildEvents(audit, [{ type: 'addon-config-created', data: eventData(created, false) }], { at: createdAt })));
    const { id, provider: name, enabled, description, events, projects, environments } = eventData(doc, false);
    return { id, provider: name, enabled, description, parameters, events, projects, environments };
  }

  /** A masked value keeps the stored one; an absent description is kept, null is stored as ''. */
  async update(id: number, input: AddonInput, audit: AuditUser): Promise<AddonView> {
    if (!this.store.get(id)) throw notFound('Could not find addon');
    const checked = await this.check(input);
    return await retrying(async () => {
      const current = this.store.get(id);
      if (!current) throw notFound('Could not find addon');
      const parameters = Object.fromEntries(Object.entries(checked).flatMap(([key, value]) => {
        const kept = value === MASKED ? current.parameters[key] : value;
        return kept === undefined ? [] : [[key, kept]];
      })) as Record<string, ParameterValue>;
      const next: AddonDocument = {
        ...current,
        provider: input.provider,
        enabled: input.enabled,
        description: input.description === undefined ? current.description : input.description ?? '',
        parameters,
        events: input.events,
        projects: input.projects ?? [],
        environments: input.environments ?? [],
        // Enabled again: the events of the time it was off are not delivered.
        since: !current.enabled && input.enabled ? this.store.lastEventId : current.since,
      };
      await this.store.replace(current, next, buildEvents(audit, [{
        type: 'addon-config-updated', data: eventData(next, true), preData: eventData(current, true),
      }]));
      return ordered(next, parameters);
    });
  }

  async remove(id: number, audit: AuditUser): Promise<void> {
    await retrying(async () => {
      const current = this.store.get(id);
      if (!current) throw notFound('Could not find addon');
      await this.store.remove(current, buildEvents(audit, [{ type: 'addon-config-deleted', preData: eventData(current, true) }]));
    });
    // Unleash's delivery entries go with their configuration (a foreign key's cascade); after the answer.
    this.deliveries.removeAddon(id).catch((err: unknown) => this.log.warn({ err, addon: id }, 'addon deleted: its delivery log was not'));
  }

  /** The delivery log of a configuration, newest first; empty for one that does not exist (as Unleash). */
  async deliveryLog(rawId: string, limit: string | undefined, offset: string | undefined): Promise<IntegrationEventView[]> {
    const id = Number(rawId);
    // Unleash checks only that the id is a number and answers 500 for 1.5 (D10).
    if (!Number.isInteger(id)) throw validationError('Invalid integration configuration id');
    if (!this.store.get(id)) return [];
    const page = pageOf(limit, offset);
    return await this.deliveries.page(id, page.limit, page.offset);
  }
}
