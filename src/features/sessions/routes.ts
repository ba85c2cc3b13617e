import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import rateLimit from '@fastify/rate-limit';
import { ApiError, unauthorized } from '../../errors.js';
import { EmptyResponse, errorResponses } from '../../schemas/common.js';
import { ADMIN_TOKEN_USER_ID, SESSION_COOKIE } from '../shared.js';
import { UserSchema } from '../users/schemas.js';
import { ROOT_ROLES, feedbackView } from '../users/service.js';
import { permissionsOf } from './roles.js';
import { CurrentUserSchema, LoginBody } from './schemas.js';
import type { SessionService } from './service.js';

const TAGS = ['Auth'];

function roleName(id: number): string {
  return ROOT_ROLES.find((r) => r.id === id)?.name ?? 'Viewer';
}

/** Sign-in, sign-out and "who am I". The sign-in route is public and rate-limited per client address. */
const sessionRoutes: FastifyPluginAsyncTypebox<{ service: SessionService; ttlHours: number }> = async (app, { service, ttlHours }) => {
  const secure = app.config.baseUrl.startsWith('https:');
  const cookieOptions = { path: '/', httpOnly: true, sameSite: 'lax', secure } as const;
  const max = app.config.LOGIN_RATE_LIMIT;
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_request, context) => new ApiError(
      'TooManyRequestsError',
      context.statusCode,
      `Too many sign-in attempts from your address: at most ${max} per minute are allowed. Try again in ${context.after}.`,
    ),
  });

  app.post('/auth/simple/login', {
    config: { public: true, rateLimit: { max, timeWindow: 60_000 } },
    schema: {
      tags: TAGS,
      summary: 'Sign in with a username or e-mail and a password; sets the session cookie',
      description: `The session lasts ${ttlHours} hours (SESSION_TTL_HOURS) and is stored in the database.`,
      body: LoginBody,
      security: [],
      response: { 200: UserSchema, ...errorResponses(400, 401, 403, 415, 429, 503) },
    },
  }, async (request, reply) => {
    // Login CSRF: a page elsewhere must not sign this browser in to someone else's account.
    if (request.headers.origin !== undefined) app.checkSameOrigin(request);
    const signedIn = await service.login(request.body.username, request.body.password);
    reply.setCookie(SESSION_COOKIE, signedIn.secret, { ...cookieOptions, expires: signedIn.expiresAt });
    return signedIn.user;
  });

  app.post('/logout', {
    config: { public: true },
    schema: {
      tags: TAGS,
      summary: 'End the session of this browser (204, also when there was none)',
      security: [],
      response: { 204: EmptyResponse, ...errorResponses(403, 503) },
    },
  }, async (request, reply: FastifyReply) => {
    const secret = app.sessionSecret(request);
    if (secret) {
      app.checkSameOrigin(request);
      await service.logout(secret);
    }
    reply.clearCookie(SESSION_COOKIE, cookieOptions);
    return reply.code(204).send();
  });

  app.get('/api/admin/user', {
    schema: {
      tags: TAGS,
      summary: 'The signed-in user (by session or personal access token, or the admin token) with its root role and permissions',
      response: { 200: CurrentUserSchema, ...errorResponses(401, 403, 503) },
    },
  }, async (request) => {
    const principal = request.principal;
    if (!principal) throw unauthorized();
    if (principal.kind === 'admin-token') {
      return {
        user: {
          id: ADMIN_TOKEN_USER_ID, name: principal.tokenName, email: null, username: principal.tokenName, imageUrl: null,
          rootRole: 1, rootRoleName: 'Admin', accountType: 'Service Account', seenAt: null, createdAt: null,
        },
        permissions: [{ permission: 'ADMIN' }],
        feedback: [],
        splash: {},
        sessionExpiresAt: null,
      };
    }
    if (principal.kind !== 'session') throw unauthorized();
    const user = principal.user;
    return {
      user: {
        id: user._id, name: user.name, email: user.email, username: user.username, imageUrl: user.imageUrl,
        rootRole: user.rootRole, rootRoleName: roleName(user.rootRole), accountType: user.accountType,
        seenAt: user.seenAt ? user.seenAt.toISOString() : null, createdAt: user.createdAt.toISOString(),
      },
      permissions: permissionsOf(user.rootRole).map((permission) => ({ permission })),
      feedback: (user.feedback ?? []).map((entry) => feedbackView(user._id, entry)),
      splash: Object.fromEntries((user.splash ?? []).map((id) => [id, true])),
      sessionExpiresAt: principal.pat === undefined ? principal.expiresAt.toISOString() : null,
    };
  });
};

export default sessionRoutes;
