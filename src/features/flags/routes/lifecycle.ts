/** A flag's lifecycle stages and its completion. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { auditOf } from '../../shared.js';
import { NoBody, errorResponses, inOrder } from '../../../schemas/common.js';
import { FeatureParams } from '../schemas.js';
import type { FlagLifecycleService } from '../lifecycle-service.js';
import { BASE } from './paths.js';

const TAGS = ['Features'];

const Status = Type.Enum(['kept', 'discarded'], { type: 'string' });
const CompletionBody = Type.Object({
  status: Status,
  statusValue: Type.Optional(Type.String({ description: 'What was kept (a variant, a value)' })),
}, { additionalProperties: false });
const StagesResponse = Type.Array(inOrder(Type.Object({
  stage: Type.Enum(['initial', 'pre-live', 'live', 'completed', 'archived'], { type: 'string' }),
  status: Type.Optional(Status),
  enteredStageAt: Type.String({ format: 'date-time' }),
})), { description: 'Every stage the flag entered, oldest first' });

const lifecycleRoutes: FastifyPluginAsyncTypebox<{ lifecycle: FlagLifecycleService }> = async (app, { lifecycle }) => {
  app.get(`${BASE}/:featureName/lifecycle`, {
    schema: {
      tags: TAGS, summary: 'The lifecycle stages a flag entered and when', params: FeatureParams,
      description: 'The flag is found by name; an unknown flag has none.',
      response: { 200: StagesResponse, ...errorResponses(401, 403, 503) },
    },
  }, async (request) => await lifecycle.stages(request.params.featureName));

  app.post(`${BASE}/:featureName/lifecycle/complete`, {
    config: { permission: 'UPDATE_FEATURE' },
    schema: {
      tags: TAGS, summary: 'Mark a flag completed (kept or discarded)', params: FeatureParams, body: CompletionBody,
      response: { 200: NoBody, ...errorResponses(400, 401, 403, 503) },
    },
  }, async (request, reply) => {
    const { projectId, featureName } = request.params;
    await lifecycle.complete(projectId, featureName, request.body, auditOf(request));
    return reply.code(200).send(undefined);
  });

  app.post(`${BASE}/:featureName/lifecycle/uncomplete`, {
    config: { permission: 'UPDATE_FEATURE' },
    schema: {
      tags: TAGS, summary: 'Take a flag\'s completion back', params: FeatureParams,
      response: { 200: NoBody, ...errorResponses(401, 403, 503) },
    },
  }, async (request, reply) => {
    const { projectId, featureName } = request.params;
    await lifecycle.uncomplete(projectId, featureName, auditOf(request));
    return reply.code(200).send(undefined);
  });
};

export default lifecycleRoutes;
