/** One environment of a flag; turning a flag on or off in an environment (S5). */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { auditOf } from '../../shared.js';
import { ADMIN_ERRORS, NoBody, errorResponses } from '../../../schemas/common.js';
import { FlagEnvironmentService } from '../environment-service.js';
import { EnvironmentParams, EnvironmentViewResponse } from '../schemas.js';
import type { FlagService } from '../service.js';
import { ENV } from './paths.js';

const TAGS = ['Feature flags'];

const environmentRoutes: FastifyPluginAsyncTypebox<{ service: FlagService }> = async (app, { service }) => {
  const edits = new FlagEnvironmentService(service);

  app.get(ENV, {
    schema: {
      tags: TAGS, summary: 'One environment of a flag: whether it is on, and its strategies', params: EnvironmentParams,
      response: { 200: EnvironmentViewResponse, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request) => {
    const { projectId, featureName, environment } = request.params;
    return await edits.view(projectId, featureName, environment);
  });

  for (const [suffix, enabled] of [['on', true], ['off', false]] as const) {
    app.post(`${ENV}/${suffix}`, {
      config: { permission: 'UPDATE_FEATURE_ENVIRONMENT' },
      schema: {
        tags: TAGS, summary: enabled ? 'Turn a flag on in an environment' : 'Turn a flag off in an environment', params: EnvironmentParams,
        querystring: Type.Object({
          shouldActivateDisabledStrategies: Type.Optional(Type.String({ description: '"true": turning on enables the disabled strategies rather than adding a default one' })),
        }),
        response: { 200: NoBody, ...errorResponses(...ADMIN_ERRORS, 404) },
      },
    }, async (request, reply) => {
      const { projectId, featureName, environment } = request.params;
      await service.setEnabled(projectId, featureName, environment, enabled, auditOf(request), request.query.shouldActivateDisabledStrategies === 'true');
      return reply.code(200).send(undefined);
    });
  }
};

export default environmentRoutes;
