/** Unleash Edge's routes (docs/rules.md §1.4 "Unleash Edge"): which tokens are valid, and signed token requests. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { preValidationHookHandler } from 'fastify';
import { Type } from 'typebox';
import { contentType, wrongTokenType } from '../../errors.js';
import { errorResponses, inOrder } from '../../schemas/common.js';
import type { EdgeService } from './service.js';

const TAGS = ['Unleash Edge'];

const TokenListBody = Type.Object({
  tokens: Type.Array(Type.String(), { description: 'Secrets to check' }),
}, { additionalProperties: true });

const ValidatedTokens = Type.Object({
  tokens: Type.Array(inOrder(Type.Object({
    token: Type.String(),
    type: Type.String({ description: 'admin, client, backend or frontend' }),
    projects: Type.Array(Type.String()),
    environment: Type.String(),
  })), { description: 'The live tokens among those sent, in their order' }),
});

const TokenRequestBody = Type.Object({
  tokens: Type.Array(Type.Object({
    environment: Type.String(),
    projects: Type.Array(Type.String(), { description: '`*` for every project' }),
  }, { additionalProperties: false }), { description: 'The environment and projects of each token wanted' }),
}, { additionalProperties: true });

/** A single header's value (a repeated one is joined, as Node joins unknown headers). */
function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * A request without a body is refused unless it says it is JSON (measured: 415 with no content
 * type and with text/plain), as a body in another type is by the errors plugin.
 */
const jsonDeclared: preValidationHookHandler = (request, _reply, done) => {
  const type = request.headers['content-type'];
  done(request.body === undefined && !type?.toLowerCase().startsWith('application/json') ? contentType(type) : undefined);
};

const edgeRoutes: FastifyPluginAsyncTypebox<{ service: EdgeService }> = async (app, { service }) => {
  /**
   * No credential is needed, but a client or frontend token is the wrong token type here, as on
   * any route outside its API (measured: 403 for both; an admin token, an unknown one or none pass).
   */
  const sdkTokenRefused: preValidationHookHandler = (request, _reply, done) => {
    const authorization = request.headers.authorization;
    const type = authorization ? service.tokenType(authorization) : undefined;
    done(type !== undefined && type !== 'admin' ? wrongTokenType() : undefined);
  };

  app.post('/edge/validate', {
    preValidation: [sdkTokenRefused, jsonDeclared],
    schema: {
      tags: TAGS,
      summary: 'Which of the given secrets are live API tokens, with their type, projects and environment',
      body: TokenListBody,
      response: { 200: ValidatedTokens, ...errorResponses(400, 403, 413, 415, 503) },
    },
  }, async (request) => service.validate(request.body.tokens));

  app.post('/edge/issue-token', {
    preValidation: [sdkTokenRefused, jsonDeclared],
    schema: {
      tags: TAGS,
      summary: 'Tokens for an Edge client that signs its request (HMAC); Vane has no such client, so every request is refused with 401',
      body: TokenRequestBody,
      response: { 200: ValidatedTokens, ...errorResponses(400, 401, 403, 413, 415, 503) },
    },
  }, async (request) => service.issueTokens({
    authorization: request.headers.authorization,
    timestamp: header(request.headers['x-timestamp']),
    nonce: header(request.headers['x-nonce']),
    bodyHash: header(request.headers['content-sha256']),
  }));
};

export default edgeRoutes;
