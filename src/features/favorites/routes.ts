import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { forbidden } from '../../errors.js';
import { bodyNeedsContentType } from '../../plugins/errors.js';
import { NoBody, errorResponses } from '../../schemas/common.js';
import { ANY_ROLE, auditOf, personIdOf } from '../shared.js';
import type { FavoriteService } from './service.js';

const TAGS = ['Features'];
const FeatureParams = Type.Object({ projectId: Type.String(), featureName: Type.String() });
const ProjectParams = Type.Object({ projectId: Type.String() });

/** Favourites belong to a person; an API token has none (Unleash: 500 on a null user id, D10). */
function personOf(request: FastifyRequest): number {
  const id = personIdOf(request);
  if (id === null) throw forbidden('Favorites belong to a signed-in user: an API token has none.');
  return id;
}

/**
 * The stars of the admin UI: any root role marks its own favourites. Unleash declares no body but
 * still wants a JSON content type (measured: 415 without one, on DELETE too).
 */
const favoriteRoutes: FastifyPluginAsyncTypebox<{ service: FavoriteService }> = async (app, { service }) => {
  const route = <P extends typeof FeatureParams | typeof ProjectParams>(summary: string, params: P) => ({
    config: { permission: ANY_ROLE },
    preValidation: bodyNeedsContentType,
    schema: { tags: TAGS, summary, params, response: { 200: NoBody, ...errorResponses(401, 403, 404, 415, 503) } },
  });
  const flagPath = '/api/admin/projects/:projectId/features/:featureName/favorites';
  const projectPath = '/api/admin/projects/:projectId/favorites';

  app.post(flagPath, route('Mark a feature flag as a favourite of the signed-in user (the project of the path is not checked)', FeatureParams),
    async (request, reply) => {
      await service.markFlag(personOf(request), request.params.featureName, auditOf(request));
      return reply.code(200).send(undefined);
    });
  app.delete(flagPath, route('Remove a feature flag from the signed-in user\'s favourites', FeatureParams), async (request, reply) => {
    await service.unmarkFlag(personOf(request), request.params.featureName, auditOf(request));
    return reply.code(200).send(undefined);
  });
  app.post(projectPath, route('Mark a project as a favourite of the signed-in user', ProjectParams), async (request, reply) => {
    await service.markProject(personOf(request), request.params.projectId, auditOf(request));
    return reply.code(200).send(undefined);
  });
  app.delete(projectPath, route('Remove a project from the signed-in user\'s favourites', ProjectParams), async (request, reply) => {
    await service.unmarkProject(personOf(request), request.params.projectId, auditOf(request));
    return reply.code(200).send(undefined);
  });
};

export default favoriteRoutes;
