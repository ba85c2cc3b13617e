import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../schemas/common.js';
import { auditOf } from '../shared.js';
import type { FeatureTypeService } from './service.js';

const FeatureTypeSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  lifetimeDays: Type.Union([Type.Integer(), Type.Null()], { description: 'Days before a flag of this type is potentially stale; null: never' }),
});
const FeatureTypeList = Type.Object({ version: Type.Integer(), types: Type.Array(FeatureTypeSchema) });

const featureTypeRoutes: FastifyPluginAsyncTypebox<{ service: FeatureTypeService }> = async (app, { service }) => {
  app.get('/api/admin/feature-types', {
    schema: {
      tags: ['Feature Types'], summary: 'The flag types and their expected lifetimes',
      response: { 200: FeatureTypeList, ...errorResponses(401, 403, 503) },
    },
  }, async () => ({ version: 1, types: [...service.list()] }));

  app.put('/api/admin/feature-types/:id/lifetime', {
    config: { permission: 'ADMIN' },
    schema: {
      tags: ['Feature Types'], summary: 'Set the days after which a flag of this type is potentially stale (0: never)',
      params: Type.Object({ id: Type.String() }),
      body: Type.Object({ lifetimeDays: Type.Union([Type.Integer({ minimum: 0, maximum: 2147483647 }), Type.Null()]) }),
      response: { 200: FeatureTypeSchema, ...errorResponses(400, 401, 403, 404, 415, 503) },
    },
  }, async (request) => await service.setLifetime(request.params.id, request.body.lifetimeDays, auditOf(request)));
};

export default featureTypeRoutes;
