import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { sdkCors, type Origins } from '../../plugins/sdk-cors.js';
import { errorResponses, preSerialized } from '../../schemas/common.js';
import { SDK_CONTEXT_FIELDS } from '../../schemas/sdk-context.js';
import { notModified, sdkScope, sendNotModified } from '../client-api/routes.js';
import type { SdkStateCache } from '../client-api/state.js';
import { MetricsBody } from '../metrics/schemas.js';
import type { MetricsService } from '../metrics/service.js';
import type { FrontendDispatcher } from './dispatch.js';
import { frontendContext, type FrontendAnswer } from './evaluate.js';

const TAGS = ['Frontend API'];

const TogglesSchema = Type.Object(
  {
    toggles: Type.Array(Type.Object({
      name: Type.String(),
      enabled: Type.Boolean(),
      variant: Type.Object({}, { additionalProperties: true, description: '{name, enabled, payload?, feature_enabled, featureEnabled}' }),
      impressionData: Type.Boolean(),
    })),
  },
  { description: 'Flags evaluated for the context; ETag and 304 as the client API' },
);
const ContextQuery = Type.Record(Type.String(), Type.Unknown(), { description: 'Context fields; properties[x]=… for custom ones' });
/** Unleash's `frontendApiFeaturesPostSchema`: the SDK context's fields, none required (docs/rules.md §9.1). */
const ContextBody = Type.Object(
  { context: Type.Optional(Type.Object({ appName: Type.Optional(Type.String({ minLength: 1 })), ...SDK_CONTEXT_FIELDS }, { additionalProperties: true })) },
  { additionalProperties: true },
);
const FrontendRegisterBody = Type.Object({ appName: Type.String({ minLength: 1 }) }, { additionalProperties: true });
const Ok = Type.String({ description: '"OK" (text/plain)' });

export interface FrontendOptions {
  states: SdkStateCache;
  /** Evaluates on the worker pool or the main thread (dispatch.ts). */
  dispatcher: FrontendDispatcher;
  metrics: MetricsService;
  /** `*` or a comma-separated list of allowed origins. */
  origins: Origins;
}

const frontendApiRoutes: FastifyPluginAsyncTypebox<FrontendOptions> = async (app, { states, dispatcher, metrics, origins }) => {
  // CORS for browser SDKs, the preflight answered before authentication.
  app.addHook('onRequest', sdkCors(origins));

  function send(request: FastifyRequest, reply: FastifyReply, { body, etag }: FrontendAnswer): void {
    reply.header('cache-control', 'no-cache');
    if (notModified(request, reply, etag)) return void sendNotModified(reply);
    reply.type('application/json; charset=utf-8').send(body);
  }

  /**
   * From a current state (after a commit, once it is rebuilt), evaluated where dispatch.ts
   * decides: no promise when answered in place.
   */
  function answer(request: FastifyRequest, reply: FastifyReply, input: Record<string, unknown>, all: boolean): void | Promise<void> {
    const answered = states.use((state) => {
      const { projects, environment } = sdkScope(request);
      return dispatcher.answer(state, { scope: { projects, environment }, context: frontendContext(input, request.ip), all });
    });
    if (answered instanceof Promise) return answered.then((a) => send(request, reply, a));
    send(request, reply, answered);
  }

  const FRONTEND = { tokenFamily: 'frontend' } as const;
  const RESPONSES = { 200: preSerialized(TogglesSchema), 304: Type.Null(), ...errorResponses(400, 401, 403, 415, 503) };
  for (const [path, all] of [['/api/frontend', false], ['/api/frontend/all', true]] as const) {
    const what = all ? 'Every flag (disabled ones too)' : 'The flags enabled';
    app.get(path, {
      config: FRONTEND,
      schema: { tags: TAGS, summary: `${what} for the context in the query`, querystring: ContextQuery, response: RESPONSES },
    }, (request, reply) => answer(request, reply, request.query, all));
    app.post(path, {
      config: FRONTEND,
      schema: { tags: TAGS, summary: `${what} for the context in the body`, body: ContextBody, response: RESPONSES },
    }, (request, reply) => answer(request, reply, request.body.context ?? {}, all));
    app.options(path, { config: FRONTEND, schema: { hide: true } }, async (_request, reply) => reply.code(204).send());
  }

  const ok = (reply: FastifyReply) => reply.code(200).type('text/plain; charset=utf-8').send('OK');

  app.post('/api/frontend/client/metrics', {
    config: FRONTEND,
    schema: { tags: TAGS, summary: 'Flag usage counted by a browser SDK', body: MetricsBody, response: { 200: Ok, ...errorResponses(400, 401, 403, 415, 503) } },
  }, async (request, reply) => {
    const { appName, bucket } = request.body;
    if (bucket) {
      const start = new Date(bucket.start);
      metrics.record(sdkScope(request).environment, appName, Number.isNaN(start.getTime()) ? new Date() : start, bucket.toggles);
    }
    return ok(reply);
  });

  app.post('/api/frontend/client/register', {
    config: FRONTEND,
    schema: { tags: TAGS, summary: 'A browser SDK announces itself (acknowledged; not listed as an application, as in Unleash)', body: FrontendRegisterBody, response: { 200: Ok, ...errorResponses(400, 401, 403, 415, 503) } },
  }, async (_request, reply) => ok(reply));
  for (const path of ['/api/frontend/client/metrics', '/api/frontend/client/register']) {
    app.options(path, { config: FRONTEND, schema: { hide: true } }, async (_request, reply) => reply.code(204).send());
  }
};

export default frontendApiRoutes;
