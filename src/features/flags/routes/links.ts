/** A flag's links (shown on its page and in its GET). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { auditOf } from '../../shared.js';
import { ADMIN_ERRORS, NoBody, NullableString, errorResponses } from '../../../schemas/common.js';
import { FeatureParams } from '../schemas.js';
import type { FlagLinkService } from '../links.js';
import { BASE } from './paths.js';

const TAGS = ['Features'];

/** Unleash's linkSchema: other keys are accepted and ignored. */
const LinkBody = Type.Object({
  url: Type.String({ description: 'Normalised as Unleash does: https:// when no scheme, utm_ parameters dropped, the query sorted' }),
  title: Type.Optional(NullableString({ description: 'Shown instead of the URL' })),
});
const LinkParams = Type.Object({ projectId: Type.String(), featureName: Type.String(), linkId: Type.String() });

const linkRoutes: FastifyPluginAsyncTypebox<{ links: FlagLinkService }> = async (app, { links }) => {
  app.post(`${BASE}/:featureName/link`, {
    config: { permission: 'UPDATE_FEATURE' },
    schema: {
      tags: TAGS, summary: 'Add a link to a flag (at most 10)', params: FeatureParams, body: LinkBody,
      description: 'The flag is found by name; the path\'s project is recorded in the event, as Unleash 8.2 does.',
      response: { 204: NoBody, ...errorResponses(...ADMIN_ERRORS, 404) },
    },
  }, async (request, reply) => {
    const { projectId, featureName } = request.params;
    await links.create(projectId, featureName, request.body, auditOf(request));
    return reply.code(204).send(undefined);
  });

  app.put(`${BASE}/:featureName/link/:linkId`, {
    config: { permission: 'UPDATE_FEATURE' },
    schema: {
      tags: TAGS, summary: 'Change a flag link (a title left out is kept; the link moves to the path\'s flag)', params: LinkParams, body: LinkBody,
      response: { 204: NoBody, ...errorResponses(...ADMIN_ERRORS, 404) },
    },
  }, async (request, reply) => {
    const { projectId, featureName, linkId } = request.params;
    await links.update(projectId, featureName, linkId, request.body, auditOf(request));
    return reply.code(204).send(undefined);
  });

  app.delete(`${BASE}/:featureName/link/:linkId`, {
    config: { permission: 'UPDATE_FEATURE' },
    schema: {
      tags: TAGS, summary: 'Remove a flag link', params: LinkParams,
      response: { 204: NoBody, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request, reply) => {
    const { projectId, linkId } = request.params;
    await links.remove(projectId, linkId, auditOf(request));
    return reply.code(204).send(undefined);
  });
};

export default linkRoutes;
