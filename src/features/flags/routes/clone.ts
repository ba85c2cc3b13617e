/** Cloning a flag into a project. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { auditOf } from '../../shared.js';
import { ADMIN_ERRORS, errorResponses } from '../../../schemas/common.js';
import { FeatureParams, FeatureUpdatedResponse } from '../schemas.js';
import type { FlagCloneService } from '../clone.js';
import { BASE } from './paths.js';

const CloneBody = Type.Object({
  name: Type.String({ description: 'The new flag\'s name' }),
  replaceGroupId: Type.Optional(Type.Boolean({ description: 'false keeps the strategies\' groupId (default: the new name)' })),
}, { description: 'Other keys are accepted and ignored (as Unleash 8.2 does)' });

const cloneRoutes: FastifyPluginAsyncTypebox<{ clone: FlagCloneService }> = async (app, { clone }) => {
  app.post(`${BASE}/:featureName/clone`, {
    config: { permission: 'CREATE_FEATURE' },
    schema: {
      tags: ['Features'], summary: 'Clone a flag: its fields, strategies, variants and parent, off everywhere', params: FeatureParams, body: CloneBody,
      response: { 201: FeatureUpdatedResponse, ...errorResponses(...ADMIN_ERRORS, 404, 409) },
    },
  }, async (request, reply) => {
    const { projectId, featureName } = request.params;
    return reply.code(201).send(await clone.clone(projectId, featureName, request.body, auditOf(request)));
  });
};

export default cloneRoutes;
