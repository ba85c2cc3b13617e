import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Readable } from 'node:stream';
import { errorResponses } from '../../schemas/common.js';
import {
  AdvancedPlaygroundBody, AdvancedPlaygroundResponse, DeprecatedPlaygroundBody, DeprecatedPlaygroundResponse,
} from './schemas.js';
import { requestBudget } from './budget.js';
import { BufferedAnswer, type PlaygroundService } from './service.js';

/**
 * A buffered answer's pieces as the stream Fastify pipes into the response: written in one corked
 * burst, so the ~1 500 pieces of a bench:playground S2 answer leave in a few writev calls instead of one write
 * system call each (Readable.from fed them to the socket one by one). The pieces are all in memory
 * already, so there is no backpressure to honour. The stream then ends normally, which is what
 * Fastify waits for before it considers the reply done.
 */
class CorkedPieces extends Readable {
  constructor(private readonly parts: readonly Buffer[]) {
    super();
  }

  override _read(): void {}

  override pipe<T extends NodeJS.WritableStream>(destination: T): T {
    // Fastify pipes into the response (a Writable, which corks); the interface pipe() is declared
    // with does not promise cork(), so it is looked for rather than assumed.
    if ('cork' in destination && typeof destination.cork === 'function') (destination as { cork(): void }).cork();
    for (const part of this.parts) destination.write(part);
    destination.end();
    this.push(null);
    this.resume();
    return destination;
  }
}

/** Responses arrive from the workers as finished JSON bytes and are sent as they are. */
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Runs one evaluation under the request's budget and sends the workers' output as-is; a streamed
 * answer keeps its budget until the last byte is out.
 */
export async function answerWithinBudget(
  reply: FastifyReply,
  timeoutMs: number,
  evaluate: (signal: AbortSignal) => Promise<Buffer | BufferedAnswer | Readable>,
): Promise<FastifyReply> {
  const budget = requestBudget(reply, timeoutMs);
  let result: Buffer | BufferedAnswer | Readable;
  try {
    result = await evaluate(budget.signal);
  } catch (err) {
    budget.done();
    throw err;
  }
  if (Buffer.isBuffer(result)) {
    budget.done();
  } else if (result instanceof BufferedAnswer) {
    // Known length, so sent with Content-Length as one buffer would be, without joining the pieces.
    budget.done();
    // 'close' follows 'finish' (the last byte handed to the kernel) or the client going away:
    // either way nothing reads the pieces after it.
    reply.raw.once('close', result.release);
    reply.header('content-length', result.byteLength);
    result = new CorkedPieces(result.parts);
  } else {
    result.once('close', () => budget.done());
  }
  return reply.type(JSON_TYPE).send(result);
}

const playgroundRoutes: FastifyPluginAsyncTypebox<{ service: PlaygroundService; timeoutMs: number }> = async (app, { service, timeoutMs }) => {
  app.post('/api/admin/playground', {
    schema: {
      tags: ['Playground'],
      summary: 'Evaluate a context in one environment (deprecated)',
      deprecated: true,
      body: DeprecatedPlaygroundBody,
      response: { 200: DeprecatedPlaygroundResponse, ...errorResponses(400, 401, 403, 415, 500, 503) },
    },
  }, async (request, reply) => {
    const body = request.body;
    return await answerWithinBudget(reply, timeoutMs, (signal) => service.deprecated(body, JSON.stringify(request.body), signal));
  });

  app.post('/api/admin/playground/advanced', {
    schema: {
      tags: ['Playground'],
      summary: 'Evaluate a context in several environments, every comma-separated combination',
      body: AdvancedPlaygroundBody,
      response: { 200: AdvancedPlaygroundResponse, ...errorResponses(400, 401, 403, 415, 500, 503) },
    },
  }, async (request, reply) => {
    const body = request.body;
    return await answerWithinBudget(reply, timeoutMs, (signal) => service.advanced({
      environments: body.environments,
      projects: body.projects,
      context: body.context,
      inputJson: JSON.stringify(request.body),
    }, signal));
  });
};

export default playgroundRoutes;
