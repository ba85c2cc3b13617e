import { readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';

/**
 * The official Unleash admin UI at `/`: its files as they are in the build (package.ts fetches
 * it), and its index.html, placeholders filled as Unleash's server fills them, for `/` and every
 * other GET outside /api/ that nothing else answers (the UI routes on the client; set as the
 * not-found handler's page fallback by index.ts, on the root instance).
 */

export interface AdminUiOptions {
  /** The extracted build (index.html, static/, …). */
  buildDir: string;
  page: UiPage;
}

/**
 * Vane serves the UI at the root: no base path, no CDN, no UI flags of its own and no frontend
 * token for the UI's own flags (Unleash's defaults). Unleash encodes its default flags, the
 * string `'{}'`, as JSON then URI: `%22%7B%7D%22`, which the UI reads as no flags.
 */
export function fillIndex(html: string, { baseUriPath = '', cdnPrefix = '', uiFlags = JSON.stringify('{}'), unleashToken = '' } = {}): string {
  return html
    .replace(/::baseUriPath::/gi, baseUriPath)
    .replace(/::cdnPrefix::/gi, cdnPrefix)
    .replace(/::faviconPrefix::/gi, cdnPrefix)
    .replace(/::uiFlags::/gi, encodeURI(uiFlags))
    .replace(/::unleashToken::/gi, unleashToken)
    .replace(/\/static/gi, `${cdnPrefix || baseUriPath}/static`);
}

/**
 * The UI needs inline styles (its components style themselves at run time) and Google's fonts
 * (which it links from index.html); scripts only from here.
 */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline' https://fonts.googleapis.com; " +
    "font-src 'self' data: https://fonts.gstatic.com; img-src 'self' data: https:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-cache',
};

/** Files under /static/ carry their content's hash in their names: cached for a year, never revalidated. */
const HASHED = '/static/';

/** Sends the UI's page (index.html, filled) with `status`. */
export type UiPage = (reply: FastifyReply, status?: number) => FastifyReply;

export function uiPage(buildDir: string): UiPage {
  const index = fillIndex(readFileSync(join(buildDir, 'index.html'), 'utf8'));
  return (reply, status = 200) => reply.code(status).headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(index);
}

/** As Unleash does, a path with an extension (a file that is not there) is a 404 that still carries the page. */
export function fallbackStatus(path: string): number {
  return extname(path) !== '' ? 404 : 200;
}

const adminUiRoutes: FastifyPluginAsync<AdminUiOptions> = async (app, { buildDir, page }) => {

  await app.register(fastifyStatic, {
    root: buildDir,
    prefix: '/',
    // One route per file, found now: every other path reaches the fallback below.
    wildcard: false,
    index: false,
    decorateReply: false,
    globIgnore: ['**/index.html', '**/.source', '**/*.br', '**/*.gz'],
    preCompressed: true,
    setHeaders: (res, path) => {
      res.header('x-content-type-options', 'nosniff');
      if (path.includes(HASHED)) res.header('cache-control', 'public, max-age=31536000, immutable');
    },
  });

  for (const url of ['/', '/index.html']) app.get(url, { config: { public: true }, schema: { hide: true } }, async (_request, reply) => page(reply));
};

export default adminUiRoutes;
