import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ADMIN_ERRORS, NoBody, errorResponses } from '../../schemas/common.js';
import { ANY_ROLE, auditOf } from '../shared.js';
import type { UserAdminService } from './admin-service.js';
import type { PasswordService } from './password-service.js';
import { perAddressLimit } from './rate-limit.js';
import {
  AccessSchema, AdminCountSchema, AdminPasswordBody, AdminUserListSchema, AdminUserSchema, CreateUserBody, IdsBody, InactiveUsersSchema,
  ResetPasswordBody, ResetPasswordSchema, SearchQuery, UpdateUserBody, UserIdParams, UserSearchSchema,
} from './schemas.js';

const TAGS = ['Users'];
const BASE = '/api/admin/user-admin';

/**
 * The admin's user pages (`/api/admin/user-admin`), as Unleash 8.2 answers them. Every POST here
 * counts against one limit per client address and minute (USER_ADMIN_RATE_LIMIT; Unleash's
 * 20 a minute covers the same POSTs, measured: a 21st `change-password` got 429), after authentication.
 */
const userAdminRoutes: FastifyPluginAsyncTypebox<{ admin: UserAdminService; passwords: PasswordService; rateLimit: number }> = async (
  app, { admin, passwords, rateLimit: max },
) => {
  const limited = await perAddressLimit(app, max, (seconds) =>
    `Too many requests to ${BASE} from your address: at most ${max} per minute are allowed. Try again in ${seconds} seconds.`);

  app.get(BASE, {
    config: { permission: 'ADMIN' },
    schema: {
      tags: TAGS,
      summary: 'Get every user with its root role and live welcome or reset link, and the root roles',
      response: { 200: AdminUserListSchema, ...errorResponses(401, 403, 503) },
    },
  }, async () => await admin.list());

  app.post(BASE, {
    config: { permission: 'ADMIN' },
    preValidation: limited,
    schema: {
      tags: TAGS,
      summary: 'Create a user with a root role; the answer carries its welcome link (valid 24 hours)',
      description: 'A username or an e-mail is required. `user-created` is recorded. No e-mail is sent (`emailSent` false).',
      body: CreateUserBody,
      response: { 201: AdminUserSchema, ...errorResponses(...ADMIN_ERRORS, 429) },
    },
  }, async (request, reply) => {
    const user = await admin.create(request.body, auditOf(request));
    return reply.code(201).header('location', String(user.id)).send(user);
  });

  app.get(`${BASE}/search`, {
    schema: {
      tags: TAGS,
      summary: 'Search users by a part of the name or the start of the username or e-mail (at least 2 characters)',
      querystring: SearchQuery,
      response: { 200: UserSearchSchema, ...errorResponses(401, 403, 503) },
    },
  }, async (request) => await admin.search(request.query.q));

  app.get(`${BASE}/access`, {
    schema: {
      tags: TAGS,
      summary: 'Get the id, name, username and e-mail of every user (readable by every signed-in person)',
      response: { 200: AccessSchema, ...errorResponses(401, 403, 503) },
    },
  }, async () => await admin.access());

  app.get(`${BASE}/admin-count`, {
    config: { permission: 'ADMIN' },
    schema: {
      tags: TAGS,
      summary: 'Count the admins with and without a password, and admin service accounts',
      response: { 200: AdminCountSchema, ...errorResponses(401, 403, 503) },
    },
  }, async () => await admin.adminCount());

  app.get(`${BASE}/inactive`, {
    config: { permission: 'ADMIN' },
    schema: {
      tags: TAGS,
      summary: 'Get the users neither created nor seen in 180 days',
      response: { 200: InactiveUsersSchema, ...errorResponses(401, 403, 503) },
    },
  }, async () => await admin.inactive());

  app.post(`${BASE}/inactive/delete`, {
    config: { permission: 'ADMIN' },
    preValidation: limited,
    schema: {
      tags: TAGS,
      summary: 'Delete the listed users, except yourself (whatever their activity); an unknown id stops with a 404',
      body: IdsBody,
      response: { 200: NoBody, ...errorResponses(...ADMIN_ERRORS, 404, 429) },
    },
  }, async (request, reply) => {
    await admin.deleteMany(request.body.ids, auditOf(request));
    return reply.code(200).send(undefined);
  });

  app.post(`${BASE}/validate-password`, {
    config: { permission: ANY_ROLE },
    preValidation: limited,
    schema: {
      tags: TAGS,
      summary: 'Check a password against the strength rules (200, or 400 naming the problems)',
      body: AdminPasswordBody,
      response: { 200: NoBody, ...errorResponses(...ADMIN_ERRORS, 429) },
    },
  }, async (request, reply) => {
    passwords.validate(request.body.password);
    return reply.code(200).send(undefined);
  });

  app.post(`${BASE}/reset-password`, {
    config: { permission: 'ADMIN' },
    preValidation: limited,
    schema: {
      tags: TAGS,
      summary: 'Make a reset link (24 hours) for the user with this e-mail; one a minute per user',
      body: ResetPasswordBody,
      response: { 200: ResetPasswordSchema, ...errorResponses(...ADMIN_ERRORS, 404, 429) },
    },
  }, async (request) => ({ resetPasswordUrl: await passwords.resetLink(request.body.id, auditOf(request).name) }));

  app.post(`${BASE}/:id/change-password`, {
    config: { permission: 'ADMIN' },
    preValidation: limited,
    schema: {
      tags: TAGS,
      summary: 'Set a user\'s password; ends the user\'s sessions and links',
      params: UserIdParams,
      body: AdminPasswordBody,
      response: { 200: NoBody, ...errorResponses(...ADMIN_ERRORS, 404, 429) },
    },
  }, async (request, reply) => {
    await passwords.change(request.params.id, request.body.password);
    return reply.code(200).send(undefined);
  });

  app.delete(`${BASE}/scim-users`, {
    config: { permission: 'ADMIN' },
    schema: {
      tags: TAGS,
      summary: 'Delete every user managed by SCIM: none in the open-source server (200)',
      response: { 200: NoBody, ...errorResponses(401, 403, 503) },
    },
  }, async (_request, reply) => reply.code(200).send(undefined));

  app.get(`${BASE}/:id`, {
    config: { permission: 'ADMIN' },
    schema: {
      tags: TAGS,
      summary: 'Get a user with its root role',
      params: UserIdParams,
      response: { 200: AdminUserSchema, ...errorResponses(400, 401, 403, 404, 503) },
    },
  }, async (request) => await admin.get(request.params.id));

  app.put(`${BASE}/:id`, {
    config: { permission: 'ADMIN' },
    schema: {
      tags: TAGS,
      summary: 'Change a user\'s name, e-mail or root role (those given); `user-updated` unless nothing changed',
      params: UserIdParams,
      body: UpdateUserBody,
      response: { 200: AdminUserSchema, ...errorResponses(...ADMIN_ERRORS, 404) },
    },
  }, async (request) => await admin.update(request.params.id, request.body, auditOf(request)));

  app.delete(`${BASE}/:id`, {
    config: { permission: 'ADMIN' },
    schema: {
      tags: TAGS,
      summary: 'Delete a user: its sessions end and its personal access tokens and links stop working',
      params: UserIdParams,
      response: { 200: NoBody, ...errorResponses(400, 401, 403, 404, 503) },
    },
  }, async (request, reply) => {
    await admin.delete(request.params.id, auditOf(request));
    return reply.code(200).send(undefined);
  });
};

export default userAdminRoutes;
