/**
 * OFREP's answers from the frontend API's evaluation: the same flags of the token's scope, each
 * decided by `decideScoped` for the context the frontend API builds (frontend-api/evaluate.ts), then
 * rendered by mapping.ts. Pure, like the frontend API's answer: the bulk evaluation runs on the
 * main thread or in a worker (worker.ts) and gives the same bytes and ETag in both.
 *
 * Performance (the goal: the bulk answer at least as cheap as `/api/frontend`'s), built as the
 * frontend answer is: each flag's evaluation JSON is rendered once per state, scope and outcome
 * (`OfrepFlag`), so a request only decides and concatenates; the ETag combines the pieces'
 * fingerprints (no hash of the body); the route sends the string as it is (`preSerialized`, no
 * schema serializer); the same dispatcher shares the work with the pool. Measured 25 Nov on the
 * shared 2-core machine (load 8–14), 100 flags of bench/seed.ts, 400 rotating contexts:
 * - the server under 5 s of autocannon at 16 connections, `--cpu-prof`, evaluation on the main
 *   thread: the same frames per request for both APIs; per routed request the answer function
 *   took 1.11× the frontend's samples and the whole handler 1.01×; the socket write is the
 *   largest single cost in both (17–18 % of samples);
 * - the answer function alone (min of interleaved rounds): `/api/frontend` 23–25 µs, this 26–28
 *   µs, the decisions of the 100 flags ≈ 22 µs of it. The rest is inherent: OFREP lists every flag
 *   (100 pieces) where `/api/frontend` lists the enabled ones (≈ 44 on these contexts);
 *   pre-rendering the separator into each piece and numbering the reasons made no measurable
 *   difference (30.3 against 31.5 µs, min of 40 interleaved rounds), so it was not kept;
 * - `npm run bench:ofrep -- --seconds=5 --rounds=3`, three runs: OFREP / frontend 0.80×, 0.94×,
 *   1.00× on the median runs with server CPU per request 181/139, 141/153 and 189/208 µs;
 *   OFREP p99 12–13 ms (README, OpenFeature section).
 */
import { ContextReader, mixBlock } from '../../evaluation/index.js';
import type { TokenScope } from '../client-api/features.js';
import {
  combinedEtag, decideScoped, scopeFlags, type FrontendAnswer, type FrontendSource, type Piece, type ScopeFlags,
} from '../frontend-api/evaluate.js';
import { OfrepFlag } from './mapping.js';

/** One bulk evaluation, as the dispatcher queues it and a worker receives it. */
export interface OfrepQuestion {
  scope: TokenScope;
  /** The frontend API's context (`frontendContext` of the mapped OFREP context). */
  context: Record<string, unknown>;
  /** The token's `eventStreams` JSON and its fingerprint (part of the body, so of the ETag). */
  streams: Piece;
}

/** The scope's flags as OFREP renders them, made once per state and scope, aligned with `scoped.flags`. */
function ofrepFlags(scoped: ScopeFlags): OfrepFlag[] {
  const memo = scoped.rendered.get('ofrep') as OfrepFlag[] | undefined;
  if (memo) return memo;
  const flags = scoped.flags.map(({ data, env }) => new OfrepFlag(data.name, env));
  scoped.rendered.set('ofrep', flags);
  return flags;
}

/** `{"flags":[…],"eventStreams":[…]}` for one context, with a strong ETag of its content (frontend-api/evaluate.ts `combinedEtag`). */
export function answerOfrep(source: FrontendSource, { scope, context, streams }: OfrepQuestion): FrontendAnswer {
  const scoped = scopeFlags(source, scope);
  const flags = ofrepFlags(scoped);
  const reader = new ContextReader(context, 'frontend');
  let out = '{"flags":[';
  let high = 0;
  let low = 0;
  for (let i = 0; i < flags.length; i++) {
    const decision = decideScoped(source, scope.environment, scoped.flags[i]!, reader);
    const part = flags[i]!.evaluation(decision, reader);
    out += i === 0 ? part.json : `,${part.json}`;
    high = mixBlock(high, part.high);
    low = mixBlock(low, part.low);
  }
  const body = `${out}],"eventStreams":${streams.json}}`;
  return { body, etag: combinedEtag(body, mixBlock(high, streams.high), mixBlock(low, streams.low), flags.length + 1) };
}

/** One flag's evaluation JSON, or undefined when the token does not see a flag of that name. */
export function evaluateOne(source: FrontendSource, scope: TokenScope, key: string, context: Record<string, unknown>): string | undefined {
  const scoped = scopeFlags(source, scope);
  const index = scoped.byName.get(key);
  if (index === undefined) return undefined;
  const reader = new ContextReader(context, 'frontend');
  const decision = decideScoped(source, scope.environment, scoped.flags[index]!, reader);
  return ofrepFlags(scoped)[index]!.evaluation(decision, reader).json;
}
