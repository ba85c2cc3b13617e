import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { unauthorized } from '../../errors.js';
import type { SdkPrincipal } from '../../plugins/auth.js';
import { Type } from 'typebox';
import { errorResponses, preSerialized } from '../../schemas/common.js';
import type { TokenScope } from './features.js';
import {
  ClientFeatureSchema, ClientFeaturesQuery, ClientFeaturesSchema, DeltaSchema, FeatureNameParams, NotModified, type DeltaBody,
} from './schemas.js';
import type { ClientFeaturesService } from './service.js';
import type { DeltaService } from './streaming.js';
import { deltaScope } from './delta.js';

const TAGS = ['Client API'];

/** The scope of the SDK token that authenticated the request (the auth hook has checked its type). */
export function sdkScope(request: FastifyRequest): TokenScope & { principal: SdkPrincipal } {
  const principal = request.principal;
  if (!principal || (principal.kind !== 'client-token' && principal.kind !== 'frontend-token')) throw unauthorized();
  return { projects: principal.projects, environment: principal.environment, principal };
}

function list(value: string | string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(',')).filter((v) => v !== '');
}

/** The client specification version the SDK declares (Node joins a repeated header into one string). */
function clientSpec(request: FastifyRequest): string | undefined {
  const header = request.headers['unleash-client-spec'];
  return typeof header === 'string' ? header : undefined;
}

function acceptsGzip(request: FastifyRequest): boolean {
  const header = request.headers['accept-encoding'];
  return typeof header === 'string' && /\bgzip\b/i.test(header);
}

/** 304 when the client's If-None-Match names this ETag (a list or `*` too, RFC 9110 §13.1.2). */
export function notModified(request: FastifyRequest, reply: FastifyReply, etag: string): boolean {
  reply.header('etag', etag);
  const header = request.headers['if-none-match'];
  if (typeof header !== 'string') return false;
  // SDKs send back exactly the ETag they got: that comparison first, the list syntax only otherwise.
  const match = header === etag || header.trim() === '*' || header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
  if (match) reply.code(304);
  return match;
}

/**
 * 304 with no body at all: `send(null)` would serialise "null" and declare content-length 4, which
 * a client waits for in vain on a keep-alive connection (found by bench/sdk.ts C2).
 */
export function sendNotModified(reply: FastifyReply): FastifyReply {
  return reply.code(304).send();
}

const clientApiRoutes: FastifyPluginAsyncTypebox<{ service: ClientFeaturesService; delta: DeltaService }> = async (app, { service, delta }) => {
  app.get('/api/client/delta', {
    config: { tokenFamily: 'client' },
    schema: {
      tags: TAGS,
      summary: 'Changes since the event id in If-None-Match ("<eventId>"), or a hydration; 304 when none',
      querystring: ClientFeaturesQuery,
      response: { 200: preSerialized(DeltaSchema), 304: NotModified, ...errorResponses(401, 403, 503) },
    },
  }, async (request, reply) => {
    const scope = deltaScope(sdkScope(request), { project: list(request.query.project), namePrefix: request.query.namePrefix });
    const state = await delta.current();
    const etag = `"${delta.log.eventId}"`;
    reply.header('etag', etag);
    const header = request.headers['if-none-match'];
    const since = typeof header === 'string' ? Number(header.replace(/^W\//, '').replace(/"/g, '').trim()) : NaN;
    let body: DeltaBody;
    if (Number.isInteger(since) && delta.log.knows(since)) {
      const events = delta.log.eventsSince(state, scope, since);
      if (events.length === 0) return sendNotModified(reply);
      body = { events };
    } else body = delta.log.hydration(state, scope);
    // JSON.stringify, as the stream writes the same events: the union schema would make the
    // serializer validate every event against each branch to pick one.
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(body));
  });

  app.get('/api/client/streaming', {
    config: { tokenFamily: 'client' },
    schema: {
      tags: TAGS,
      summary: 'Server-sent events: unleash-connected (hydration), then unleash-updated; Last-Event-ID honoured',
      response: { 200: Type.String({ description: 'text/event-stream' }), ...errorResponses(401, 403, 503) },
    },
  }, async (request, reply) => {
    const scope = sdkScope(request);
    // Read the state before hijacking, so a database outage is still a normal 503 answer.
    await delta.current();
    reply.hijack();
    const last = request.headers['last-event-id'];
    await delta.open(reply.raw, scope, typeof last === 'string' ? last : undefined).catch((err: unknown) => {
      request.log.warn({ err }, 'stream failed');
      reply.raw.destroy();
    });
  });

  app.get('/api/client/features', {
    config: { tokenFamily: 'client' },
    schema: {
      tags: TAGS,
      summary: 'The flags a client (backend) token sees in its environment',
      querystring: ClientFeaturesQuery,
      response: { 200: preSerialized(ClientFeaturesSchema), 304: NotModified, ...errorResponses(400, 401, 403, 503) },
    },
  }, (request, reply) => service.states.use((state) => {
    const query = request.query;
    const filters = { project: list(query.project), namePrefix: query.namePrefix, tag: list(query.tag) };
    const body = service.features(state, sdkScope(request), filters, clientSpec(request));
    reply.header('vary', 'Accept-Encoding');
    if (notModified(request, reply, body.etag)) return void sendNotModified(reply);
    reply.type('application/json; charset=utf-8');
    const gzip = acceptsGzip(request) ? service.compressed(body) : undefined;
    if (gzip) reply.header('content-encoding', 'gzip').send(gzip);
    else reply.send(body.json);
  }));

  app.get('/api/client/features/:featureName', {
    config: { tokenFamily: 'client' },
    schema: {
      tags: TAGS,
      summary: 'One flag as a client token sees it',
      params: FeatureNameParams,
      response: { 200: preSerialized(ClientFeatureSchema), 304: NotModified, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request, reply) => {
    const body = await service.feature(
      sdkScope(request), request.params.featureName, clientSpec(request),
    );
    if (notModified(request, reply, body.etag)) return sendNotModified(reply);
    reply.type('application/json; charset=utf-8');
    return reply.send(body.json);
  });
};

export default clientApiRoutes;
