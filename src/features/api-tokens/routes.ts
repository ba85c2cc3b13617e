import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { auditOf } from '../shared.js';
import { ADMIN_ERRORS, EmptyResponse, NoBody, errorResponses, preSerialized } from '../../schemas/common.js';
import {
  ApiTokenListSchema, ApiTokenSchema, CreateApiTokenBody, CreateProjectApiTokenBody, ListedTokensSchema, ProjectParams, ProjectTokenParams,
  TokenNameParams, TokenParams, UpdateApiTokenBody,
} from './schemas.js';
import { ApiTokenService, inBodyOrder, listedToken, publicToken, readBackType, type CreatedToken } from './service.js';

const TAGS = ['API tokens'];

/** The creation answer, the only one that shows the secret: as JSON, its keys in the body's order (`inBodyOrder`). */
function createdView({ token, secret, bodyKeys }: CreatedToken): string {
  const { tokenName, environment, projects, type, alias, project, createdAt, secure, expiresAt } = publicToken(token);
  const view = { tokenName, environment, projects, secret, type, alias, project, createdAt, secure, ...(expiresAt ? { expiresAt } : {}) };
  return JSON.stringify(inBodyOrder(view, bodyKeys));
}

/** Unleash shows admin tokens only to an admin token's caller (its "API admin"). */
const byAdminToken = (request: { principal?: { kind: string } }) => request.principal?.kind === 'admin-token';

const apiTokenRoutes: FastifyPluginAsyncTypebox<{ service: ApiTokenService }> = async (app, { service }) => {
  app.post('/api/admin/api-tokens', {
    config: { permission: 'CREATE_API_TOKEN' },
    schema: {
      tags: ['API tokens'],
      summary: 'Create a client, backend or frontend API token',
      body: CreateApiTokenBody,
      response: { 201: preSerialized(ApiTokenSchema), ...errorResponses(...ADMIN_ERRORS) },
    },
  }, async (request, reply) => {
    const created = await service.create(request.body, auditOf(request));
    reply.code(201).header('location', 'api-tokens').type('application/json; charset=utf-8');
    return createdView(created);
  });

  app.get('/api/admin/api-tokens', {
    config: { permission: 'READ_API_TOKEN' },
    schema: {
      tags: ['API tokens'],
      summary: 'List API tokens (secrets masked: they are stored only as hashes)',
      response: { 200: ApiTokenListSchema, ...errorResponses(401, 403, 503) },
    },
  }, async () => {
    const tokens = await app.apiTokens.list();
    return {
      tokens: tokens.map((token) => ({ ...publicToken(token), type: readBackType(token.type), secret: token.displaySecret })),
    };
  });

  app.delete('/api/admin/api-tokens/:token', {
    config: { permission: 'DELETE_API_TOKEN' },
    schema: {
      tags: ['API tokens'],
      summary: 'Revoke an API token by its secret',
      params: TokenParams,
      response: { 200: EmptyResponse, ...errorResponses(401, 403, 503) },
    },
  }, async (request, reply) => {
    await service.revoke(request.params.token, auditOf(request));
    return reply.code(200).send(null);
  });

  app.get('/api/admin/api-tokens/:name', {
    config: { permission: 'READ_CLIENT_API_TOKEN' },
    schema: {
      tags: TAGS,
      summary: 'Tokens with this name (admin tokens only for an admin token), secrets masked',
      params: TokenNameParams,
      response: { 200: ListedTokensSchema, ...errorResponses(401, 403, 503) },
    },
  }, async (request) => ({ tokens: (await service.byName(request.params.name, byAdminToken(request))).map(listedToken) }));

  app.put('/api/admin/api-tokens/:token', {
    config: { permission: 'UPDATE_CLIENT_API_TOKEN' },
    schema: {
      tags: TAGS,
      summary: 'Set a token\'s expiry (an unknown secret answers 200 too)',
      params: TokenParams,
      body: UpdateApiTokenBody,
      response: { 200: NoBody, ...errorResponses(...ADMIN_ERRORS) },
    },
  }, async (request, reply) => {
    await service.updateExpiry(request.params.token, new Date(request.body.expiresAt), auditOf(request));
    return reply.code(200).send(undefined);
  });

  app.get('/api/admin/projects/:projectId/api-tokens', {
    config: { permission: 'READ_PROJECT_API_TOKEN' },
    schema: {
      tags: TAGS,
      summary: 'A project\'s tokens (every token for an admin token), secrets masked',
      params: ProjectParams,
      response: { 200: ListedTokensSchema, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request) => ({ tokens: (await service.projectTokens(request.params.projectId, byAdminToken(request))).map(listedToken) }));

  app.post('/api/admin/projects/:projectId/api-tokens', {
    config: { permission: 'CREATE_PROJECT_API_TOKEN' },
    schema: {
      tags: TAGS,
      summary: 'Create a client, backend or frontend token scoped to this project',
      params: ProjectParams,
      body: CreateProjectApiTokenBody,
      response: { 201: preSerialized(ApiTokenSchema), ...errorResponses(...ADMIN_ERRORS, 404) },
    },
  }, async (request, reply) => {
    const created = await service.createForProject(request.params.projectId, request.body, auditOf(request));
    reply.code(201).header('location', 'api-tokens').type('application/json; charset=utf-8');
    return createdView(created);
  });

  app.delete('/api/admin/projects/:projectId/api-tokens/:token', {
    config: { permission: 'DELETE_PROJECT_API_TOKEN' },
    schema: {
      tags: TAGS,
      summary: 'Revoke a token scoped to exactly this project: 404 (empty) when the caller sees no such token, 400 (empty) for another scope',
      params: ProjectTokenParams,
      response: { 200: NoBody, 400: NoBody, 404: NoBody, ...errorResponses(401, 403, 503) },
    },
  }, async (request, reply) => {
    const outcome = await service.revokeInProject(request.params.projectId, request.params.token, byAdminToken(request), auditOf(request));
    return reply.code(outcome === 'revoked' ? 200 : outcome === 'not-found' ? 404 : 400).send(undefined);
  });
};

export default apiTokenRoutes;
