/** Maintenance mode: its state and its switch, an Admin's (docs/rules.md §1.4 "Maintenance mode"). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { bodyNeedsContentType } from '../../plugins/errors.js';
import { errorResponses, NoBody, preSerialized } from '../../schemas/common.js';
import { auditOf } from '../shared.js';
import type { MaintenanceService } from './service.js';

const MaintenanceSchema = Type.Object({
  enabled: Type.Boolean({ description: 'Whether maintenance mode is on' }),
}, { additionalProperties: true, description: 'The body last sent to the switch, unknown keys included (Unleash stores it whole)' });

const ToggleBody = Type.Object({
  enabled: Type.Boolean({ description: '`true` turns maintenance mode on: every POST, PUT and DELETE of the admin API is refused (503)' }),
}, { additionalProperties: true });

const maintenanceRoutes: FastifyPluginAsyncTypebox<{ service: MaintenanceService }> = async (app, { service }) => {
  app.get('/api/admin/maintenance', {
    // Unleash 8.2 answers Viewers and Editors 403 here (measured): the state is an Admin's.
    config: { permission: 'UPDATE_MAINTENANCE_MODE' },
    schema: {
      tags: ['Maintenance'], summary: 'Whether maintenance mode is on',
      response: { 200: preSerialized(MaintenanceSchema), ...errorResponses(401, 403, 503) },
    },
  }, async (_request, reply) => reply.type('application/json; charset=utf-8').send(service.settingJson()));

  app.post('/api/admin/maintenance', {
    config: { permission: 'UPDATE_MAINTENANCE_MODE' },
    preValidation: bodyNeedsContentType,
    schema: {
      tags: ['Maintenance'],
      summary: 'Turn maintenance mode on or off (a setting event each time, also when unchanged)',
      body: ToggleBody,
      response: { 204: NoBody, ...errorResponses(400, 401, 403, 415, 503) },
    },
  }, async (request, reply) => {
    await service.toggle(request.body, auditOf(request));
    return reply.code(204).send(undefined);
  });
};

export default maintenanceRoutes;
