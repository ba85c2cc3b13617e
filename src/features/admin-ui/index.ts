import type { FastifyInstance } from 'fastify';
import { ensureUiBuild } from './package.js';
import adminUiRoutes, { fallbackStatus, uiPage } from './routes.js';

/**
 * Serves the official UI of `version` (UNLEASH_UI) at `/` when its build can be had; says in one
 * log line why not otherwise (Vane's own pages then answer at `/`). Returns whether it is served.
 */
export async function registerAdminUi(app: FastifyInstance, version: string): Promise<boolean> {
  if (version === 'off') return false;
  let buildDir: string;
  try {
    buildDir = await ensureUiBuild(version, app.log);
  } catch (err) {
    app.log.warn({ version, reason: (err as Error).message }, 'the official Unleash UI is not served (set UNLEASH_UI=off to silence this): Vane\'s own pages answer at /vane/');
    return false;
  }
  const page = uiPage(buildDir);
  await app.register(adminUiRoutes, { buildDir, page });
  app.pageFallback = (path, reply) => page(reply, fallbackStatus(path));
  return true;
}
