import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { auditOf } from '../shared.js';
import { ADMIN_ERRORS, NoBody, errorResponses } from '../../schemas/common.js';
import { CreateStrategyTypeBody, StrategyNameParams, StrategyTypeListSchema, StrategyTypeSchema, UpdateStrategyTypeBody } from './schemas.js';
import type { StrategyTypeService } from './service.js';

const TAGS = ['Strategy types'];

const strategyTypeRoutes: FastifyPluginAsyncTypebox<{ service: StrategyTypeService }> = async (app, { service }) => {
  app.get('/api/admin/strategies', {
    schema: {
      tags: TAGS, summary: 'List strategy types',
      response: { 200: StrategyTypeListSchema, ...errorResponses(401, 403, 503) },
    },
  }, async () => ({ version: 1, strategies: await service.list() }));

  app.get('/api/admin/strategies/:name', {
    schema: {
      tags: TAGS, summary: 'Get one strategy type', params: StrategyNameParams,
      response: { 200: StrategyTypeSchema, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request) => await service.get(request.params.name));

  app.post('/api/admin/strategies', {
    config: { permission: 'CREATE_STRATEGY' },
    schema: {
      tags: TAGS, summary: 'Create a custom strategy type', body: CreateStrategyTypeBody,
      response: { 201: StrategyTypeSchema, ...errorResponses(...ADMIN_ERRORS, 409) },
    },
  }, async (request, reply) => {
    const created = await service.create(request.body, auditOf(request));
    return reply.code(201).send(created);
  });

  app.put('/api/admin/strategies/:name', {
    config: { permission: 'UPDATE_STRATEGY' },
    schema: {
      tags: TAGS, summary: 'Replace a custom strategy type\'s description, parameters and title (built-ins are refused)',
      params: StrategyNameParams, body: UpdateStrategyTypeBody,
      response: { 200: NoBody, ...errorResponses(...ADMIN_ERRORS, 404) },
    },
  }, async (request, reply) => {
    await service.update(request.params.name, request.body, auditOf(request));
    return reply.code(200).send(undefined);
  });

  for (const [action, deprecated] of [['deprecate', true], ['reactivate', false]] as const) {
    app.post(`/api/admin/strategies/:name/${action}`, {
      config: { permission: 'UPDATE_STRATEGY' },
      schema: {
        tags: TAGS, summary: deprecated ? 'Deprecate a strategy type (flags keep using it; the UI stops offering it)' : 'Reactivate a deprecated strategy type',
        params: StrategyNameParams,
        response: { 200: NoBody, ...errorResponses(401, 403, 404, 503) },
      },
    }, async (request, reply) => {
      await service.setDeprecated(request.params.name, deprecated, auditOf(request));
      return reply.code(200).send(undefined);
    });
  }

  app.delete('/api/admin/strategies/:name', {
    config: { permission: 'DELETE_STRATEGY' },
    schema: {
      tags: TAGS, summary: 'Delete a custom strategy type (built-ins are refused)',
      params: StrategyNameParams,
      response: { 200: NoBody, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request, reply) => {
    await service.delete(request.params.name, auditOf(request));
    return reply.code(200).send(undefined);
  });
};

export default strategyTypeRoutes;
