/** Flags (E4, S3, S8): create, list and read. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { auditOf } from '../../shared.js';
import { ADMIN_ERRORS, errorResponses } from '../../../schemas/common.js';
import { CreateFeatureBody, FeatureCreatedResponse, FeatureListResponse, FeatureParams, FeatureResponse, ProjectParams } from '../schemas.js';
import type { FlagService } from '../service.js';
import { BASE } from './paths.js';

const TAGS = ['Feature flags'];

const flagRoutes: FastifyPluginAsyncTypebox<{ service: FlagService }> = async (app, { service }) => {
  app.post(BASE, {
    config: { permission: 'CREATE_FEATURE' },
    schema: {
      tags: TAGS, summary: 'Create a feature flag in a project', params: ProjectParams, body: CreateFeatureBody,
      response: { 201: FeatureCreatedResponse, ...errorResponses(...ADMIN_ERRORS, 404, 409) },
    },
  }, async (request, reply) => {
    const flag = await service.create(request.params.projectId, request.body, auditOf(request));
    return reply.code(201).send(flag);
  });

  app.get(BASE, {
    schema: {
      tags: TAGS, summary: 'List the flags of a project', params: ProjectParams,
      response: { 200: FeatureListResponse, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request) => ({ version: 2, features: await service.list(request.params.projectId) }));

  app.get(`${BASE}/:featureName`, {
    schema: {
      tags: TAGS, summary: 'Get a feature flag with its environments and strategies', params: FeatureParams,
      response: { 200: FeatureResponse, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request) => await service.get(request.params.projectId, request.params.featureName));
};

export default flagRoutes;
