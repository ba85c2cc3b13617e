import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { forbidden } from '../../errors.js';
import { ADMIN_ERRORS, NoBody, errorResponses } from '../../schemas/common.js';
import { auditOf, personIdOf } from '../shared.js';
import { CreatedPatSchema, CreatePatBody, PatListSchema, PatParams } from './schemas.js';
import type { PatService } from './service.js';

const TAGS = ['Personal access tokens'];

/** The signed-in person's id (by session or PAT); an API token is refused as Unleash refuses it (measured). */
function personOf(request: FastifyRequest): number {
  const id = personIdOf(request);
  if (id === null) throw forbidden('PATs require an authenticated user.');
  return id;
}

/** The signed-in person's own tokens: any root role may manage them (routes under /api/admin/user/). */
const patRoutes: FastifyPluginAsyncTypebox<{ service: PatService }> = async (app, { service }) => {
  app.get('/api/admin/user/tokens', {
    schema: {
      tags: TAGS,
      summary: 'Get all personal access tokens (PATs) for the current user, by id, without their secrets',
      response: { 200: PatListSchema, ...errorResponses(401, 403, 503) },
    },
  }, async (request) => ({ pats: service.list(personOf(request)) }));

  app.post('/api/admin/user/tokens', {
    schema: {
      tags: TAGS,
      summary: 'Create a personal access token (PAT) for the current user; the answer is the only one showing its secret',
      description: 'At most 10 per user; the description must be unique among them and the expiry in the future.',
      body: CreatePatBody,
      response: { 201: CreatedPatSchema, ...errorResponses(...ADMIN_ERRORS, 409) },
    },
  }, async (request, reply) => {
    const created = await service.create(personOf(request), request.body, auditOf(request));
    return reply.code(201).send(created);
  });

  app.delete('/api/admin/user/tokens/:id', {
    schema: {
      tags: TAGS,
      summary: "Delete a personal access token (PAT) of the current user (200 with no body; another user's or an unknown id changes nothing)",
      params: PatParams,
      response: { 200: NoBody, ...errorResponses(400, 401, 403, 503) },
    },
  }, async (request, reply) => {
    await service.delete(personOf(request), request.params.id, auditOf(request));
    return reply.code(200).send(undefined);
  });
};

export default patRoutes;
