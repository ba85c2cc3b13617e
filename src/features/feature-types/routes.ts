import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../schemas/common.js';
import { FEATURE_TYPES } from './read-model.js';


const FeatureTypeList = Type.Object({
  version: Type.Integer(),
  types: Type.Array(Type.Object({
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    lifetimeDays: Type.Union([Type.Integer(), Type.Null()], { description: 'Days before a flag of this type is potentially stale; null: never' }),
  })),
});

const featureTypeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/api/admin/feature-types', {
    schema: {
      tags: ['Feature Types'], summary: 'The flag types and their expected lifetimes',
      response: { 200: FeatureTypeList, ...errorResponses(401, 403, 503) },
    },
  }, async () => ({ version: 1, types: [...FEATURE_TYPES] }));
};

export default featureTypeRoutes;
