import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { validationError } from '../../errors.js';
import type { SessionPrincipal } from '../../plugins/auth.js';
import { Type } from 'typebox';
import { NoBody, errorResponses } from '../../schemas/common.js';
import type { SessionEnder } from './sources.js';
import {
  ChangePasswordBody, FeedbackCreateBody, FeedbackParams, FeedbackSchema, FeedbackUpdateBody, ProfileSchema, UserRolesQuery,
  UserRolesSchema,
} from './schemas.js';
import { describedRole, UserService } from './service.js';
import { ANY_ROLE } from '../shared.js';

/** The signed-in person (by session or personal access token); an API token has no user, as Unleash answers (measured). */
function personOf(request: FastifyRequest): SessionPrincipal {
  const principal = request.principal;
  if (principal?.kind !== 'session') throw validationError('User id is missing in request user object');
  return principal;
}

/**
 * The projects a person belongs to. Unleash holds every root role on the default project, and the
 * open-source server cannot create others with members (POST /api/admin/projects is a 404): the
 * Admin and an invited Viewer both get ["default"] (measured).
 */
const MEMBER_PROJECTS = ['default'];

/** Unleash's bodiless 400s beside the usual error body (Fastify does not serialise an absent payload). */
const ErrorOrNoBody = (when: string) => Type.Unsafe<undefined>({ $ref: 'Error', description: `The error body; no body at all ${when}` });

const userRoutes: FastifyPluginAsyncTypebox<{ service: UserService; sessions: SessionEnder }> = async (app, { service, sessions }) => {
  // The UI's feedback prompts (permission NONE). An API token has no user: Unleash fails its insert
  // with a 500 (user_id null, measured); Vane answers the 400 it gives the other person-only routes.
  app.post('/api/admin/feedback', {
    config: { permission: ANY_ROLE }, // Unleash's NONE: every signed-in role (measured: a Viewer gets 2xx)
    schema: {
      tags: ['Users'],
      summary: 'Record the signed-in person\'s answer to a UI feedback prompt',
      body: FeedbackCreateBody,
      response: { 200: FeedbackSchema, ...errorResponses(400, 401, 415, 503) },
    },
  }, async (request) => await service.giveFeedback(personOf(request).user._id, request.body.feedbackId, request.body.neverShow));

  app.put('/api/admin/feedback/:id', {
    config: { permission: ANY_ROLE }, // Unleash's NONE: every signed-in role (measured: a Viewer gets 2xx)
    schema: {
      tags: ['Users'],
      summary: 'Record an answer to a UI feedback prompt by its id (the path\'s id wins over the body\'s)',
      params: FeedbackParams,
      body: FeedbackUpdateBody,
      response: { 200: FeedbackSchema, ...errorResponses(400, 401, 415, 503) },
    },
  }, async (request) => await service.giveFeedback(personOf(request).user._id, request.params.id, request.body.neverShow));

  app.get('/api/admin/user/profile', {
    schema: {
      tags: ['Users'],
      summary: 'Get your own user profile: projects, root role, e-mail subscriptions',
      response: { 200: ProfileSchema, ...errorResponses(400, 401, 403, 503) },
    },
  }, async (request) => {
    const { user } = personOf(request);
    return {
      projects: MEMBER_PROJECTS,
      groups: [],
      rootRole: describedRole(user.rootRole),
      subscriptions: ['productivity-report'],
      features: [],
      canChangePassword: user.passwordHash !== undefined,
    };
  });

  app.get('/api/admin/user/roles', {
    schema: {
      tags: ['Users'],
      summary: 'Get the roles of the signed-in person in a project (400 with no body without projectId)',
      querystring: UserRolesQuery,
      response: { 200: UserRolesSchema, 400: ErrorOrNoBody('without projectId'), ...errorResponses(401, 403, 503) },
    },
  }, async (request, reply) => {
    // Unleash answers a 500 (an SQL error) for an API token here; Vane the profile's 400.
    const { user } = personOf(request);
    if (!request.query.projectId) return reply.code(400).send(undefined);
    const { id, name, type, description } = describedRole(user.rootRole);
    return reply.send({ version: 1 as const, roles: [{ id, name, type, project: 'default', description }] });
  });

  app.post('/api/admin/user/change-password', {
    schema: {
      tags: ['Users'],
      summary: 'Change your own password; ends your other sessions',
      description: 'A 400 with no body when confirmPassword differs or oldPassword is missing (as Unleash). No event is recorded.',
      body: ChangePasswordBody,
      response: { 200: NoBody, 400: ErrorOrNoBody('when confirmPassword differs or oldPassword is missing'), ...errorResponses(401, 403, 415, 503) },
    },
  }, async (request, reply) => {
    // Unleash answers a 500 (an SQL error) for an API token here; Vane the profile's 400.
    const principal = personOf(request);
    const changed = await service.changePassword(principal.user._id, request.body);
    if (!changed) return reply.code(400).send(undefined);
    // The session that made the change stays; with a personal access token, every session ends (measured).
    await sessions.endOtherSessions(principal.user._id, principal.pat === undefined ? app.sessionSecret(request) : undefined);
    return reply.code(200).send(undefined);
  });
};

export default userRoutes;
