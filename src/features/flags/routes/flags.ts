/** Flags (E4, S3, S8): create, list and read. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ANY_ROLE, auditOf, personIdOf } from '../../shared.js';
import { isMarked, type FavoriteReadModel } from '../../favorites/read-model.js';
import { ADMIN_ERRORS, NoBody, errorResponses, preSerialized } from '../../../schemas/common.js';
import {
  CreateFeatureBody, FeatureCreatedResponse, FeatureUpdatedResponse, PatchBody, StaleBody, UpdateFeatureBody, ValidateNameBody, FeatureListResponse,
  FeatureParams, FeatureResponse, ProjectParams, type FeatureListItemView,
} from '../schemas.js';
import type { FlagService } from '../service.js';
import { BASE } from './paths.js';

const TAGS = ['Feature flags'];

const flagRoutes: FastifyPluginAsyncTypebox<{ service: FlagService; favorites: FavoriteReadModel }> = async (app, { service, favorites }) => {
  app.post(BASE, {
    config: { permission: 'CREATE_FEATURE' },
    schema: {
      tags: TAGS, summary: 'Create a feature flag in a project', params: ProjectParams, body: CreateFeatureBody,
      response: { 201: FeatureCreatedResponse, ...errorResponses(...ADMIN_ERRORS, 404, 409) },
    },
  }, async (request, reply) => {
    const flag = await service.create(request.params.projectId, request.body, auditOf(request));
    return reply.code(201).send(flag);
  });

  /**
   * The list's JSON in UTF-8, per list the service built (one per revision and last-seen change):
   * at 5 000 flags it is 2.6 MB, serialized again for every request before, and each of those
   * strings was garbage in the main thread's large-object space until a full GC.
   */
  const listBodies = new WeakMap<readonly FeatureListItemView[], Buffer>();
  app.get(BASE, {
    schema: {
      tags: TAGS, summary: 'List the flags of a project', params: ProjectParams,
      response: { 200: preSerialized(FeatureListResponse), ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request, reply) => {
    const features = await service.list(request.params.projectId);
    let body = listBodies.get(features);
    if (body === undefined) {
      // The route's own serializer, compiled from FeatureListResponse: the bytes it sent before.
      const json = reply.serialize({ version: 2, features });
      body = typeof json === 'string' ? Buffer.from(json) : Buffer.isBuffer(json) ? json : Buffer.from(json);
      listBodies.set(features, body);
    }
    return await reply.type('application/json; charset=utf-8').send(body);
  });

  app.put(`${BASE}/:featureName`, {
    config: { permission: 'UPDATE_FEATURE' },
    schema: {
      tags: TAGS, summary: 'Replace a flag\'s description, type, impression data and stale mark (an absent one takes its default)',
      params: FeatureParams, body: UpdateFeatureBody,
      response: { 200: FeatureUpdatedResponse, ...errorResponses(...ADMIN_ERRORS, 404) },
    },
  }, async (request) => await service.replaceMetadata(request.params.projectId, request.params.featureName, request.body, auditOf(request)));

  app.patch(`${BASE}/:featureName`, {
    config: { permission: 'UPDATE_FEATURE' },
    schema: {
      tags: TAGS, summary: 'Change a flag\'s own fields with a JSON Patch (description, type, impressionData, stale)',
      params: FeatureParams, body: PatchBody,
      response: { 200: FeatureUpdatedResponse, ...errorResponses(...ADMIN_ERRORS, 404) },
    },
  }, async (request) => await service.patchMetadata(request.params.projectId, request.params.featureName, request.body, auditOf(request)));

  app.post('/api/admin/projects/:projectId/stale', {
    config: { permission: 'UPDATE_FEATURE' },
    schema: {
      tags: TAGS, summary: 'Mark some of a project\'s flags stale, or not (202; names of no flag in it are skipped)',
      params: ProjectParams, body: StaleBody,
      response: { 202: NoBody, ...errorResponses(...ADMIN_ERRORS) },
    },
  }, async (request, reply) => {
    await service.setStale(request.params.projectId, request.body.features, request.body.stale, auditOf(request));
    return reply.code(202).send(undefined);
  });

  app.post('/api/admin/features/validate', {
    config: { permission: ANY_ROLE }, // Unleash's NONE: every signed-in role (measured: a Viewer gets 2xx)
    schema: {
      tags: TAGS, summary: 'Whether a name can be given to a new flag (200), or why not (400, or 409 when a flag has it, archived ones too)',
      body: ValidateNameBody,
      response: { 200: NoBody, ...errorResponses(400, 401, 403, 409, 415, 503) },
    },
  }, async (request, reply) => {
    await service.validateName(request.body.name);
    return reply.code(200).send(undefined);
  });

  app.get(`${BASE}/:featureName`, {
    schema: {
      tags: TAGS, summary: 'Get a feature flag with its environments and strategies', params: FeatureParams,
      response: { 200: FeatureResponse, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request) => {
    const view = await service.get(request.params.projectId, request.params.featureName);
    const userId = personIdOf(request);
    if (userId === null) return view;
    return { ...view, favorite: isMarked(favorites.marksOf(userId).flags, view.name, new Date(view.createdAt)) };
  });
};

export default flagRoutes;
