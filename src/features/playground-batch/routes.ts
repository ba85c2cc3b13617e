import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { Readable } from 'node:stream';
import { ApiError, unknownError, validationError } from '../../errors.js';
import { errorResponses } from '../../schemas/common.js';
import { ndjsonChunks, type ContextCheck } from './ndjson.js';
import { BatchBody, BatchQuery, BatchRecord, BatchResponse, ImpactBody, ImpactExample, ImpactParams, ImpactResponse, NdjsonContexts } from './schemas.js';
import { BATCH_RECORDS_PER_TASK, type BatchRequest, type Format, type ImpactInput, type PlaygroundBatchService } from './service.js';
import { requestBudget } from '../playground/budget.js';
import { PlaygroundContext } from '../playground/schemas.js';

const NDJSON = 'application/x-ndjson';
const JSON_TYPE = 'application/json; charset=utf-8';
/** A JSON batch body is parsed whole: 256 MiB is ~2.5 M small contexts; beyond, send NDJSON. */
const JSON_BODY_LIMIT = 256 * 1024 * 1024;
const ENVIRONMENT = /^[a-zA-Z0-9~_.-]+$/;

function formatOf(request: FastifyRequest): Format {
  return (request.headers.accept ?? '').includes(NDJSON) ? 'ndjson' : 'json';
}

/**
 * Sends ordered pieces as they come. The first piece is awaited before anything is sent, so an
 * error found up to then is an ordinary 4xx; a later one can only end the answer, with an
 * `error` member (JSON, `closing` closes what is open) or line (NDJSON).
 */
async function sendStream(
  request: FastifyRequest,
  reply: FastifyReply,
  format: Format,
  closing: string,
  produce: (signal: AbortSignal) => Promise<AsyncGenerator<Buffer>> | AsyncGenerator<Buffer>,
): Promise<FastifyReply> {
  const budget = requestBudget(reply);
  let pieces: AsyncGenerator<Buffer>;
  let first: IteratorResult<Buffer>;
  try {
    pieces = await produce(budget.signal);
    first = await pieces.next();
  } catch (err) {
    budget.done();
    throw err;
  }
  async function* body(): AsyncGenerator<Buffer> {
    if (!first.done) yield first.value;
    try {
      while (true) {
        const next = await pieces.next();
        if (next.done) break;
        yield next.value;
      }
    } catch (err) {
      if (budget.signal.aborted) return;
      const error = err instanceof ApiError ? err : unknownError();
      if (!(err instanceof ApiError)) request.log.error({ err }, 'batch evaluation failed');
      const json = JSON.stringify(error.toJSON());
      yield Buffer.from(format === 'ndjson' ? `{"error":${json}}\n` : `${closing}"error":${json}}`);
    } finally {
      await pieces.return(undefined);
    }
  }
  // Up to 16 MiB of finished pieces may wait for the socket (a few 5 MB task results): with the
  // default 16 KiB the producer stalled on every piece and the workers sat idle ~20 % of the
  // time (measured with --cpu-prof on the batch bench). Still bounded whatever the request size.
  const stream = Readable.from(body(), { objectMode: false, highWaterMark: 16 * 1024 * 1024 });
  stream.once('close', () => budget.done());
  return reply.type(format === 'ndjson' ? NDJSON : JSON_TYPE).send(stream);
}

