import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ADMIN_ERRORS, NoBody, errorResponses, preSerialized } from '../../schemas/common.js';
import { auditOf } from '../shared.js';
import {
  AddonBody, AddonEventsParams, AddonEventsQuery, AddonListSchema, AddonParams, AddonSchema, CreatedAddonSchema, IntegrationEventListSchema,
} from './schemas.js';
import type { AddonService } from './service.js';

const TAGS = ['Addons'];

/** Addon configurations (Unleash's integrations) and their delivery log: docs/rules.md §11. */
const addonRoutes: FastifyPluginAsyncTypebox<{ service: AddonService }> = async (app, { service }) => {
  // The providers' definitions keep each one's own key order (a deprecated provider lists
  // `deprecated` in a different place): written once as JSON rather than by a schema's order.
  const providersJson = JSON.stringify(service.providers());

  app.get('/api/admin/addons', {
    schema: {
      tags: TAGS,
      summary: 'Get all addons and providers: the configurations (sensitive parameters masked) and every provider Unleash 8.2 OSS defines',
      response: { 200: preSerialized(AddonListSchema), ...errorResponses(401, 403, 503) },
    },
  }, async (_request, reply) => reply.type('application/json; charset=utf-8')
    .send(`{"addons":${JSON.stringify(service.list())},"providers":${providersJson}}`));

  app.post('/api/admin/addons', {
    config: { permission: 'CREATE_ADDON' },
    schema: {
      tags: TAGS,
      summary: 'Create an addon configuration (answered with its secrets and without createdAt, as Unleash)',
      body: AddonBody,
      response: { 201: CreatedAddonSchema, ...errorResponses(...ADMIN_ERRORS) },
    },
  }, async (request, reply) => reply.code(201).send(await service.create(request.body, auditOf(request))));

  app.get('/api/admin/addons/:id', {
    schema: {
      tags: TAGS,
      summary: 'Get an addon configuration, sensitive parameters masked',
      params: AddonParams,
      response: { 200: AddonSchema, ...errorResponses(400, 401, 403, 404, 503) },
    },
  }, async (request) => service.get(request.params.id));

  app.put('/api/admin/addons/:id', {
    config: { permission: 'UPDATE_ADDON' },
    schema: {
      tags: TAGS,
      summary: 'Update an addon configuration: a parameter sent as ***** keeps its stored value; an absent description is kept',
      params: AddonParams,
      body: AddonBody,
      response: { 200: AddonSchema, ...errorResponses(...ADMIN_ERRORS, 404) },
    },
  }, async (request) => await service.update(request.params.id, request.body, auditOf(request)));

  app.delete('/api/admin/addons/:id', {
    config: { permission: 'DELETE_ADDON' },
    schema: {
      tags: TAGS,
      summary: 'Delete an addon configuration and its delivery log (200 with no body)',
      params: AddonParams,
      response: { 200: NoBody, ...errorResponses(400, 401, 403, 404, 503) },
    },
  }, async (request, reply) => {
    await service.remove(request.params.id, auditOf(request));
    return reply.code(200).send(undefined);
  });

  app.get('/api/admin/addons/:id/events', {
    config: { permission: 'ADMIN' },
    schema: {
      tags: TAGS,
      summary: "An addon configuration's delivery attempts, newest first (Unleash's integration events; the last 100 are kept)",
      params: AddonEventsParams,
      querystring: AddonEventsQuery,
      response: { 200: IntegrationEventListSchema, ...errorResponses(400, 401, 403, 503) },
    },
  }, async (request) => ({
    integrationEvents: await service.deliveryLog(request.params.id, request.query.limit, request.query.offset),
  }));
};

export default addonRoutes;
