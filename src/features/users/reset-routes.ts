import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { NoBody, errorResponses } from '../../schemas/common.js';
import type { PasswordService } from './password-service.js';
import { perAddressLimit } from './rate-limit.js';
import { EmailBody, ResetWithTokenBody, TokenQuery, TokenUserSchema, ValidatePasswordBody } from './schemas.js';
import type { SessionEnder } from './sources.js';

const TAGS = ['Auth'];

/**
 * The links of the sign-in page (`/auth/reset/*`, no credential): who a welcome or reset link is
 * for, setting the password through it, the strength check, and asking for a link. Opening or
 * using a link signs the browser out, as Unleash destroys the request's session.
 */
const resetRoutes: FastifyPluginAsyncTypebox<{ passwords: PasswordService; sessions: SessionEnder; rateLimit: number }> = async (
  app, { passwords, sessions, rateLimit: max },
) => {
  const limited = await perAddressLimit(app, max, (seconds) =>
    `Too many reset links asked for from your address: at most ${max} per minute are allowed. Try again in ${seconds} seconds.`);
  const signOut = async (request: FastifyRequest) => {
    const secret = app.sessionSecret(request);
    if (secret !== undefined) await sessions.logout(secret);
  };

  app.get('/auth/reset/validate', {
    config: { public: true },
    schema: {
      tags: TAGS,
      summary: 'Who a welcome or reset link is for (401 InvalidTokenError when it is unknown, expired or spent)',
      querystring: TokenQuery,
      security: [],
      response: { 200: TokenUserSchema, ...errorResponses(401, 404, 503) },
    },
  }, async (request) => {
    const user = await passwords.tokenUser(request.query.token);
    await signOut(request);
    return user;
  });

  app.post('/auth/reset/password', {
    config: { public: true },
    schema: {
      tags: TAGS,
      summary: 'Set a password through a link: strong enough and not one of the last five; the link is spent and every session ends',
      body: ResetWithTokenBody,
      security: [],
      response: { 200: NoBody, ...errorResponses(400, 401, 404, 415, 503) },
    },
  }, async (request, reply) => {
    await signOut(request);
    await passwords.resetWithToken(request.body.token, request.body.password);
    return reply.code(200).send(undefined);
  });

  app.post('/auth/reset/validate-password', {
    config: { public: true },
    schema: {
      tags: TAGS,
      summary: 'Check a password against the strength rules (200, or 400 naming the problems)',
      body: ValidatePasswordBody,
      security: [],
      response: { 200: NoBody, ...errorResponses(400, 415, 503) },
    },
  }, async (request, reply) => {
    passwords.validate(request.body.password);
    return reply.code(200).send(undefined);
  });

  app.post('/auth/reset/password-email', {
    config: { public: true },
    preValidation: limited,
    schema: {
      tags: TAGS,
      summary: 'Ask for a reset link for an e-mail address (Vane sends no e-mail: an admin sees the link in the user list)',
      body: EmailBody,
      security: [],
      response: { 200: NoBody, ...errorResponses(400, 404, 415, 429, 503) },
    },
  }, async (request, reply) => {
    await passwords.requestReset(request.body.email);
    return reply.code(200).send(undefined);
  });
};

export default resetRoutes;
