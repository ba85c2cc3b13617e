/** A flag's dependencies on parent flags (S7). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { auditOf } from '../../shared.js';
import { ADMIN_ERRORS, NoBody, errorResponses } from '../../../schemas/common.js';
import { DependencyBody, DependencyParams, FeatureParams, ProjectParams } from '../schemas.js';
import { FlagEnvironmentService } from '../environment-service.js';
import type { FlagService } from '../service.js';
import { BASE } from './paths.js';

const TAGS = ['Dependencies'];

const dependencyRoutes: FastifyPluginAsyncTypebox<{ service: FlagService }> = async (app, { service }) => {
  app.post(`${BASE}/:featureName/dependencies`, {
    config: { permission: 'UPDATE_FEATURE_DEPENDENCY' },
    schema: {
      tags: TAGS, summary: 'Make a flag depend on a parent flag', params: FeatureParams, body: DependencyBody,
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
      tags: TAGS, summary: 'Remove the dependency on one parent', params: DependencyParams,
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
      tags: TAGS, summary: 'Remove every dependency of a flag', params: FeatureParams,
      response: { 200: NoBody, ...errorResponses(400, 401, 403, 404, 503) },
    },
  }, async (request, reply) => {
    const { projectId, featureName } = request.params;
    await service.removeDependencies(projectId, featureName, auditOf(request));
    return reply.code(200).send(undefined);
  });

  const edits = new FlagEnvironmentService(service);
  app.get(`${BASE}/:featureName/parents`, {
    schema: {
      tags: TAGS, summary: 'The flags this flag may depend on: the others of its project that are neither archived nor children, by name',
      description: 'The project is not checked and an unknown flag has none (as Unleash answers).',
      params: FeatureParams,
      response: { 200: Type.Array(Type.String()), ...errorResponses(401, 403, 503) },
    },
  }, async (request) => await edits.possibleParents(request.params.featureName));

  app.get(`${BASE}/:featureName/parent-variants`, {
    schema: {
      tags: TAGS, summary: 'The variant names a child may depend on: those of this flag in any environment, sorted',
      description: 'The project is not checked and an unknown flag has none (as Unleash answers).',
      params: FeatureParams,
      response: { 200: Type.Array(Type.String()), ...errorResponses(401, 403, 503) },
    },
  }, async (request) => await service.variantNames(request.params.featureName));

  app.get('/api/admin/projects/:projectId/dependencies', {
    schema: {
      tags: TAGS, summary: 'Whether any flag of the project has a dependency', params: ProjectParams,
      response: { 200: Type.Boolean(), ...errorResponses(401, 403, 503) },
    },
  }, async (request) => await service.projectHasDependencies(request.params.projectId));
};

export default dependencyRoutes;
