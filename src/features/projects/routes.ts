import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { auditOf } from '../shared.js';
import { ADMIN_ERRORS, errorResponses } from '../../schemas/common.js';
import { CreateProjectBody, ProjectListResponse, ProjectResponse } from './schemas.js';
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
  }, async () => ({ version: 1, projects: await service.list() }));

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
};

export default projectRoutes;
