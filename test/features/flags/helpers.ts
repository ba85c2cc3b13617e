import type { FastifyInstance } from 'fastify';
import { eventsAfter, JSON_ADMIN } from '../../helpers/app.js';

export { lastEventId, send } from '../../helpers/app.js';

export const BASE = '/api/admin/projects/default/features';

export async function createFlag(app: FastifyInstance, body: Record<string, unknown>, project = 'default') {
  return await app.inject({ method: 'POST', url: `/api/admin/projects/${project}/features`, headers: JSON_ADMIN, payload: body });
}

/** Events after id 5 (the fresh-instance ones), in id order. */
export async function eventsSince(app: FastifyInstance, afterId = 5) {
  return await eventsAfter(app, afterId);
}
