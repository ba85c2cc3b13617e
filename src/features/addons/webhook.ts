/**
 * The webhook provider, as Unleash 8.2's renders and records it (measured, test/fixtures/addons/):
 * the body is the event's JSON, or the configured Mustache template over it (template.ts); the
 * headers are `Content-Type` (the `contentType` parameter, else application/json), `Authorization`
 * when set, then the `customHeaders` JSON's; each attempt is recorded with Unleash's states and
 * texts. Vane retries where Unleash gives up after one try (docs/rules.md §11.3).
 */
import { jsonbOrder } from '../../json.js';
import type { StoredEvent } from '../../db/event-log/index.js';
import type { DeliveryState } from './log.js';
import { post, type PostResult } from './send.js';
import type { AddonDocument, ParameterValue } from './store.js';
import { renderWebhookBody, TemplateError } from './template.js';
import { AddonUrlError, checkUrl, type UrlPolicy } from './url.js';

/** The event as Unleash hands it to an addon (its event store's row, in that key order). */
export function webhookEvent(event: StoredEvent): Record<string, unknown> {
  return {
    id: event.id,
    type: event.type,
    createdBy: event.createdBy,
    createdAt: new Date(event.createdAt).toISOString(),
    createdByUserId: event.createdByUserId,
    data: event.data,
    preData: event.preData,
    tags: event.tags,
    featureName: event.featureName,
    project: event.project,
    environment: event.environment,
    ...(event.groupType === undefined ? {} : { groupType: event.groupType }),
    ...(event.groupId === undefined ? {} : { groupId: event.groupId }),
  };
}

/** Whether a configuration takes an event: its type listed, and its project and environment (when it has them) among the filters. */
export function takes(addon: AddonDocument, event: Pick<StoredEvent, 'type' | 'project' | 'environment'>): boolean {
  const within = (filter: string[], value: string | null) => !value || filter.length === 0 || filter[0] === '*' || filter.includes(value);
  return addon.events.includes(event.type) && within(addon.projects, event.project) && within(addon.environments, event.environment);
}

export interface AttemptResult {
  state: DeliveryState;
  stateDetails: string;
  /** Whether trying again may succeed: no answer, a 5xx or a 429. */
  retry: boolean;
  /** `{url, contentType, body}` as Unleash records them, in jsonb order, as JSON. */
  details: string;
}

export interface AttemptOptions {
  timeoutMs: number;
  policy: UrlPolicy;
  /** The event's summary, Unleash's `eventMarkdown`. */
  markdown: string;
}

function text(value: ParameterValue | undefined): string | undefined {
  return value === undefined ? undefined : String(value);
}

/** One POST of `event` to the addon's URL. */
export async function attempt(addon: AddonDocument, stored: StoredEvent, options: AttemptOptions): Promise<AttemptResult> {
  const event = webhookEvent(stored);
  const url = text(addon.parameters.url) ?? '';
  const contentType = text(addon.parameters.contentType) || 'application/json';
  const template = text(addon.parameters.bodyTemplate);
  const notes: string[] = [];
  let state: DeliveryState = 'success';
  let body: string;
  let recordedBody: unknown;
  const finish = (outcome: Omit<AttemptResult, 'details'>): AttemptResult => ({
    ...outcome, details: JSON.stringify(jsonbOrder({ url, contentType, body: recordedBody })),
  });
  try {
    body = template ? renderWebhookBody(template, event, options.markdown) : JSON.stringify(event);
  } catch (err) {
    if (!(err instanceof TemplateError)) throw err;
    recordedBody = template;
    return finish({ state: 'failed', stateDetails: `Webhook request failed: the body template does not parse (${err.message}).`, retry: false });
  }
  recordedBody = template ? body : event;
  const headers: Record<string, string> = { 'content-type': contentType };
  const authorization = text(addon.parameters.authorization);
  if (authorization) headers.authorization = authorization;
  const custom = text(addon.parameters.customHeaders);
  if (custom && custom.length > 1) {
    try {
      for (const [name, value] of Object.entries(JSON.parse(custom) as Record<string, unknown>)) headers[name.toLowerCase()] = String(value);
    } catch {
      state = 'successWithErrors';
      notes.push('Could not parse the JSON in the customHeaders parameter.');
    }
  }
  let result: PostResult;
  try {
    result = await post(await checkUrl(url, options.policy), headers, body, options.timeoutMs);
  } catch (err) {
    if (!(err instanceof AddonUrlError)) throw err;
    return finish({ state: 'failed', stateDetails: [...notes, `Webhook request failed: ${err.message}.`].join('\n'), retry: false });
  }
  if ('error' in result) {
    return finish({ state: 'failed', stateDetails: [...notes, `Webhook request failed: ${result.error}.`].join('\n'), retry: true });
  }
  if (result.status >= 200 && result.status < 300) {
    notes.push(`Webhook request was successful with status code: ${result.status}.`);
    return finish({ state, stateDetails: notes.join('\n'), retry: false });
  }
  notes.push(`Webhook request failed with status code: ${result.status}.`);
  return finish({ state: 'failed', stateDetails: notes.join('\n'), retry: result.status >= 500 || result.status === 429 });
}
