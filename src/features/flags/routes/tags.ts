/** A flag's tags, by flag name (Unleash's older feature routes, which the UI still uses). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { auditOf } from '../../shared.js';
import { NoBody, errorResponses } from '../../../schemas/common.js';
import type { FlagService } from '../service.js';

const TAGS = ['Tags'];
const FLAG_TAGS = '/api/admin/features/:featureName/tags';

const FeatureNameParams = Type.Object({ featureName: Type.String() });
const TagRefSchema = Type.Object({
  type: Type.String({ minLength: 2, maxLength: 50 }),
  value: Type.String({ minLength: 2, maxLength: 50 }),
});
const TagWithColor = Type.Object({
  type: Type.String(),
  value: Type.String(),
  color: Type.Union([Type.String(), Type.Null()]),
});
const FlagTagsResponse = Type.Object({ version: Type.Integer(), tags: Type.Array(TagWithColor) });
const UpdateTagsBody = Type.Object({
  addedTags: Type.Array(TagRefSchema, { description: 'Added first' }),
  removedTags: Type.Array(TagRefSchema, { description: 'Then removed' }),
});

const tagRoutes: FastifyPluginAsyncTypebox<{ service: FlagService }> = async (app, { service }) => {
  app.get(FLAG_TAGS, {
    schema: {
      tags: TAGS, summary: 'A flag\'s tags with their type\'s colour', params: FeatureNameParams,
      response: { 200: FlagTagsResponse, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request) => ({ version: 1, tags: await service.tagging.list(request.params.featureName) }));

  app.post(FLAG_TAGS, {
    config: { permission: 'UPDATE_FEATURE' },
    schema: {
      tags: TAGS, summary: 'Tag a flag (the tag is created when new)', params: FeatureNameParams, body: TagRefSchema,
      response: { 201: TagRefSchema, ...errorResponses(400, 401, 403, 404, 415, 503) },
    },
  }, async (request, reply) => {
    const { type, value } = request.body;
    await service.tagging.add(request.params.featureName, [{ type, value }], auditOf(request));
    return reply.code(201).header('location', `${request.params.featureName}/tags`).send({ type, value });
  });

  app.put(FLAG_TAGS, {
    config: { permission: 'UPDATE_FEATURE' },
    schema: {
      tags: TAGS, summary: 'Add some tags to a flag, then remove others; answers its tags', params: FeatureNameParams, body: UpdateTagsBody,
      response: { 200: FlagTagsResponse, ...errorResponses(400, 401, 403, 404, 415, 503) },
    },
  }, async (request) => {
    const { featureName } = request.params;
    const audit = auditOf(request);
    await service.tagging.add(featureName, request.body.addedTags, audit);
    await service.tagging.remove(featureName, request.body.removedTags, audit);
    return { version: 1, tags: await service.tagging.list(featureName) };
  });

  // Deleting a tag or a tag type takes it off every flag too: these live with the flags' tags.
  app.delete('/api/admin/tags/:type/:value', {
    config: { permission: 'UPDATE_FEATURE' },
    schema: {
      tags: TAGS, summary: 'Delete a tag, and take it off every flag (200 also when it does not exist)',
      params: Type.Object({ type: Type.String(), value: Type.String() }),
      response: { 200: NoBody, ...errorResponses(401, 403, 503) },
    },
  }, async (request, reply) => {
    await service.tagging.deleteTag(request.params.type, request.params.value, auditOf(request));
    return reply.code(200).send(undefined);
  });

  app.delete('/api/admin/tag-types/:name', {
    config: { permission: 'DELETE_TAG_TYPE' },
    schema: {
      tags: TAGS, summary: 'Delete a tag type with its tags, taken off every flag',
      params: Type.Object({ name: Type.String() }),
      response: { 200: NoBody, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request, reply) => {
    await service.tagging.deleteTagType(request.params.name, auditOf(request));
    return reply.code(200).send(undefined);
  });

  app.delete(`${FLAG_TAGS}/:type/:value`, {
    config: { permission: 'UPDATE_FEATURE' },
    schema: {
      tags: TAGS, summary: 'Remove a tag from a flag (200 also when it did not have it)',
      params: Type.Object({ featureName: Type.String(), type: Type.String(), value: Type.String() }),
      response: { 200: NoBody, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request, reply) => {
    const { featureName, type, value } = request.params;
    await service.tagging.remove(featureName, [{ type, value }], auditOf(request));
    return reply.code(200).send(undefined);
  });
};

export default tagRoutes;
