import fp from 'fastify-plugin';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, preValidationHookHandler } from 'fastify';
import {
  ApiError, asError, conflict, contentType, malformedJson, payloadTooLarge, routeNotFound, schemaValidationError, serviceUnavailable,
  unknownError, validationError, type ErrorDetail,
} from '../errors.js';
import { isDatabaseUnavailable } from './database.js';
import { ConcurrentModificationError } from '../db/outbox/index.js';

/** JSON bodies up to 500 kB, as Unleash accepts (docs/rules.md §1.2). */
export const BODY_LIMIT = 500 * 1024;

/**
 * Deepest nesting of arrays and objects a JSON body may have. No body of the API needs more than a
 * handful of levels; the validator, the store and the event log all recurse over bodies, and a
 * body nested 5 000 levels deep overflowed one of them (500). 64 leaves room for any payload.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * True when `text` nests arrays/objects deeper than `limit`. One pass over the characters, brackets
 * inside strings skipped; a body shorter than `limit` characters cannot be too deep, so small
 * bodies (most playground requests) skip the scan.
 */
export function jsonTooDeep(text: string, limit = MAX_JSON_DEPTH): boolean {
  if (text.length <= limit) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

export interface AjvError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
  data?: unknown;
}

/** `document`: a value checked after the request (a patched strategy), its pointers from its own root. */
const ROOTS: Record<string, string> = { body: '/body', querystring: '/query', params: '/params', headers: '/headers', document: '' };

/** Turns validator errors into Unleash's detail objects (docs/rules.md §1.3 table), in the validator's order. */
export function formatValidationErrors(errors: AjvError[], context: string): ErrorDetail[] {
  const root = ROOTS[context] ?? `/${context}`;
  return errors.map((error) => {
    const pointer = `${root}${error.instancePath}`;
    switch (error.keyword) {
      case 'required': {
        const path = `${pointer}/${String(error.params.missingProperty)}`;
        return { path, message: `The \`${path}\` property is required. It was not present on the data you sent.` };
      }
      case 'additionalProperties': {
        const path = `${pointer}/${String(error.params.additionalProperty)}`;
        const owner = pointer ? `\`${pointer}\` object` : 'root object';
        return {
          path,
          message: `The ${owner} of the request body does not allow additional properties. Your request included the \`${path}\` property.`,
        };
      }
      case 'enum': {
        const segment = pointer.split('/').pop() ?? '';
        const allowed = (error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ');
        return {
          message: `The \`${segment}\` property must be equal to one of the allowed values: ${allowed}. You provided ${JSON.stringify(error.data)}, which is not valid. Please use one of the allowed values instead..`,
          path: segment,
        };
      }
      case 'oneOf': {
        const owner = pointer ? `"${pointer}" property` : 'root object';
        return {
          message: `The ${owner} must match exactly one schema in oneOf. The data you provided matches more than one option in the schema. These options are mutually exclusive. Please refer back to the schema and remove any excess properties.`,
          path: pointer,
        };
      }
      default:
        return {
          message: `The \`${pointer}\` property ${error.message ?? 'is invalid'}. You sent ${JSON.stringify(error.data)}.`,
          path: pointer,
        };
    }
  });
}

/**
 * A route hook for the operations whose body Unleash 8.2 declares: a request without any body and
 * without a content type is refused with 415 there too (measured: POST /api/admin/metrics/applications/:appName
 * with nothing sent), not 400 for the missing body. Runs after the auth hook (rules §1.2 order).
 */
export const bodyNeedsContentType: preValidationHookHandler = (request, _reply, done) => {
  done(request.body === undefined && request.headers['content-type'] === undefined ? contentType(undefined) : undefined);
};

/** Marks a body that arrived with a content type Vane does not read; refused with 415 after auth. */
export const UNSUPPORTED_BODY = Symbol('unsupported-body');

function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.code(error.statusCode).type('application/json; charset=utf-8').send(error.toJSON());
}

async function errorsPlugin(app: FastifyInstance): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_req, body, done) => {
    if (body === '' || body === undefined) {
      done(null, undefined);
      return;
    }
    if (jsonTooDeep(body as string)) {
      done(validationError(`The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`), undefined);
      return;
    }
    try {
      done(null, JSON.parse(body as string));
    } catch (err) {
      done(malformedJson((err as Error).message), undefined);
    }
  });
  // Anything else is read (bounded) and refused later with 415, after authentication (docs/rules.md §1.2 order).
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_req, body, done) => {
    done(null, (body as Buffer).length > 0 ? UNSUPPORTED_BODY : undefined);
  });

  app.decorate('sendError', sendError);

  app.decorate('pageFallback', undefined);
  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0] ?? request.url;
    if (path.startsWith('/api/')) await app.authenticate(request);
    else if (app.pageFallback && (request.method === 'GET' || request.method === 'HEAD')) return app.pageFallback(path, reply);
    return sendError(reply, routeNotFound(path));
  });

  app.setErrorHandler((error: FastifyError | ApiError | Error, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ApiError) return sendError(reply, error);
    const fe = error as FastifyError & { validation?: AjvError[]; validationContext?: string };
    if (fe.validation) {
      return sendError(reply, schemaValidationError(formatValidationErrors(fe.validation, fe.validationContext ?? 'body')));
    }
    if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendError(reply, payloadTooLarge(BODY_LIMIT));
    if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return sendError(reply, contentType(request.headers['content-type']));
    if (fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return sendError(reply, malformedJson('Unexpected end of JSON input'));
    if (error instanceof ConcurrentModificationError) {
      // Retried with back-off already (db/outbox retrying): another writer keeps winning.
      request.log.warn({ err: error }, 'write lost to concurrent writers after retries');
      return sendError(reply, conflict('The resource was changed by another request meanwhile. Read it again and retry.'));
    }
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, 'database unavailable');
      return sendError(reply, serviceUnavailable());
    }
    if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
      return sendError(reply, new ApiError(fe.name === 'FastifyError' ? 'BadRequestError' : fe.name, fe.statusCode, fe.message));
    }
    request.log.error({ err: error }, 'unexpected error');
    return sendError(reply, unknownError());
  });

  /** 415 for requests that carry a body in a content type other than JSON (docs/rules.md §1.2 step 5). */
  app.decorate('checkContentType', (request: FastifyRequest) => {
    if (request.body === UNSUPPORTED_BODY) throw contentType(request.headers['content-type']);
  });
  // Routes under /api check it in the auth hook, after authentication and permission.
  app.addHook('preValidation', (request, _reply, done) => {
    if ((request.routeOptions.url ?? '').startsWith('/api/')) return done();
    try {
      app.checkContentType(request);
      done();
    } catch (err) {
      done(asError(err));
    }
  });
}

declare module 'fastify' {
  interface FastifyInstance {
    sendError: typeof sendError;
    checkContentType(request: FastifyRequest): void;
    /** Answers a GET for an unknown path outside /api/ (the official UI's client-side routes), when set. */
    pageFallback: ((path: string, reply: FastifyReply) => FastifyReply) | undefined;
  }
}

export default fp(errorsPlugin, { name: 'errors' });
