/**
 * The feature search (the flags page of the admin UI), lifecycle counts and flag creators. Any
 * signed-in user or admin token may read them (Unleash: permission NONE); SDK tokens get 403.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, preSerialized } from '../../schemas/common.js';
import { personIdOf } from '../shared.js';
import {
  FeatureSearchQuery, FeatureSearchResponse, FlagCreatorsQuery, FlagCreatorsResponse, LifecycleCountResponse, ProjectFlagCreatorsResponse,
  ProjectParams,
} from './schemas.js';
import type { FeatureSearchService } from './service.js';

const featureSearchRoutes: FastifyPluginAsyncTypebox<{ service: FeatureSearchService }> = async (app, { service }) => {
  app.get('/api/admin/search/features', {
    schema: {
      tags: ['Search'],
      summary: 'Search and filter feature flags, with their environments, segments, creator and lifecycle stage',
      querystring: FeatureSearchQuery,
      response: { 200: preSerialized(FeatureSearchResponse), ...errorResponses(400, 401, 403, 503) },
    },
  }, async (request, reply) => {
    const body = await service.searchBody(request.query, personIdOf(request));
    return await reply.type('application/json; charset=utf-8').send(body);
  });

  app.get('/api/admin/lifecycle/count', {
    schema: {
      tags: ['Features'],
      summary: 'Count the feature flags in each lifecycle stage',
      response: { 200: LifecycleCountResponse, ...errorResponses(401, 403, 503) },
    },
  }, async () => await service.lifecycleCount());

  app.get('/api/admin/flag-creators', {
    schema: {
      tags: ['Users'],
      summary: 'List the users who created the non-archived flags, by name',
      querystring: FlagCreatorsQuery,
      response: { 200: FlagCreatorsResponse, ...errorResponses(400, 401, 403, 503) },
    },
  }, async (request) => await service.flagCreators(request.query));

  app.get('/api/admin/projects/:projectId/flag-creators', {
    schema: {
      tags: ['Projects'],
      summary: 'List the users who created the non-archived flags of a project',
      params: ProjectParams,
      response: { 200: ProjectFlagCreatorsResponse, ...errorResponses(401, 403, 503) },
    },
  }, async (request) => await service.projectFlagCreators(request.params.projectId));
};

export default featureSearchRoutes;
