import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { auditOf } from '../shared.js';
import { ADMIN_ERRORS, NoBody, errorResponses } from '../../schemas/common.js';
import { validationError } from '../../errors.js';
import {
  CreateFeatureBody, DependencyBody, FeatureCreatedResponse, StrategyEventResponse, DependencyParams, EnvironmentParams, FeatureListResponse, FeatureParams, FeatureResponse,
  PatchBody, ProjectParams, ReviveParams, StrategyBody, StrategyListResponse, StrategyParams, StrategyResponse,
  VariantsBatchBody, VariantsBody, VariantsResponse,
} from './schemas.js';
import type { FlagService } from './service.js';
import { strategyCreatedView, strategyEventView, strategyListView } from './views.js';

const FLAGS = ['Feature flags'];
const STRATEGIES = ['Strategies'];
const VARIANTS = ['Variants'];
const DEPENDENCIES = ['Dependencies'];
const BASE = '/api/admin/projects/:projectId/features';
const ENV = `${BASE}/:featureName/environments/:environment`;

const flagRoutes: FastifyPluginAsyncTypebox<{ service: FlagService }> = async (app, { service }) => {
  // ---- flags (E4, S3, S8; the codes: docs/glossary.md)
  app.post(BASE, {
    config: { permission: 'CREATE_FEATURE' },
    schema: {
      tags: FLAGS, summary: 'Create a feature flag in a project', params: ProjectParams, body: CreateFeatureBody,
      response: { 201: FeatureCreatedResponse, ...errorResponses(...ADMIN_ERRORS, 404, 409) },
    },
  }, async (request, reply) => {
    const flag = await service.create(request.params.projectId, request.body, auditOf(request));
    return reply.code(201).send(flag);
  });

  app.get(BASE, {
    schema: {
      tags: FLAGS, summary: 'List the flags of a project', params: ProjectParams,
      response: { 200: FeatureListResponse, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request) => ({ version: 2, features: await service.list(request.params.projectId) }));

  app.get(`${BASE}/:featureName`, {
    schema: {
      tags: FLAGS, summary: 'Get a feature flag with its environments and strategies', params: FeatureParams,
      response: { 200: FeatureResponse, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request) => await service.get(request.params.projectId, request.params.featureName));

  app.delete(`${BASE}/:featureName`, {
    config: { permission: 'DELETE_FEATURE' },
    schema: {
      tags: FLAGS, summary: 'Archive a feature flag', params: FeatureParams,
      response: { 202: NoBody, ...errorResponses(400, 401, 403, 404, 503) },
    },
  }, async (request, reply) => {
    await service.archive(request.params.projectId, request.params.featureName, auditOf(request));
    return reply.code(202).send(undefined);
  });

  app.post('/api/admin/archive/revive/:featureName', {
    config: { permission: 'UPDATE_FEATURE' },
    schema: {
      tags: FLAGS, summary: 'Revive an archived feature flag (all its environments off)', params: ReviveParams,
      response: { 200: NoBody, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request, reply) => {
    await service.revive(request.params.featureName, auditOf(request));
    return reply.code(200).send(undefined);
  });

  // ---- strategies (S4)
  app.post(`${ENV}/strategies`, {
    config: { permission: 'CREATE_FEATURE_STRATEGY' },
    schema: {
      tags: STRATEGIES, summary: 'Add a strategy to a flag environment', params: EnvironmentParams, body: StrategyBody,
      response: { 200: StrategyResponse, ...errorResponses(...ADMIN_ERRORS, 404) },
    },
  }, async (request) => {
    const { projectId, featureName, environment } = request.params;
    const strategy = await service.addStrategy(projectId, featureName, environment, request.body, auditOf(request));
    return strategyCreatedView(strategy);
  });

  app.get(`${ENV}/strategies`, {
    schema: {
      tags: STRATEGIES, summary: 'List the strategies of a flag environment', params: EnvironmentParams,
      response: { 200: StrategyListResponse, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request) => {
    const { projectId, featureName, environment } = request.params;
    return (await service.listStrategies(projectId, featureName, environment)).map(strategyListView);
  });

  app.get(`${ENV}/strategies/:strategyId`, {
    schema: {
      tags: STRATEGIES, summary: 'Get one strategy', params: StrategyParams,
      response: { 200: StrategyResponse, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request) => {
    const { projectId, featureName, environment, strategyId } = request.params;
    return strategyCreatedView(await service.getStrategy(projectId, featureName, environment, strategyId));
  });

  app.put(`${ENV}/strategies/:strategyId`, {
    config: { permission: 'UPDATE_FEATURE_STRATEGY' },
    schema: {
      tags: STRATEGIES, summary: 'Replace a strategy', params: StrategyParams, body: StrategyBody,
      response: { 200: StrategyEventResponse, ...errorResponses(...ADMIN_ERRORS, 404) },
    },
  }, async (request) => {
    const { projectId, featureName, environment, strategyId } = request.params;
    const strategy = await service.updateStrategy(projectId, featureName, environment, strategyId, request.body, auditOf(request));
    return strategyEventView(strategy);
  });

  app.delete(`${ENV}/strategies/:strategyId`, {
    config: { permission: 'DELETE_FEATURE_STRATEGY' },
    schema: {
      tags: STRATEGIES, summary: 'Remove a strategy (the environment goes off when no active strategy remains)', params: StrategyParams,
      response: { 200: NoBody, ...errorResponses(400, 401, 403, 404, 503) },
    },
  }, async (request, reply) => {
    const { projectId, featureName, environment, strategyId } = request.params;
    await service.deleteStrategy(projectId, featureName, environment, strategyId, auditOf(request));
    return reply.code(200).send(undefined);
  });

  // ---- enable / disable (S5)
  for (const [suffix, enabled] of [['on', true], ['off', false]] as const) {
    app.post(`${ENV}/${suffix}`, {
      config: { permission: 'UPDATE_FEATURE_ENVIRONMENT' },
      schema: {
        tags: FLAGS, summary: enabled ? 'Turn a flag on in an environment' : 'Turn a flag off in an environment', params: EnvironmentParams,
        response: { 200: NoBody, ...errorResponses(...ADMIN_ERRORS, 404) },
      },
    }, async (request, reply) => {
      const { projectId, featureName, environment } = request.params;
      await service.setEnabled(projectId, featureName, environment, enabled, auditOf(request));
      return reply.code(200).send(undefined);
    });
  }

  // ---- environment variants (S6)
  app.get(`${ENV}/variants`, {
    schema: {
      tags: VARIANTS, summary: 'Get the variants of a flag environment', params: EnvironmentParams,
      response: { 200: VariantsResponse, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request) => {
    const { projectId, featureName, environment } = request.params;
    return { version: 1, variants: await service.getVariants(projectId, featureName, environment) };
  });

  app.put(`${ENV}/variants`, {
    config: { permission: 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS' },
    schema: {
      tags: VARIANTS, summary: 'Replace the variants of a flag environment', params: EnvironmentParams, body: VariantsBody,
      response: { 200: VariantsResponse, ...errorResponses(...ADMIN_ERRORS, 404) },
    },
  }, async (request) => {
    const { projectId, featureName, environment } = request.params;
    return { version: 1, variants: await service.setVariants(projectId, featureName, environment, request.body, auditOf(request)) };
  });

  app.patch(`${ENV}/variants`, {
    config: { permission: 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS' },
    schema: {
      tags: VARIANTS, summary: 'Change the variants of a flag environment with a JSON Patch (RFC 6902)', params: EnvironmentParams, body: PatchBody,
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
      tags: VARIANTS, summary: 'Set the same variants on several environments', params: FeatureParams, body: VariantsBatchBody,
      response: { 200: VariantsResponse, ...errorResponses(...ADMIN_ERRORS, 404) },
    },
  }, async (request) => {
    const { projectId, featureName } = request.params;
    const { variants, environments } = request.body;
    if (environments.length === 0) throw validationError('No environments provided');
    return { version: 1, variants: await service.setVariantsOnEnvironments(projectId, featureName, environments, variants, auditOf(request)) };
  });

  // ---- dependencies (S7)
  app.post(`${BASE}/:featureName/dependencies`, {
    config: { permission: 'UPDATE_FEATURE_DEPENDENCY' },
    schema: {
      tags: DEPENDENCIES, summary: 'Make a flag depend on a parent flag', params: FeatureParams, body: DependencyBody,
      response: { 200: NoBody, ...errorResponses(...ADMIN_ERRORS, 404) },
    },
  }, async (request, reply) => {
    const { projectId, featureName } = request.params;
    await service.addDependency(projectId, featureName, request.body, auditOf(request));
    return reply.code(200).send(undefined);
  });

  app.delete(`${BASE}/:featureName/dependencies/:parent`, {
    config: { permission: 'UPDATE_FEATURE_DEPENDENCY' },
    schema: {
      tags: DEPENDENCIES, summary: 'Remove the dependency on one parent', params: DependencyParams,
      response: { 200: NoBody, ...errorResponses(400, 401, 403, 404, 503) },
    },
  }, async (request, reply) => {
    const { projectId, featureName, parent } = request.params;
    await service.removeDependency(projectId, featureName, parent, auditOf(request));
    return reply.code(200).send(undefined);
  });

  app.delete(`${BASE}/:featureName/dependencies`, {
    config: { permission: 'UPDATE_FEATURE_DEPENDENCY' },
    schema: {
      tags: DEPENDENCIES, summary: 'Remove every dependency of a flag', params: FeatureParams,
      response: { 200: NoBody, ...errorResponses(400, 401, 403, 404, 503) },
    },
  }, async (request, reply) => {
    const { projectId, featureName } = request.params;
    await service.removeDependencies(projectId, featureName, auditOf(request));
    return reply.code(200).send(undefined);
  });

  app.get('/api/admin/projects/:projectId/dependencies', {
    schema: {
      tags: DEPENDENCIES, summary: 'Whether any flag of the project has a dependency', params: ProjectParams,
      response: { 200: Type.Boolean(), ...errorResponses(401, 403, 503) },
    },
  }, async (request) => await service.projectHasDependencies(request.params.projectId));
};

export default flagRoutes;
