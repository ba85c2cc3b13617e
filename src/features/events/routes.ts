import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../schemas/common.js';
import { EventSearchQuerySchema, EventSearchResponse } from './schemas.js';
import type { EventSearchService } from './service.js';

const eventRoutes: FastifyPluginAsyncTypebox<{ service: EventSearchService }> = async (app, { service }) => {
  app.get('/api/admin/search/events', {
    schema: {
      tags: ['Events'],
      summary: 'Search the event log, newest first, with filters and paging',
      querystring: EventSearchQuerySchema,
      response: { 200: EventSearchResponse, ...errorResponses(400, 401, 403, 503) },
    },
  }, async (request) => {
    // Only root admins see events outside projects; admin tokens are root admins.
    const allProjects = request.principal?.kind === 'admin-token';
    return (await service.search(request.query, { allProjects })) as never;
  });
};

export default eventRoutes;
