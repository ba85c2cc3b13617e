/**
 * CORS for the APIs browser SDKs call (the frontend API, OFREP), as an `onRequest` hook for the
 * plugin that serves them: `origins` is `*` or a comma-separated list (FRONTEND_API_ORIGINS). A
 * preflight is answered here, before authentication (browsers send it without credentials), and
 * `done` is not called for it. Callback style: no promise per request.
 */
export function sdkCors(origins) {
    const anyOrigin = origins.trim() === '*';
    const allowed = new Set(origins.split(',').map((o) => o.trim()).filter(Boolean));
    return (request, reply, done) => {
        const origin = request.headers.origin;
        reply.header('vary', 'Origin');
        if (anyOrigin)
            reply.header('access-control-allow-origin', '*');
        else if (origin !== undefined && allowed.has(origin))
            reply.header('access-control-allow-origin', origin);
        else if (request.method !== 'OPTIONS')
            return done();
        else
            return void reply.code(204).send();
        reply.header('access-control-allow-credentials', 'true');
        reply.header('access-control-expose-headers', 'ETag');
        if (request.method !== 'OPTIONS')
            return done();
        reply.header('access-control-allow-methods', 'GET,HEAD,PUT,PATCH,POST,DELETE');
        const headers = request.headers['access-control-request-headers'];
        if (headers)
            reply.header('access-control-allow-headers', headers);
        reply.header('access-control-max-age', '86400');
        reply.code(204).send();
    };
}
//# sourceMappingURL=sdk-cors.js.map