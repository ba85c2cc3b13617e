import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { auditOf, personIdOf } from '../shared.js';
import { ADMIN_ERRORS, errorResponses, NoBody } from '../../schemas/common.js';
import { validationError } from '../../errors.js';
import { StrategyBody } from '../flags/schemas.js';
import { CreateProjectBody, DefaultStrategyResponse, ProjectEnvironmentBody, ProjectListResponse, ProjectResponse } from './schemas.js';
import type { ProjectService } from './service.js';

const TAGS = ['Projects'];

const projectRoutes: FastifyPluginAsyncTypebox<{ service: ProjectService }> = async (app, { service }) => {
  app.get('/api/admin/projects', {
    schema: {
      tags: TAGS, summary: 'List projects',
      // Archived projects are Enterprise: Unleash OSS checks the parameter and lists the same (measured).
      querystring: Type.Object({ archived: Type.Optional(Type.Boolean()) }),
      response: { 200: ProjectListResponse, ...errorResponses(400, 401, 403, 503) },
    },
  }, async (request) => ({ version: 1, projects: await service.list(personIdOf(request)) }));

  app.post('/api/admin/projects', {
    config: { permission: 'CREATE_PROJECT' },
    schema: {
      tags: TAGS, summary: 'Create a project connected to every environment', body: CreateProjectBody,
      response: { 201: ProjectResponse, ...errorResponses(...ADMIN_ERRORS, 409) },
    },
  }, async (request, reply) => {
    const project = await service.create(request.body, auditOf(request));
    return reply.code(201).send(project);
  });

  const ProjectParams = Type.Object({ projectId: Type.String() });
  const EnvironmentParams = Type.Object({ projectId: Type.String(), environment: Type.String() });

  app.post('/api/admin/projects/:projectId/environments', {
    config: { permission: 'UPDATE_PROJECT' },
    schema: {
      tags: TAGS, summary: 'Connect an environment to the project', params: ProjectParams, body: ProjectEnvironmentBody,
      response: { 200: NoBody, ...errorResponses(...ADMIN_ERRORS, 404, 409) },
    },
  }, async (request, reply) => {
    await service.connectEnvironment(request.params.projectId, request.body.environment, auditOf(request));
    return reply.send(undefined);
  });

  app.delete('/api/admin/projects/:projectId/environments/:environment', {
    config: { permission: 'UPDATE_PROJECT' },
    schema: {
      tags: TAGS, summary: 'Disconnect an environment: its flags there go off and lose their variants, strategies stay',
      params: EnvironmentParams, response: { 200: NoBody, ...errorResponses(401, 403, 503) },
    },
  }, async (request, reply) => {
    await service.disconnectEnvironment(request.params.projectId, request.params.environment, auditOf(request));
    return reply.send(undefined);
  });

  app.post('/api/admin/projects/:projectId/environments/:environment/default-strategy', {
    config: { permission: 'UPDATE_PROJECT' },
    schema: {
      tags: TAGS, summary: 'Set the strategy turning a flag on adds in this environment (flexibleRollout only)',
      params: EnvironmentParams, body: StrategyBody,
      response: { 200: DefaultStrategyResponse, ...errorResponses(...ADMIN_ERRORS, 404) },
    },
  }, async (request) => {
    if (request.body.name !== 'flexibleRollout') {
      throw validationError('Only "flexibleRollout" strategy can be used as a default strategy for an environment');
    }
    return await service.setDefaultStrategy(request.params.projectId, request.params.environment, request.body, auditOf(request));
  });
};

export default projectRoutes;
