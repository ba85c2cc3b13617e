import type { FastifyInstance } from 'fastify';
import { JSON_ADMIN } from '../../helpers/app.js';

export const FEATURES = '/api/admin/projects/default/features';

export const impactUrl = (id: number | string) => `/api/admin/playground/change-request/${id}/impact`;

export async function post(app: FastifyInstance, url: string, payload?: unknown) {
  return await app.inject({ method: 'POST', url, headers: JSON_ADMIN, ...(payload === undefined ? {} : { payload: payload as never }) });
}

export async function createEnabledFlag(app: FastifyInstance, name: string, environment = 'development'): Promise<void> {
  const created = await post(app, FEATURES, { name });
  if (created.statusCode !== 201) throw new Error(`create ${name}: ${created.statusCode} ${created.body}`);
  const on = await post(app, `${FEATURES}/${name}/environments/${environment}/on`);
  if (on.statusCode !== 200) throw new Error(`enable ${name}: ${on.statusCode} ${on.body}`);
}

export async function playground(app: FastifyInstance, context: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return await post(app, '/api/admin/playground', { environment: 'development', context, ...extra });
}

export async function advanced(app: FastifyInstance, context: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return await post(app, '/api/admin/playground/advanced', { environments: ['development'], context, ...extra });
}
