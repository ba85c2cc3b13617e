import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ANY_ROLE, auditOf } from '../shared.js';
import { ADMIN_ERRORS, EmptyResponse, NoBody, errorResponses, preSerialized } from '../../schemas/common.js';
import {
  SegmentListSchema, SegmentNameBody, SegmentParams, SegmentSchema, SegmentStrategiesSchema, StrategyIdParams, StrategySegmentsSchema,
  UpdateStrategySegmentsBody, UpsertSegmentBody,
} from './schemas.js';
import { publicSegment, SegmentService } from './service.js';
import type { StrategySegmentService } from './strategies.js';

const TAGS = ['Segments'];

const segmentRoutes: FastifyPluginAsyncTypebox<{ service: SegmentService; strategies: StrategySegmentService }> = async (app, { service, strategies }) => {
  app.post('/api/admin/segments', {
    config: { permission: 'CREATE_SEGMENT' },
    schema: {
      tags: TAGS,
      summary: 'Create a segment (ids are sequential integers from 1)',
      body: UpsertSegmentBody,
      response: { 201: SegmentSchema, ...errorResponses(...ADMIN_ERRORS, 404, 409) },
    },
  }, async (request, reply) => {
    const segment = await service.create(request.body, auditOf(request));
    reply.code(201).header('location', `segments/${segment.id}`);
    return publicSegment(segment);
  });

  // Permission NONE on Unleash: any signed-in caller may ask; 204 when the name is free.
  app.post('/api/admin/segments/validate', {
    config: { permission: ANY_ROLE }, // Unleash's NONE: every signed-in role (measured: a Viewer gets 2xx)
    schema: {
      tags: TAGS,
      summary: 'Check a name for a new segment: 400 when empty, 409 when taken',
      body: SegmentNameBody,
      response: { 204: NoBody, ...errorResponses(...ADMIN_ERRORS, 409) },
    },
  }, async (request, reply) => {
    await service.validateName(request.body.name);
    return reply.code(204).send(undefined);
  });

  app.get('/api/admin/segments', {
    schema: {
      tags: TAGS,
      summary: 'List segments by name, with how many live flags and projects use each',
      response: { 200: SegmentListSchema, ...errorResponses(401, 403, 503) },
    },
  }, async () => {
    const segments = await service.list();
    return {
      segments: segments.map((s) => ({ ...publicSegment(s), usedInProjects: s.usedInProjects, usedInFeatures: s.usedInFeatures })),
    };
  });

  app.get('/api/admin/segments/:id', {
    schema: {
      tags: TAGS,
      summary: 'Get a segment',
      params: SegmentParams,
      response: { 200: SegmentSchema, ...errorResponses(400, 401, 403, 404, 503) },
    },
  }, async (request) => publicSegment(await service.get(request.params.id)));

  app.put('/api/admin/segments/:id', {
    config: { permission: 'UPDATE_SEGMENT' },
    schema: {
      tags: TAGS,
      summary: 'Replace a segment (name, description, project, constraints)',
      params: SegmentParams,
      body: UpsertSegmentBody,
      response: { 204: EmptyResponse, ...errorResponses(...ADMIN_ERRORS, 404, 409) },
    },
  }, async (request, reply) => {
    await service.update(request.params.id, request.body, auditOf(request));
    return reply.code(204).send(null);
  });

  app.delete('/api/admin/segments/:id', {
    config: { permission: 'DELETE_SEGMENT' },
    schema: {
      tags: TAGS,
      summary: 'Delete a segment; 409 with an empty body while a strategy uses it',
      params: SegmentParams,
      response: { 204: NoBody, 409: NoBody, ...errorResponses(400, 401, 403, 404, 503) },
    },
  }, async (request, reply) => {
    const outcome = await service.delete(request.params.id, auditOf(request));
    return reply.code(outcome === 'in-use' ? 409 : 204).send(undefined);
  });

  app.get('/api/admin/segments/:id/strategies', {
    schema: {
      tags: TAGS,
      summary: 'Strategies of live flags that use a segment',
      params: SegmentParams,
      response: { 200: SegmentStrategiesSchema, ...errorResponses(400, 401, 403, 404, 503) },
    },
  }, async (request) => ({ strategies: await strategies.strategiesUsing(request.params.id), changeRequestStrategies: [] }));

  app.get('/api/admin/segments/strategies/:strategyId', {
    schema: {
      tags: TAGS,
      summary: 'Segments a strategy uses, by id (none for an unknown strategy)',
      params: StrategyIdParams,
      response: { 200: StrategySegmentsSchema, ...errorResponses(401, 403, 503) },
    },
  }, async (request) => ({ segments: (await strategies.segmentsOf(request.params.strategyId)).map(publicSegment) }));

  app.post('/api/admin/segments/strategies', {
    config: { permission: 'UPDATE_FEATURE_STRATEGY' },
    schema: {
      tags: ['Strategies'],
      summary: 'Set the segments of a strategy to exactly the ones given (no event)',
      body: UpdateStrategySegmentsBody,
      response: { 201: preSerialized(UpdateStrategySegmentsBody), ...errorResponses(...ADMIN_ERRORS, 404) },
    },
  }, async (request, reply) => {
    await strategies.setSegments(request.body);
    // The body as sent (coerced), keys in its order: Unleash echoes it.
    return reply.code(201).header('location', `strategies/${request.body.strategyId}`).type('application/json; charset=utf-8')
      .send(JSON.stringify(request.body));
  });
};

export default segmentRoutes;
