import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ANY_ROLE, auditOf } from '../shared.js';
import { ADMIN_ERRORS, NoBody, errorResponses } from '../../schemas/common.js';
import {
  CreateTagBody, CreateTagTypeBody, TagCreatedResponse, TagTypeCreatedSchema, TagListResponse, TagTypeColor, TagTypeListResponse, TagTypeSchema,
} from './schemas.js';
import type { TagService } from './service.js';

const TAGS = ['Tags'];

const tagRoutes: FastifyPluginAsyncTypebox<{ service: TagService }> = async (app, { service }) => {
  app.post('/api/admin/tags', {
    config: { permission: ANY_ROLE }, // Unleash's NONE: every signed-in role (measured: a Viewer gets 2xx)
    schema: {
      tags: TAGS, summary: 'Create a tag (type defaults to "simple")', body: CreateTagBody,
      response: { 201: TagCreatedResponse, ...errorResponses(...ADMIN_ERRORS, 409) },
    },
  }, async (request, reply) => {
    const tag = await service.create(request.body, auditOf(request));
    reply.header('location', `tags/${tag.type}/${tag.value}`);
    return reply.code(201).send({ version: 1, tag });
  });

  app.get('/api/admin/tags', {
    schema: { tags: TAGS, summary: 'List tags', response: { 200: TagListResponse, ...errorResponses(401, 403, 503) } },
  }, async () => ({ version: 1, tags: await service.list() }));

  app.get('/api/admin/tags/:type', {
    schema: {
      tags: TAGS, summary: 'List the tags of one type', params: Type.Object({ type: Type.String() }),
      response: { 200: TagListResponse, ...errorResponses(401, 403, 503) },
    },
  }, async (request) => ({ version: 1, tags: await service.listOfType(request.params.type) }));

  app.get('/api/admin/tags/:type/:value', {
    schema: {
      tags: TAGS, summary: 'One tag', params: Type.Object({ type: Type.String(), value: Type.String() }),
      response: { 200: TagCreatedResponse, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request) => ({ version: 1, tag: await service.getTag(request.params.type, request.params.value) }));

  app.post('/api/admin/tag-types/validate', {
    config: { permission: ANY_ROLE }, // Unleash's NONE: every signed-in role (measured: a Viewer gets 2xx)
    schema: {
      tags: TAGS, summary: 'Whether a new tag type may take this name', body: Type.Object({ name: Type.String() }),
      response: { 200: Type.Object({ valid: Type.Boolean(), tagType: Type.Object({ name: Type.String() }) }), ...errorResponses(...ADMIN_ERRORS, 409) },
    },
  }, async (request) => await service.validateType(request.body.name));

  app.get('/api/admin/tag-types/:name', {
    schema: {
      tags: TAGS, summary: 'One tag type', params: Type.Object({ name: Type.String() }),
      response: { 200: Type.Object({ version: Type.Number(), tagType: TagTypeSchema }), ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request) => ({ version: 1, tagType: await service.getType(request.params.name) }));

  app.put('/api/admin/tag-types/:name', {
    config: { permission: 'UPDATE_TAG_TYPE' },
    schema: {
      tags: TAGS, summary: 'Change a tag type\'s description, icon or colour', params: Type.Object({ name: Type.String() }),
      body: Type.Object({
        description: Type.Optional(Type.String()),
        icon: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        color: TagTypeColor,
      }),
      response: { 200: NoBody, ...errorResponses(...ADMIN_ERRORS) },
    },
  }, async (request, reply) => {
    await service.updateType(request.params.name, request.body, auditOf(request));
    return reply.code(200).send(undefined);
  });

  app.get('/api/admin/tag-types', {
    schema: { tags: TAGS, summary: 'List tag types', response: { 200: TagTypeListResponse, ...errorResponses(401, 403, 503) } },
  }, async () => ({ version: 1, tagTypes: await service.listTypes() }));

  app.post('/api/admin/tag-types', {
    config: { permission: 'UPDATE_TAG_TYPE' },
    schema: {
      tags: TAGS, summary: 'Create a tag type', body: CreateTagTypeBody,
      response: { 201: TagTypeCreatedSchema, ...errorResponses(...ADMIN_ERRORS, 409) },
    },
  }, async (request, reply) => {
    const type = await service.createType(request.body, auditOf(request));
    return reply.code(201).send(type);
  });
};

export default tagRoutes;
