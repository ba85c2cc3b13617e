import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../schemas/common.js';
import { InstanceStatsCsvSchema, InstanceStatsSchema } from './schemas.js';
import type { InstanceStatsService } from './service.js';

const TAGS = ['Instance Admin'];

/** Every signed-in role may read them (Unleash's permission NONE: Viewer and Editor 200, client and frontend tokens 403, measured). */
const instanceStatsRoutes: FastifyPluginAsyncTypebox<{ service: InstanceStatsService }> = async (app, { service }) => {
  app.get('/api/admin/instance-admin/statistics', {
    schema: {
      tags: TAGS, summary: 'Instance usage statistics: users, tokens, flags, projects, environments, segments, applications, production changes',
      response: { 200: InstanceStatsSchema, ...errorResponses(401, 403, 503) },
    },
  }, async () => await service.stats());

  app.get('/api/admin/instance-admin/statistics/csv', {
    schema: {
      tags: TAGS, summary: 'Instance usage statistics as a CSV attachment named unleash-<instanceId>-<epoch ms>.csv',
      response: { 200: InstanceStatsCsvSchema, ...errorResponses(401, 403, 503) },
    },
  }, async (_request, reply) => {
    const stats = await service.stats();
    return reply.type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="unleash-${stats.instanceId}-${Date.now()}.csv"`)
      .send(service.csv(stats));
  });
};

export default instanceStatsRoutes;
