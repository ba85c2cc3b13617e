import type { FastifyInstance } from 'fastify';
import { send, committed } from '../../helpers/app.js';

export { eventsAfter, lastEventId, send } from '../../helpers/app.js';

export const FEATURES = '/api/admin/projects/default/features';

/** Sends and fails loudly unless the status is the expected one; returns the parsed body. */
export async function ok(app: FastifyInstance, method: string, url: string, payload?: unknown, status = 200): Promise<any> {
  const res = await send(app, method, url, payload);
  if (res.statusCode !== status) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.body ? res.json() : undefined;
}

export async function createFlag(app: FastifyInstance, name: string, project = 'default'): Promise<void> {
  await ok(app, 'POST', `/api/admin/projects/${project}/features`, { name }, 201);
}

export async function addStrategy(app: FastifyInstance, flag: string, body: Record<string, unknown>, env = 'development'): Promise<string> {
  return (await ok(app, 'POST', `${FEATURES}/${flag}/environments/${env}/strategies`, body)).id as string;
}

export async function turnOn(app: FastifyInstance, flag: string, env = 'development'): Promise<void> {
  await ok(app, 'POST', `${FEATURES}/${flag}/environments/${env}/on`);
}

export async function createSegment(app: FastifyInstance, body: Record<string, unknown>): Promise<number> {
  return (await ok(app, 'POST', '/api/admin/segments', body, 201)).id as number;
}

export function changesUrl(project = 'default', env = 'development'): string {
  return `/api/admin/projects/${project}/environments/${env}/change-requests`;
}

export async function addChanges(app: FastifyInstance, changes: unknown, project = 'default', env = 'development') {
  return await send(app, 'POST', changesUrl(project, env), changes);
}

export async function setState(app: FastifyInstance, id: number, state: string, project = 'default') {
  return await send(app, 'PUT', `/api/admin/projects/${project}/change-requests/${id}/state`, { state });
}

export async function preview(app: FastifyInstance, id: number | string, context: Record<string, unknown>) {
  return await send(app, 'POST', `/api/admin/playground/change-request/${id}`, { context });
}

export async function advanced(app: FastifyInstance, env: string, project: string, context: Record<string, unknown>) {
  return await send(app, 'POST', '/api/admin/playground/advanced', { environments: [env], projects: [project], context });
}

export async function eventCount(app: FastifyInstance): Promise<number> {
  await app.database.outbox.flushed(); // events are appended after the response
  return await app.database.db.collection('events').countDocuments({});
}

/** Every flag, segment and change request as committed (bookkeeping included): to prove nothing was written. */
export async function storedState(app: FastifyInstance): Promise<string> {
  const sorted = async (coll: string) => [...(await committed(app, coll)).values()].sort((a, b) => (String(a._id) < String(b._id) ? -1 : 1));
  return JSON.stringify({ flags: await sorted('flags'), segments: await sorted('segments'), crs: await sorted('change_requests') });
}

export async function strategyIds(app: FastifyInstance): Promise<Set<string>> {
  const flags = [...(await committed(app, 'flags')).values()];
  return new Set(flags.flatMap((f) => (f.strategyIds as string[] | undefined) ?? []));
}

/**
 * Playground text with generated strategy ids replaced: a strategy unknown before (added by the
 * preview or by the apply, whose ids differ) becomes `new:{flag}:{title or name}` everywhere
 * (its result entry and its edit link).
 */
export function withStableIds(body: string, known: Set<string>): string {
  type Strategies = { strategies: { data: Array<{ id: string; title?: string; name: string }> } };
  const parsed = JSON.parse(body) as { features: Array<{ name: string; environments: Record<string, Strategies[]> }> };
  const names = new Map<string, string>();
  for (const feature of parsed.features) {
    for (const results of Object.values(feature.environments)) {
      for (const result of results) {
        for (const s of result.strategies.data) {
          if (!known.has(s.id)) names.set(s.id, `new:${feature.name}:${s.title ?? s.name}`);
        }
      }
    }
  }
  let text = body;
  for (const [id, name] of names) text = text.split(id).join(name);
  return text;
}
