import rateLimit from '@fastify/rate-limit';
import { ApiError } from '../../errors.js';
import { auditOf } from '../shared.js';
import { ADMIN_ERRORS, EmptyResponse, errorResponses } from '../../schemas/common.js';
import { UserSchema } from '../users/schemas.js';
import { CreateInviteLinkBody, InviteLinkListSchema, InviteLinkSchema, InviteTokenParams, SignupBody, UpdateInviteLinkBody, } from './schemas.js';
const TAGS = ['Invite links'];
/** The join flow answers with a status and no body at all (as Unleash does), not `null`. */
function empty(reply, status) {
    return reply.code(status).send();
}
/** Admin routes under /api/admin/invite-link (permission ADMIN), then the public join flow. */
const inviteLinkRoutes = async (app, { service }) => {
    app.post('/api/admin/invite-link/tokens', {
        config: { permission: 'ADMIN' },
        schema: {
            tags: TAGS,
            summary: 'Create an invite link (public signup token); people who join get the Viewer root role',
            body: CreateInviteLinkBody,
            response: { 201: InviteLinkSchema, ...errorResponses(...ADMIN_ERRORS) },
        },
    }, async (request, reply) => {
        const token = await service.create(request.body, auditOf(request));
        reply.code(201).header('location', `tokens/${token.secret}`);
        return token;
    });
    app.get('/api/admin/invite-link/tokens', {
        config: { permission: 'ADMIN' },
        schema: {
            tags: TAGS,
            summary: 'List invite links in creation order',
            response: { 200: InviteLinkListSchema, ...errorResponses(401, 403, 503) },
        },
    }, async () => ({ tokens: await service.list() }));
    app.get('/api/admin/invite-link/tokens/:token', {
        config: { permission: 'ADMIN' },
        schema: {
            tags: TAGS,
            summary: 'Get one invite link with the users who joined through it',
            params: InviteTokenParams,
            response: { 200: InviteLinkSchema, ...errorResponses(401, 403, 404, 503) },
        },
    }, async (request) => await service.get(request.params.token));
    app.put('/api/admin/invite-link/tokens/:token', {
        config: { permission: 'ADMIN' },
        schema: {
            tags: TAGS,
            summary: 'Rename an invite link, change its expiry (not capped) or enable/disable it',
            params: InviteTokenParams,
            body: UpdateInviteLinkBody,
            response: { 200: InviteLinkSchema, ...errorResponses(...ADMIN_ERRORS, 404) },
        },
    }, async (request) => await service.update(request.params.token, request.body, auditOf(request)));
    await app.register(publicInviteRoutes, { service });
};
/**
 * The join flow: outside /api, no credential. Signups are rate-limited per client address
 * (SIGNUP_RATE_LIMIT per minute); the limiter is registered in this plugin only.
 */
const publicInviteRoutes = async (app, { service }) => {
    const max = app.config.SIGNUP_RATE_LIMIT;
    await app.register(rateLimit, {
        global: false,
        errorResponseBuilder: (_request, context) => new ApiError('TooManyRequestsError', context.statusCode, `Too many signups from your address: at most ${max} per minute are allowed. Try again in ${context.after}.`),
    });
    app.get('/invite/:token/validate', {
        config: { public: true },
        schema: {
            tags: TAGS,
            summary: 'Check an invite link: 200 when it can be used to join, 400 (empty) otherwise',
            params: InviteTokenParams,
            security: [],
            response: { 200: EmptyResponse, 400: EmptyResponse, ...errorResponses(503) },
        },
    }, async (request, reply) => {
        const valid = await service.isValid(request.params.token);
        return empty(reply, valid ? 200 : 400);
    });
    app.post('/invite/:token/signup', {
        config: { public: true, rateLimit: { max, timeWindow: 60_000 } },
        schema: {
            tags: TAGS,
            summary: 'Join through an invite link: creates a user with the link\'s role (Viewer). 400 with an empty body when the link cannot be used',
            params: InviteTokenParams,
            body: SignupBody,
            security: [],
            response: { 201: UserSchema, ...errorResponses(400, 415, 429, 503) },
        },
    }, async (request, reply) => {
        const user = await service.join(request.params.token, request.body);
        if (!user)
            return empty(reply, 400);
        return reply.code(201).send(user);
    });
};
export default inviteLinkRoutes;
//# sourceMappingURL=routes.js.map