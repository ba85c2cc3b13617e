import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { auditOf } from '../shared.js';
import { ADMIN_ERRORS, NoBody, errorResponses } from '../../schemas/common.js';
import { Type } from 'typebox';
import { CreateEnvironmentBody, EnvironmentListSchema, EnvironmentNameParams, EnvironmentSchema, ProjectEnvironmentListSchema } from './schemas.js';
import type { EnvironmentService } from './service.js';

const TAGS = ['Environments'];

const environmentRoutes: FastifyPluginAsyncTypebox<{ service: EnvironmentService }> = async (app, { service }) => {
  app.get('/api/admin/environments', {
    schema: {
      tags: TAGS, summary: 'List environments (sortOrder, then creation)',
      response: { 200: EnvironmentListSchema, ...errorResponses(401, 403, 503) },
    },
  }, async () => ({ version: 1, environments: await service.list() }));

  app.get('/api/admin/environments/project/:projectId', {
    schema: {
      tags: TAGS, summary: 'Every environment as one project sees it: connected or not, its tokens and flags on',
      params: Type.Object({ projectId: Type.String() }),
      response: { 200: ProjectEnvironmentListSchema, ...errorResponses(401, 403, 503) },
    },
  }, async (request) => ({ version: 1, environments: await service.listForProject(request.params.projectId) }));

  app.put('/api/admin/environments/sort-order', {
    config: { permission: 'ADMIN' },
    schema: {
      tags: TAGS, summary: 'Reorder environments: a sort order per name (unknown names are skipped)',
      body: Type.Record(Type.String(), Type.Integer()),
      response: { 200: NoBody, ...errorResponses(...ADMIN_ERRORS) },
    },
  }, async (request, reply) => {
    await service.setSortOrder(request.body);
    return reply.code(200).send(undefined);
  });

  for (const [action, enabled] of [['on', true], ['off', false]] as const) {
    app.post(`/api/admin/environments/:name/${action}`, {
      config: { permission: 'ADMIN' },
      schema: {
        tags: TAGS, summary: enabled ? 'Turn an environment on' : 'Turn an environment off (hidden from the UI\'s pages; flags keep their configuration)',
        params: EnvironmentNameParams,
        response: { 204: NoBody, ...errorResponses(401, 403, 404, 503) },
      },
    }, async (request, reply) => {
      await service.setEnabled(request.params.name, enabled);
      return reply.code(204).send();
    });
  }

  app.get('/api/admin/environments/:name', {
    schema: {
      tags: TAGS, summary: 'Get one environment', params: EnvironmentNameParams,
      response: { 200: EnvironmentSchema, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request) => await service.get(request.params.name));

  app.post('/api/admin/environments', {
    config: { permission: 'ADMIN' },
    schema: {
      tags: TAGS, summary: 'Create an environment, connected to every project and flag (Vane design)', body: CreateEnvironmentBody,
      response: { 201: EnvironmentSchema, ...errorResponses(...ADMIN_ERRORS, 409) },
    },
  }, async (request, reply) => {
    const env = await service.create(request.body, auditOf(request));
    return reply.code(201).send(env);
  });
};

export default environmentRoutes;
