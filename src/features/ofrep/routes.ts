/**
 * OpenFeature's Remote Evaluation Protocol (OFREP 0.3) over Vane's flags: every OpenFeature SDK
 * with an OFREP provider evaluates against Vane with a frontend or client token. The mapping from
 * Unleash's flags is docs/rules.md §10.
 *
 * Outside `/api`, so the Unleash-shaped pipeline (src/plugins/auth.ts, the error body of rules §2.3)
 * does not apply: authentication is §10.1's (a preValidation hook here, after body parsing and
 * before validation, as §1.2 orders it), and every error, those raised by the shared plugins
 * included (a malformed body, a content type, the start-up 503), is answered in OFREP's shape by
 * this plugin's error handler.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyContextConfig, FastifyError, FastifyReply, FastifyRequest, preValidationHookHandler } from 'fastify';
import { Type } from 'typebox';
import { ApiError, asError, OfrepError, ofrepRateLimited, ofrepUnauthorized, type OfrepErrorCode } from '../../errors.js';
import { sdkCors, type Origins } from '../../plugins/sdk-cors.js';
import { preSerialized } from '../../schemas/common.js';
import { notModified, sendNotModified } from '../client-api/routes.js';
import type { FrontendAnswer } from '../frontend-api/evaluate.js';
import {
  BulkHeaders, BulkOk, BulkQuery, EvaluationRequest, EvaluationSuccess, FlagKeyParams, NotModified, OFREP_TAGS, ofrepErrors,
  type EvaluationFailureBody,
} from './schemas.js';
import { EVENTS_PATH, type OfrepService } from './service.js';
import { authenticate, credential, type OfrepToken } from './tokens.js';

export interface OfrepOptions {
  service: OfrepService;
  /** FRONTEND_API_ORIGINS: browsers call OFREP as they call the frontend API. */
  origins: Origins;
  /** OFREP_RATE_LIMIT: evaluations per minute per client address and token; 0: no limit. */
  rateLimit: number;
}

const SINGLE = '/ofrep/v1/evaluate/flags/:key';
const BULK = '/ofrep/v1/evaluate/flags';
const EVENTS = `${EVENTS_PATH}/:streamKey`;

/** Either credential header OFREP providers send (the OpenAPI document's security schemes, src/plugins/docs.ts). */
const SECURITY: Array<Record<string, string[]>> = [{ ofrepBearer: [] }, { ofrepApiKey: [] }];

declare module 'fastify' {
  interface FastifyRequest {
    /** The token an OFREP request authenticated with (set by the OFREP plugin's hook). */
    ofrepToken: OfrepToken | null;
  }
}

/** What the validator's error says about where the body went wrong (Fastify's `validation` array). */
interface ValidationIssue {
  instancePath: string;
}

/**
 * OFREP's status and code for an error raised on its routes: OfrepErrors as they are; a body that
 * fails its schema is PARSE_ERROR, or INVALID_CONTEXT when the fault is in `context`; a body that
 * cannot be read (malformed JSON, too large, too deep, not JSON) is PARSE_ERROR with its status;
 * anything else keeps its status with GENERAL.
 */
function ofrepFailure(error: FastifyError | ApiError | OfrepError | Error): { status: number; code: OfrepErrorCode; details: string; headers: Record<string, string> } {
  if (error instanceof OfrepError) return { status: error.statusCode, code: error.errorCode, details: error.message, headers: error.headers };
  const fe = error as FastifyError & { validation?: ValidationIssue[]; validationContext?: string };
  if (fe.validation) {
    const inContext = fe.validationContext === 'body' && fe.validation.some((issue) => issue.instancePath.startsWith('/context'));
    return { status: 400, code: inContext ? 'INVALID_CONTEXT' : 'PARSE_ERROR', details: inContext ? `The context must be a JSON object: ${fe.message}` : fe.message, headers: {} };
  }
  if (error instanceof ApiError) {
    const unreadable = error.statusCode === 400 || error.statusCode === 413 || error.statusCode === 415;
    return { status: error.statusCode, code: unreadable ? 'PARSE_ERROR' : 'GENERAL', details: error.message, headers: error.headers };
  }
  if (fe.code?.startsWith('FST_ERR_CTP_')) return { status: fe.statusCode ?? 400, code: 'PARSE_ERROR', details: fe.message, headers: {} };
  return { status: 500, code: 'GENERAL', details: 'Unexpected error: the evaluation could not complete. It has been logged.', headers: {} };
}

/** The `key` path parameter as the error handler sees it (its request is not typed by a route's schema). */
function flagKeyOf(params: unknown): string | undefined {
  if (params === null || typeof params !== 'object' || !('key' in params)) return undefined;
  return typeof params.key === 'string' ? params.key : undefined;
}

