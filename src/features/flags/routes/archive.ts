/** Archiving a flag and reviving it. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { auditOf } from '../../shared.js';
import { NoBody, errorResponses } from '../../../schemas/common.js';
import { FeatureParams, ReviveParams } from '../schemas.js';
import type { FlagService } from '../service.js';
import { BASE } from './paths.js';

const TAGS = ['Feature flags'];

const archiveRoutes: FastifyPluginAsyncTypebox<{ service: FlagService }> = async (app, { service }) => {
  app.delete(`${BASE}/:featureName`, {
    config: { permission: 'DELETE_FEATURE' },
    schema: {
      tags: TAGS, summary: 'Archive a feature flag', params: FeatureParams,
      response: { 202: NoBody, ...errorResponses(400, 401, 403, 404, 503) },
    },
  }, async (request, reply) => {
    await service.archive(request.params.projectId, request.params.featureName, auditOf(request));
    return reply.code(202).send(undefined);
  });

  app.post('/api/admin/archive/revive/:featureName', {
    config: { permission: 'UPDATE_FEATURE' },
    schema: {
      tags: TAGS, summary: 'Revive an archived feature flag (all its environments off)', params: ReviveParams,
      response: { 200: NoBody, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request, reply) => {
    await service.revive(request.params.featureName, auditOf(request));
    return reply.code(200).send(undefined);
  });
};

export default archiveRoutes;
