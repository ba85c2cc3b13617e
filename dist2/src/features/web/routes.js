import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import { Type } from 'typebox';
import { errorResponses } from '../../schemas/common.js';
import { InviteTokenParams } from '../invite-links/schemas.js';
/** `web/` at the package root: from dist/src/features/web/ (and src/features/web/) four levels up. */
const WEB_ROOT = fileURLToPath(new URL('../../../../web/', import.meta.url));
const PAGES_DIR = join(WEB_ROOT, 'pages');
/**
 * The pages hold no data: each is static HTML whose script asks the API with the session cookie,
 * and goes to /login when the API answers 401. Scripts and styles come only from this server
 * (the Content-Security-Policy forbids anything else, inline scripts included).
 */
const PAGES = {
    '/login': 'login.html',
    '/new-user': 'new-user.html',
    '/playground': 'playground.html',
    '/flags': 'flags.html',
    '/admin/invite-links': 'invite-links.html',
    '/admin/events': 'events.html',
};
const SECURITY_HEADERS = {
    'content-security-policy': "default-src 'self'; img-src 'self' data: https://gravatar.com; style-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
    'cache-control': 'no-cache',
};
const InviteInfo = Type.Object({
    usable: Type.Boolean({ description: 'Whether the link can be used to join now' }),
    createdBy: Type.String(),
    expiresAt: Type.String({ format: 'date-time' }),
    role: Type.String({ description: 'Root role given to people who join' }),
});
const webRoutes = async (app, { inviteLinks }) => {
    await app.register(fastifyStatic, {
        root: join(WEB_ROOT, 'assets'),
        prefix: '/assets/',
        // No hashed file names: browsers revalidate (ETag) instead of caching blindly.
        cacheControl: true,
        maxAge: 0,
        setHeaders: (res) => {
            res.header('x-content-type-options', 'nosniff');
        },
    });
    for (const [url, file] of Object.entries(PAGES)) {
        app.get(url, { config: { public: true }, schema: { hide: true } }, async (_request, reply) => {
            return reply.headers(SECURITY_HEADERS).type('text/html; charset=utf-8').sendFile(file, PAGES_DIR);
        });
    }
    app.get('/', { config: { public: true }, schema: { hide: true } }, async (_request, reply) => reply.redirect('/playground'));
    // What the sign-up page shows before anyone is signed in: who invited, until when, which role.
    // The secret is 128 random bits, so this reveals nothing to someone without the link.
    app.get('/auth/invite/:token', {
        config: { public: true },
        schema: {
            tags: ['Invite links'],
            summary: 'Public facts about an invite link for the sign-up page: who created it, its expiry, the role it gives',
            params: InviteTokenParams,
            security: [],
            response: { 200: InviteInfo, ...errorResponses(404, 503) },
        },
    }, async (request) => {
        const link = await inviteLinks.get(request.params.token);
        return {
            usable: await inviteLinks.isValid(request.params.token),
            createdBy: link.createdBy,
            expiresAt: link.expiresAt,
            role: link.role.name,
        };
    });
};
export default webRoutes;
//# sourceMappingURL=routes.js.map