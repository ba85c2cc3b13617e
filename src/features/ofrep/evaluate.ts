/**
 * OFREP's answers from the frontend API's evaluation: the same flags of the token's scope, each
 * decided by `decideScoped` for the context the frontend API builds (frontend-api/evaluate.ts), then
 * rendered by mapping.ts. Pure, like the frontend API's answer: the bulk evaluation runs on the
 * main thread or in a worker (worker.ts) and gives the same bytes and ETag in both.
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
