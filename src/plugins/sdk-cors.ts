import type { onRequestHookHandler } from 'fastify';

/** `*` or a comma-separated list, or the list as it is now (set by an admin: `POST /api/admin/ui-config/cors`). */
export type Origins = string | (() => readonly string[]);

/** The allowed set of the current list, rebuilt only when the list (its identity) changes. */
function allowedOrigins(origins: Origins): () => { any: boolean; allowed: ReadonlySet<string> } {
  const of = (list: readonly string[]) => ({ any: list.includes('*'), allowed: new Set(list) });
  if (typeof origins === 'string') {
    const fixed = origins.trim() === '*' ? { any: true, allowed: new Set<string>() } : of(origins.split(',').map((o) => o.trim()).filter(Boolean));
    return () => fixed;
  }
  let list: readonly string[] | undefined;
  let current = of([]);
  return () => {
    const now = origins();
    if (now !== list) current = of((list = now));
    return current;
  };
}

/**
 * CORS for the APIs browser SDKs call (the frontend API, OFREP), as an `onRequest` hook for the
 * plugin that serves them: `origins` is `*` or a comma-separated list (FRONTEND_API_ORIGINS). A
 * preflight is answered here, before authentication (browsers send it without credentials), and
 * `done` is not called for it. Callback style: no promise per request.
 */
export function sdkCors(origins: Origins): onRequestHookHandler {
  const current = allowedOrigins(origins);
  return (request, reply, done) => {
    const { any: anyOrigin, allowed } = current();
    const origin = request.headers.origin;
    reply.header('vary', 'Origin');
    if (anyOrigin) reply.header('access-control-allow-origin', '*');
    else if (origin !== undefined && allowed.has(origin)) reply.header('access-control-allow-origin', origin);
    else if (request.method !== 'OPTIONS') return done();
    else return void reply.code(204).send();
    reply.header('access-control-allow-credentials', 'true');
    reply.header('access-control-expose-headers', 'ETag');
    if (request.method !== 'OPTIONS') return done();
    reply.header('access-control-allow-methods', 'GET,HEAD,PUT,PATCH,POST,DELETE');
    const headers = request.headers['access-control-request-headers'];
    if (headers) reply.header('access-control-allow-headers', headers);
    reply.header('access-control-max-age', '86400');
    reply.code(204).send();
  };
}
