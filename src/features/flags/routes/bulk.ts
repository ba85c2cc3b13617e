/** Operations on several of a project's flags at once: archive, revive, delete, on/off, tags. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { isRootAdmin } from '../../../plugins/auth.js';
import { noAccess } from '../../../errors.js';
import { auditOf } from '../../shared.js';
import { ADMIN_ERRORS, NoBody, errorResponses } from '../../../schemas/common.js';
import type { FlagBulkService } from '../bulk.js';
import { ProjectParams, ReviveParams } from '../schemas.js';

const TAGS = ['Feature flags'];
const PROJECT = '/api/admin/projects/:projectId';

/** `batchFeaturesSchema` (open: Unleash ignores other keys, measured). */
const FeaturesBody = Type.Object({ features: Type.Array(Type.String(), { description: 'Flag names' }) });
const ValidateArchiveResponse = Type.Object({
  parentsWithChildFeatures: Type.Array(Type.String(), { description: 'Named flags that flags left out of the list depend on' }),
  hasDeletedDependencies: Type.Boolean({ description: 'Whether archiving them removes a dependency' }),
});
const EnvironmentBulkParams = Type.Object({ projectId: Type.String(), environment: Type.String() });
const ToggleQuery = Type.Object({
  shouldActivateDisabledStrategies: Type.Optional(Type.String({ description: '"true": enable the disabled strategies rather than add a default one' })),
});
/** `tagSchema` of `tagsBulkAddSchema` (closed, as Unleash's). */
const BulkTag = Type.Object({
  value: Type.String({ minLength: 2, maxLength: 50 }),
  type: Type.String({ minLength: 2, maxLength: 50 }),
  color: Type.Optional(Type.Union([Type.String({ pattern: '^#[0-9A-Fa-f]{6}$' }), Type.Null()])),
}, { additionalProperties: false });
const TagsBulkBody = Type.Object({
  features: Type.Array(Type.String({ minLength: 1 })),
  tags: Type.Object({
    addedTags: Type.Array(BulkTag, { description: 'Added to each flag first' }),
    removedTags: Type.Array(BulkTag, { description: 'Then removed from each' }),
  }, { additionalProperties: false }),
}, { additionalProperties: false });

const bulkRoutes: FastifyPluginAsyncTypebox<{ bulk: FlagBulkService }> = async (app, { bulk }) => {
  app.post(`${PROJECT}/archive/validate`, {
    config: { permission: 'DELETE_FEATURE' },
    schema: {
      tags: TAGS, summary: 'What archiving these flags would do: parents that other flags still depend on, and whether dependencies go',
      params: ProjectParams, body: FeaturesBody,
      response: { 200: ValidateArchiveResponse, ...errorResponses(...ADMIN_ERRORS) },
    },
  }, async (request) => bulk.validateArchive(request.body.features));

  app.post(`${PROJECT}/archive`, {
    config: { permission: 'DELETE_FEATURE' },
    schema: {
      tags: TAGS, summary: 'Archive several flags (unknown and archived names are skipped; 403 while another flag depends on one)',
      params: ProjectParams, body: FeaturesBody,
      response: { 202: NoBody, ...errorResponses(...ADMIN_ERRORS) },
    },
  }, async (request, reply) => {
    await bulk.archive(request.params.projectId, request.body.features, auditOf(request));
    return reply.code(202).send(undefined);
  });

  app.post(`${PROJECT}/revive`, {
    config: { permission: 'UPDATE_FEATURE' },
    schema: {
      tags: TAGS, summary: 'Revive several archived flags, their environments off (unknown and live names are skipped)',
      params: ProjectParams, body: FeaturesBody,
      response: { 200: NoBody, ...errorResponses(...ADMIN_ERRORS, 404) },
    },
  }, async (request, reply) => {
    await bulk.revive(request.params.projectId, request.body.features, auditOf(request));
    return reply.code(200).send(undefined);
  });

  app.post(`${PROJECT}/delete`, {
    config: { permission: 'DELETE_FEATURE' },
    schema: {
      tags: TAGS, summary: 'Delete several archived flags for good (unknown and live names are skipped)',
      params: ProjectParams, body: FeaturesBody,
      response: { 200: NoBody, ...errorResponses(...ADMIN_ERRORS) },
    },
  }, async (request, reply) => {
    await bulk.delete(request.params.projectId, request.body.features, auditOf(request));
    return reply.code(200).send(undefined);
  });

  app.delete('/api/admin/archive/:featureName', {
    config: { permission: 'DELETE_FEATURE' },
    schema: {
      tags: TAGS, summary: 'Delete an archived flag for good (200 and nothing done for a live or unknown one)',
      params: ReviveParams,
      response: { 200: NoBody, ...errorResponses(401, 403, 503) },
    },
  }, async (request, reply) => {
    const done = await bulk.deleteOne(request.params.featureName, auditOf(request));
    // Unleash asks a project permission of the flag's project; without a flag, of the root role,
    // so an Editor is refused an unknown name (measured: 403, and 200 for an existing one).
    if (!done && !isRootAdmin(request.principal)) throw noAccess(['DELETE_FEATURE']);
    return reply.code(200).send(undefined);
  });

  for (const [suffix, enabled] of [['on', true], ['off', false]] as const) {
    app.post(`${PROJECT}/bulk_features/environments/:environment/${suffix}`, {
      config: { permission: 'UPDATE_FEATURE_ENVIRONMENT' },
      schema: {
        tags: TAGS, summary: `Turn several flags ${suffix} in an environment (all or none: the first flag that cannot be refuses the request)`,
        params: EnvironmentBulkParams, querystring: ToggleQuery, body: FeaturesBody,
        response: { 200: NoBody, ...errorResponses(...ADMIN_ERRORS, 404) },
      },
    }, async (request, reply) => {
      const { projectId, environment } = request.params;
      const activate = request.query.shouldActivateDisabledStrategies === 'true';
      await bulk.setEnabled(projectId, request.body.features, environment, enabled, activate, auditOf(request));
      return reply.code(200).send(undefined);
    });
  }

  app.put(`${PROJECT}/tags`, {
    config: { permission: 'UPDATE_FEATURE' },
    schema: {
      tags: ['Tags'], summary: 'Add tags to several flags, then remove others (unknown tags are created)',
      params: ProjectParams, body: TagsBulkBody,
      response: { 200: NoBody, ...errorResponses(...ADMIN_ERRORS, 404) },
    },
  }, async (request, reply) => {
    const { features, tags } = request.body;
    await bulk.updateTags(request.params.projectId, features, tags.addedTags, tags.removedTags, auditOf(request));
    return reply.code(200).send(undefined);
  });
};

export default bulkRoutes;
