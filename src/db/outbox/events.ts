import { randomUUID } from 'node:crypto';
import { jsonbOrder } from '../../json.js';

/**
 * What an event is before it reaches the log: the inputs a service builds and the pending event a
 * document carries in its `_outbox`. Pure functions only; writing them is the change writer's job
 * (index.ts), storing them the event log's (src/db/event-log/).
 */

export interface AuditUser {
  name: string;
  id: number | null;
}

export interface EventTag {
  value: string;
  type: string;
  /** The tag type's colour: Unleash writes it in `feature-untagged` events' tags. */
  color?: string | null;
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
    // Unleash's pre_data column is jsonb: its keys come back by length, then bytewise (measured on
    // every event type; data is json and keeps the order it was written in). An update whose data
    // equals it, key order aside, records nothing.
    const preData = jsonbOrder(input.preData ?? null);
    if (data !== null && preData !== null && jsonEqual(jsonbOrder(data), preData)) continue;
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
