/** A flag environment's variants (S6), one environment or several at once. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { auditOf } from '../../shared.js';
import { ADMIN_ERRORS, errorResponses } from '../../../schemas/common.js';
import { validationError } from '../../../errors.js';
import { EnvironmentParams, FeatureParams, PatchBody, VariantsBatchBody, VariantsBody, VariantsResponse } from '../schemas.js';
import type { FlagService } from '../service.js';
import { BASE, ENV } from './paths.js';

const TAGS = ['Variants'];

const variantRoutes: FastifyPluginAsyncTypebox<{ service: FlagService }> = async (app, { service }) => {
  app.get(`${ENV}/variants`, {
    schema: {
      tags: TAGS, summary: 'Get the variants of a flag environment', params: EnvironmentParams,
      response: { 200: VariantsResponse, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request) => {
    const { projectId, featureName, environment } = request.params;
    return { version: 1, variants: await service.getVariants(projectId, featureName, environment) };
  });

  app.put(`${ENV}/variants`, {
    config: { permission: 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS' },
    schema: {
      tags: TAGS, summary: 'Replace the variants of a flag environment', params: EnvironmentParams, body: VariantsBody,
      response: { 200: VariantsResponse, ...errorResponses(...ADMIN_ERRORS, 404) },
    },
  }, async (request) => {
    const { projectId, featureName, environment } = request.params;
    return { version: 1, variants: await service.setVariants(projectId, featureName, environment, request.body, auditOf(request)) };
  });

  app.patch(`${ENV}/variants`, {
    config: { permission: 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS' },
    schema: {
      tags: TAGS, summary: 'Change the variants of a flag environment with a JSON Patch (RFC 6902)', params: EnvironmentParams, body: PatchBody,
      response: { 200: VariantsResponse, ...errorResponses(...ADMIN_ERRORS, 404) },
    },
  }, async (request) => {
    const { projectId, featureName, environment } = request.params;
    const patch = request.body;
    return { version: 1, variants: await service.patchVariants(projectId, featureName, environment, patch, auditOf(request)) };
  });

  app.put(`${BASE}/:featureName/variants-batch`, {
    config: { permission: 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS' },
    schema: {
      tags: TAGS, summary: 'Set the same variants on several environments', params: FeatureParams, body: VariantsBatchBody,
      response: { 200: VariantsResponse, ...errorResponses(...ADMIN_ERRORS, 404) },
    },
  }, async (request) => {
    const { projectId, featureName } = request.params;
    const { variants, environments } = request.body;
    if (environments.length === 0) throw validationError('No environments provided');
    return { version: 1, variants: await service.setVariantsOnEnvironments(projectId, featureName, environments, variants, auditOf(request)) };
  });
};

export default variantRoutes;
