/**
 * Maintenance mode's state, as the official UI's admin page asks for it. Vane has no maintenance
 * mode (the UI configuration says `maintenanceMode: false` too), so it is always off.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../schemas/common.js';

const MaintenanceSchema = Type.Object({
  enabled: Type.Boolean({ description: 'Whether maintenance mode is on; never on Vane' }),
}, { additionalProperties: false });

const maintenanceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/api/admin/maintenance', {
    // Unleash 8.2 answers Viewers and Editors 403 here (measured): the state is an Admin's.
    config: { permission: 'UPDATE_MAINTENANCE_MODE' },
    schema: {
      tags: ['Maintenance'], summary: 'Whether maintenance mode is on (never on Vane)',
      response: { 200: MaintenanceSchema, ...errorResponses(401, 403, 503) },
    },
  }, async () => ({ enabled: false }));
};

export default maintenanceRoutes;
