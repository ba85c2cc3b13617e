import { randomUUID } from 'node:crypto';

/**
 * What an event is, from the request that causes it to the stored log entry: the inputs a service
 * builds, the pending event a document carries in its `_outbox`, and the `events` document.
 * Pure functions only; writing them is the change writer's job (src/db/outbox.ts).
 */

export interface AuditUser {
  name: string;
  id: number | null;
}

export interface EventTag {
  value: string;
  type: string;
}

export interface EventInput {
  type: string;
  featureName?: string | null;
  project?: string | null;
  environment?: string | null;
  data?: unknown;
  preData?: unknown;
  tags?: EventTag[];
}

/** An event as it waits in a document's `_outbox`. */
export interface PendingEvent {
  key: string;
  type: string;
  createdBy: string;
  createdByUserId: number | null;
  createdAt: Date;
  data: unknown;
  preData: unknown;
  tags: EventTag[];
  featureName: string | null;
  project: string | null;
  environment: string | null;
  groupType?: string;
  groupId?: string;
}

/** An event as stored in the `events` collection. */
export interface EventDocument extends Omit<PendingEvent, 'key'> {
  _id: string;
  id: number;
  /** Lower-cased JSON of data, preData and tags: what the free-text search matches. */
  searchText: string;
}

/** An event as the search returns it before presentation (no key, no search text), as JSON. */
export function storedEventJson(id: number, event: PendingEvent): string {
  const { key: _key, ...rest } = event;
  return JSON.stringify({ id, ...rest });
}

/** Deep equality for JSON-like values (used to drop no-op update events, docs/rules.md §4.4). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function buildEvents(
  audit: AuditUser,
  inputs: EventInput[],
  options: { transactional?: boolean; at?: Date } = {},
): PendingEvent[] {
  const createdAt = options.at ?? new Date();
  const groupId = options.transactional ? randomUUID() : undefined;
  const events: PendingEvent[] = [];
  for (const input of inputs) {
    const data = input.data ?? null;
    const preData = input.preData ?? null;
    if (data !== null && preData !== null && jsonEqual(data, preData)) continue;
    events.push({
      key: randomUUID(),
      type: input.type,
      createdBy: audit.name,
      createdByUserId: audit.id,
      createdAt,
      data,
      preData,
      tags: input.tags ?? [],
      featureName: input.featureName ?? null,
      project: input.project ?? null,
      environment: input.environment ?? null,
      ...(groupId ? { groupType: 'transaction', groupId } : {}),
    });
  }
  return events;
}

export function searchTextOf(event: Pick<PendingEvent, 'data' | 'preData' | 'tags'>): string {
  const parts: string[] = [];
  if (event.data !== null && event.data !== undefined) parts.push(JSON.stringify(event.data));
  if (event.tags && event.tags.length > 0) parts.push(JSON.stringify(event.tags));
  if (event.preData !== null && event.preData !== undefined) parts.push(JSON.stringify(event.preData));
  return parts.join('\u0000').toLowerCase();
}
