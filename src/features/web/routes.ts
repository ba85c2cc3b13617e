import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import fastifyStatic from '@fastify/static';
import { Type } from 'typebox';
import { errorResponses } from '../../schemas/common.js';
import type { InviteLinkService } from '../invite-links/service.js';
import { InviteTokenParams } from '../invite-links/schemas.js';

/** `web/` at the package root: from dist/src/features/web/ (and src/features/web/) four levels up. */
const WEB_ROOT = fileURLToPath(new URL('../../../../web/', import.meta.url));
const PAGES_DIR = join(WEB_ROOT, 'pages');

/**
 * Vane's own pages, under /vane/ (the paths at the root belong to the official UI when it is
 * served, features/admin-ui). They hold no data: each is static HTML whose script asks the API
 * with the session cookie, and goes to /vane/login when the API answers 401. Scripts and styles
 * come only from this server (the Content-Security-Policy forbids anything else, inline scripts
 * included).
 */
const PAGES: Record<string, string> = {
  '/login': 'login.html',
  '/new-user': 'new-user.html',
  '/playground': 'playground.html',
  '/flags': 'flags.html',
  '/admin/invite-links': 'invite-links.html',
  '/admin/events': 'events.html',
};
export const PAGES_PREFIX = '/vane';

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

export interface WebOptions {
  inviteLinks: InviteLinkService;
  /**
   * Whether the official UI owns the root paths. Without it, `/` and the pages' earlier paths
   * (`/login`, `/new-user?invite=…`: the links the API returns) redirect to Vane's pages.
   */
  officialUi: boolean;
}

const webRoutes: FastifyPluginAsyncTypebox<WebOptions> = async (app, { inviteLinks, officialUi }) => {
  await app.register(fastifyStatic, {
    root: join(WEB_ROOT, 'assets'),
    prefix: `${PAGES_PREFIX}/assets/`,
    // No hashed file names: browsers revalidate (ETag) instead of caching blindly.
    cacheControl: true,
    maxAge: 0,
    setHeaders: (res) => {
      res.header('x-content-type-options', 'nosniff');
    },
  });

  for (const [url, file] of Object.entries(PAGES)) {
    app.get(`${PAGES_PREFIX}${url}`, { config: { public: true }, schema: { hide: true } }, async (_request, reply: FastifyReply) => {
      return reply.headers(SECURITY_HEADERS).type('text/html; charset=utf-8').sendFile(file, PAGES_DIR);
    });
    if (!officialUi) {
      app.get(url, { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
        const query = request.url.indexOf('?');
        return reply.redirect(`${PAGES_PREFIX}${url}${query >= 0 ? request.url.slice(query) : ''}`);
      });
    }
  }
  if (!officialUi) {
    app.get('/', { config: { public: true }, schema: { hide: true } }, async (_request, reply) => reply.redirect(`${PAGES_PREFIX}/playground`));
  }
  app.get(PAGES_PREFIX, { config: { public: true }, schema: { hide: true } }, async (_request, reply) => reply.redirect(`${PAGES_PREFIX}/playground`));

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