const ofrepRoutes: FastifyPluginAsyncTypebox<OfrepOptions> = async (app, { service, origins, rateLimit: max }) => {
  app.addHook('onRequest', sdkCors(origins));

  app.decorateRequest('ofrepToken', null);
  // Callback style and without a promise: a token look-up is a map read (tokens.ts). A hook of the
  // two evaluation routes, not of the plugin: a plugin hook would ask `request.routeOptions`
  // which route it serves, and that getter builds an object on every call.
  const authenticated: preValidationHookHandler = (request, _reply, done) => {
    try {
      request.ofrepToken = authenticate(service.tokens, request.headers);
      done();
    } catch (err) {
      done(asError(err));
    }
  };

  app.setErrorHandler((error: FastifyError | Error, request, reply) => {
    const { status, code, details, headers } = ofrepFailure(error);
    if (status >= 500 && !(error instanceof ApiError)) request.log.error({ err: error }, 'OFREP evaluation failed');
    const body: EvaluationFailureBody = { errorCode: code, errorDetails: details };
    // The single-flag endpoint names its flag in every error (OFREP's evaluationFailure).
    const key = request.routeOptions.url === SINGLE ? flagKeyOf(request.params) : undefined;
    if (key !== undefined) body.key = key;
    for (const [name, value] of Object.entries(headers)) reply.header(name, value);
    return reply.code(status).type('application/json; charset=utf-8').send(body);
  });

  // Only when configured: the limiter adds its hook and headers to every evaluation.
  const limited = max > 0;
  if (limited) {
    await app.register(rateLimit, {
      global: false,
      keyGenerator: (request) => `${request.ip}\0${credential(request.headers) ?? ''}`,
      errorResponseBuilder: (_request, context) => ofrepRateLimited(max, Math.max(1, Math.ceil(context.ttl / 1000))),
    });
  }
  const config: FastifyContextConfig = limited ? { rateLimit: { max, timeWindow: 60_000 } } : {};

  function token(request: FastifyRequest): OfrepToken {
    if (request.ofrepToken === null) throw ofrepUnauthorized('Not authenticated');
    return request.ofrepToken;
  }

  function send(request: FastifyRequest, reply: FastifyReply, { body, etag }: FrontendAnswer): void {
    reply.header('cache-control', 'no-cache');
    if (notModified(request, reply, etag)) return void sendNotModified(reply);
    reply.type('application/json; charset=utf-8').send(body);
  }

  app.post(SINGLE, {
    config,
    preValidation: authenticated,
    schema: {
      tags: OFREP_TAGS,
      summary: 'Evaluate one flag for a context (server-side providers)',
      description: 'The flag as docs/rules.md §10 maps it: a boolean without variants; with variants the payload or the variant name. A flag the token does not see is 404 FLAG_NOT_FOUND.',
      params: FlagKeyParams,
      body: EvaluationRequest,
      security: SECURITY,
      response: { 200: preSerialized(EvaluationSuccess), ...ofrepErrors(400, 401, 403, 404, 413, 415, 429, 500, 503) },
    },
  }, (request, reply) => {
    const answered = service.one(token(request), request.params.key, request.body.context ?? {}, request.ip);
    const json = (body: string) => void reply.type('application/json; charset=utf-8').send(body);
    if (answered instanceof Promise) return answered.then(json);
    json(answered);
  });

  app.post(BULK, {
    config,
    preValidation: authenticated,
    schema: {
      tags: OFREP_TAGS,
      summary: 'Evaluate every flag of the token\'s projects for a context (client-side providers)',
      description: 'With an ETag; If-None-Match with the current one is a 304 with no body. `eventStreams` names a server-sent-event stream that says when to re-fetch.',
      querystring: BulkQuery,
      headers: BulkHeaders,
      body: EvaluationRequest,
      security: SECURITY,
      response: { 200: preSerialized(BulkOk), 304: NotModified, ...ofrepErrors(400, 401, 403, 413, 415, 429, 500, 503) },
    },
  }, (request, reply) => {
    const answered = service.bulk(token(request), request.body.context ?? {}, request.ip);
    if (answered instanceof Promise) return answered.then((answer) => send(request, reply, answer));
    send(request, reply, answered);
  });

  app.get(EVENTS, {
    schema: {
      tags: OFREP_TAGS,
      summary: 'Server-sent events: `{"type":"refetchEvaluation"}` when the token\'s flags may have changed',
      description: 'The URL comes from a bulk answer\'s `eventStreams`; its key stands for the token (EventSource sends no headers). Last-Event-ID older than the last event: a refetchEvaluation at once.',
      params: Type.Object({ streamKey: Type.String() }),
      security: [],
      response: { 200: Type.String({ description: 'text/event-stream' }), ...ofrepErrors(401, 503) },
    },
  }, async (request, reply) => {
    const scope = await service.streamScope(request.params.streamKey);
    if (scope === undefined) throw ofrepUnauthorized('The stream key names no live frontend or client token');
    reply.hijack();
    const last = request.headers['last-event-id'];
    await service.streams.open(reply.raw, reply.getHeaders(), scope, typeof last === 'string' ? last : undefined).catch((err: unknown) => {
      request.log.warn({ err }, 'OFREP event stream failed');
      reply.raw.destroy();
    });
  });

  for (const path of [SINGLE, BULK, EVENTS]) {
    app.options(path, { schema: { hide: true } }, async (_request, reply) => reply.code(204).send());
  }
};

export default ofrepRoutes;
