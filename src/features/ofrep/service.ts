/**
 * OFREP's evaluations from the SDK state (client-api/state.ts), as the frontend API answers: no
 * request reads the database. The bulk evaluation goes through a dispatcher like the frontend
 * API's (main thread or worker pool, frontend-api/dispatch.ts); a single flag is answered in place.
 */
import { ofrepFlagNotFound } from '../../errors.js';
import type { TokenScope } from '../client-api/features.js';
import type { SdkStateCache } from '../client-api/state.js';
import type { EvaluationDispatcher } from '../frontend-api/dispatch.js';
import { piece, type FrontendAnswer, type Piece } from '../frontend-api/evaluate.js';
import { evaluateOne, type OfrepQuestion } from './evaluate.js';
import type { OfrepEventStreams } from './events.js';
import { ofrepFrontendContext } from './mapping.js';
import { scopeOf, streamKey, tokenOfStream, type OfrepToken, type OfrepTokens } from './tokens.js';

/** Where the event streams are served, below the path Vane is reached at. */
export const EVENTS_PATH = '/ofrep/v1/events';

export class OfrepService {
  private readonly streamPieces = new WeakMap<OfrepToken, Piece>();

  constructor(
    private readonly states: SdkStateCache,
    private readonly dispatcher: EvaluationDispatcher<OfrepQuestion>,
    readonly tokens: OfrepTokens,
    readonly streams: OfrepEventStreams,
    /** The path of BASE_URL (`''` at the root): a reverse proxy that serves Vane below a path keeps it in the stream's URL. */
    private readonly basePath: string,
  ) {}

  /** Every flag of the token's scope for one context (docs/rules.md §10); the JSON body and its ETag. */
  bulk(token: OfrepToken, context: Readonly<Record<string, unknown>>, remoteAddress: string): FrontendAnswer | Promise<FrontendAnswer> {
    const question: OfrepQuestion = {
      scope: scopeOf(token),
      context: ofrepFrontendContext(context, remoteAddress),
      streams: this.eventStreams(token),
    };
    return this.states.use((state) => this.dispatcher.answer(state, question));
  }

  /** One flag's evaluation JSON; 404 FLAG_NOT_FOUND when the token does not see it. */
  one(token: OfrepToken, key: string, context: Readonly<Record<string, unknown>>, remoteAddress: string): string | Promise<string> {
    const input = ofrepFrontendContext(context, remoteAddress);
    return this.states.use((state) => {
      const json = evaluateOne(state, scopeOf(token), key, input);
      if (json === undefined) throw ofrepFlagNotFound(key);
      return json;
    });
  }

  /** The token's `eventStreams` (one SSE stream, by its stream key), rendered once per token document. */
  private eventStreams(token: OfrepToken): Piece {
    let streams = this.streamPieces.get(token);
    if (streams === undefined) {
      const requestUri = `${this.basePath}${EVENTS_PATH}/${streamKey(token)}`;
      streams = piece(JSON.stringify([{ type: 'sse', endpoint: { requestUri } }]));
      this.streamPieces.set(token, streams);
    }
    return streams;
  }

  /** The scope of the live SDK token an event-stream key names, or undefined. */
  async streamScope(key: string): Promise<TokenScope | undefined> {
    const token = await tokenOfStream(this.tokens, key);
    return token === undefined ? undefined : scopeOf(token);
  }
}