/** The route's own context validator (the same coercion as JSON bodies), naming `contexts[i].field`. */
function contextCheck(request: FastifyRequest): ContextCheck {
  const validate = request.compileValidationSchema(PlaygroundContext, 'body');
  return (context, index) => {
    if (validate(context)) return;
    const error = validate.errors?.[0];
    const field = error?.keyword === 'required'
      ? `.${String((error.params as { missingProperty?: unknown }).missingProperty)}`
      : (error?.instancePath ?? '').replace(/\//g, '.');
    const message = error?.keyword === 'required' ? 'is required' : (error?.message ?? 'is invalid');
    throw validationError(`contexts[${index}]${field} ${message}`);
  };
}

function listQuery(value: string | undefined, name: string): string[] | undefined {
  if (value === undefined) return undefined;
  const items = value.split(',').map((item) => item.trim()).filter(Boolean);
  if (name === 'environments' && items.some((item) => !ENVIRONMENT.test(item))) {
    throw validationError(`environments (query) must be comma-separated environment names; got ${JSON.stringify(value)}`);
  }
  return items;
}

function batchRequest(request: FastifyRequest, query: Static<typeof BatchQuery>): BatchRequest {
  if (request.body instanceof Readable) {
    const environments = listQuery(query.environments, 'environments');
    if (!environments || environments.length === 0) throw validationError('environments (query) is required with an NDJSON body');
    const projects = query.projects === undefined || query.projects.trim() === '*' ? '*' : listQuery(query.projects, 'projects');
    return { environments, projects, contexts: ndjsonChunks(request.body, BATCH_RECORDS_PER_TASK, contextCheck(request)) };
  }
  // Fastify validated the JSON body against BatchBody (the route's content-type map); the type
  // provider infers no type for a per-content-type body, so this is where it is named.
  return request.body as BatchRequest;
}

function impactInput(body: Static<typeof ImpactBody>): ImpactInput {
  const given = (['contexts', 'context', 'population'] as const).filter((key) => body[key] !== undefined);
  const exactlyOne = 'Provide exactly one of contexts, context or population';
  if (given.length > 1) throw validationError(exactlyOne);
  if (body.population) {
    for (const [key, axis] of Object.entries(body.population)) {
      if (!Array.isArray(axis) && axis.to < axis.from) throw validationError(`population.${key}.to must not be less than population.${key}.from`);
      if (key === 'properties.') throw validationError('population key "properties." names no property');
    }
    return { population: body.population };
  }
  if (body.contexts) return { contexts: body.contexts };
  if (body.context) return { context: body.context };
  throw validationError(exactlyOne);
}

const playgroundBatchRoutes: FastifyPluginAsyncTypebox<{ service: PlaygroundBatchService; timeoutMs: number }> = async (app, { service, timeoutMs }) => {
  // NDJSON bodies reach the handler as the request stream itself (this plugin's scope only).
  app.addContentTypeParser(NDJSON, (_request, payload, done) => done(null, payload));

  app.post('/api/admin/playground/batch', {
    bodyLimit: JSON_BODY_LIMIT,
    schema: {
      tags: ['Playground'],
      summary: 'Evaluate a list of explicit contexts in several environments: isEnabled and variant per flag',
      description:
        'One record per (context, environment), in context order: `{"context": <index>, "environment", "flags": {"<name>": {"enabled", "variant"}}}`. ' +
        'As one JSON document, or with `Accept: application/x-ndjson` one record per line; either way streamed as produced. ' +
        'The body may be NDJSON (`Content-Type: application/x-ndjson`, one context per line, environments and projects in the query). ' +
        'At most PLAYGROUND_BATCH_LIMIT evaluations (contexts × flags × environments).',
      querystring: BatchQuery,
      body: { content: { 'application/json': { schema: BatchBody }, [NDJSON]: { schema: NdjsonContexts } } },
      response: {
        200: { content: { 'application/json': { schema: BatchResponse }, [NDJSON]: { schema: BatchRecord } } },
        ...errorResponses(400, 401, 403, 415, 500, 503),
      },
    },
  }, async (request, reply) => {
    const format = formatOf(request);
    const input = batchRequest(request, request.query);
    return await sendStream(request, reply, format, '],', (signal) => service.batch(input, format, signal));
  });

  app.post('/api/admin/playground/change-request/:id/impact', {
    bodyLimit: JSON_BODY_LIMIT,
    schema: {
      tags: ['Playground'],
      summary: 'Which contexts a change request turns on or off: every context decided before and with the change request applied',
      description:
        'Evaluates the contexts in the change request\'s environment and project twice — current state and with its changes applied as the ' +
        'preview applies them — from one snapshot revision. Only flags where something changes are listed (plus flags it archives), ' +
        'with at most 5 examples each. With `Accept: application/x-ndjson`, each changed (context, flag) as a line.',
      params: ImpactParams,
      body: ImpactBody,
      response: {
        200: { content: { 'application/json': { schema: ImpactResponse }, [NDJSON]: { schema: ImpactExample } } },
        ...errorResponses(400, 401, 403, 404, 415, 500, 503),
      },
    },
  }, async (request, reply) => {
    const input = impactInput(request.body);
    const id = request.params.id;
    if (formatOf(request) === 'ndjson') {
      return await sendStream(request, reply, 'ndjson', '', (signal) => service.impact(id, input, 'ndjson', signal));
    }
    const budget = requestBudget(reply, timeoutMs);
    try {
      const answer = await service.impact(id, input, 'json', budget.signal);
      return reply.type(JSON_TYPE).send(answer);
    } finally {
      budget.done();
    }
  });
};

export default playgroundBatchRoutes;
