/**
 * OFREP's evaluations from the SDK state (client-api/state.ts), as the frontend API answers: no
 * request reads the database. The bulk evaluation goes through a dispatcher like the frontend
 * API's (main thread or worker pool, frontend-api/dispatch.ts); a single flag is answered in place.
 */
import { fileURLToPath } from 'node:url';
import { ofrepFlagNotFound } from '../../errors.js';
import { frontendContext, piece } from '../frontend-api/evaluate.js';
import { evaluateOne } from './evaluate.js';
import { frontendInput } from './mapping.js';
import { scopeOf, streamKey, tokenOfStream } from './tokens.js';
/** The worker module of the bulk evaluation (worker.ts, compiled beside this file). */
export const OFREP_WORKER = fileURLToPath(new URL('./worker.js', import.meta.url));
/** Where the event streams are served, below the path Vane is reached at. */
export const EVENTS_PATH = '/ofrep/v1/events';
export class OfrepService {
    states;
    dispatcher;
    tokens;
    streams;
    basePath;
    streamPieces = new WeakMap();
    constructor(states, dispatcher, tokens, streams, 
    /** The path of BASE_URL (`''` at the root): a reverse proxy that serves Vane below a path keeps it in the stream's URL. */
    basePath) {
        this.states = states;
        this.dispatcher = dispatcher;
        this.tokens = tokens;
        this.streams = streams;
        this.basePath = basePath;
    }
    /** Every flag of the token's scope for one context (docs/rules.md §10); the JSON body and its ETag. */
    bulk(token, context, remoteAddress) {
        const question = {
            scope: scopeOf(token),
            context: frontendContext(frontendInput(context), remoteAddress),
            streams: this.eventStreams(token),
        };
        return this.states.use((state) => this.dispatcher.answer(state, question));
    }
    /** One flag's evaluation JSON; 404 FLAG_NOT_FOUND when the token does not see it. */
    one(token, key, context, remoteAddress) {
        const input = frontendContext(frontendInput(context), remoteAddress);
        return this.states.use((state) => {
            const json = evaluateOne(state, scopeOf(token), key, input);
            if (json === undefined)
                throw ofrepFlagNotFound(key);
            return json;
        });
    }
    /** The token's `eventStreams` (one SSE stream, by its stream key), rendered once per token document. */
    eventStreams(token) {
        let streams = this.streamPieces.get(token);
        if (streams === undefined) {
            const requestUri = `${this.basePath}${EVENTS_PATH}/${streamKey(token)}`;
            streams = piece(JSON.stringify([{ type: 'sse', endpoint: { requestUri } }]));
            this.streamPieces.set(token, streams);
        }
        return streams;
    }
    /** The scope of the live SDK token an event-stream key names, or undefined. */
    async streamScope(key) {
        const token = await tokenOfStream(this.tokens, key);
        return token === undefined ? undefined : scopeOf(token);
    }
}
//# sourceMappingURL=service.js.map