/**
 * OFREP's answers from the frontend API's evaluation: the same flags of the token's scope, each
 * decided by `decideScoped` for the context the frontend API builds (frontend-api/evaluate.ts), then
 * rendered by mapping.ts. Pure, like the frontend API's answer: the bulk evaluation runs on the
 * main thread or in a pool thread (workers/ofrep.ts) and gives the same bytes and ETag in both.
 *
 * Performance (the bulk answer at least as cheap as `/api/frontend`'s), built as the frontend
 * answer is: each flag's evaluation JSON is rendered once per state, scope and outcome
 * (`OfrepFlag`), so a request only decides and concatenates; flags no context changes (off in the
 * environment, on for everyone) are not decided per request but spliced in as runs rendered once
 * per state (`ofrepScope`); the ETag combines the pieces' fingerprints (no hash of the body); the
 * route sends the string as it is (`preSerialized`, no schema serializer); the same dispatcher
 * shares the work with the pool. Measured on the shared 2-core machine:
 * - `--cpu-prof` of the server under 16 connections, evaluation on the main thread: the same
 *   frames per request for both APIs, the socket write the largest single cost (32–34 % of
 *   samples), the answer function 26–27 %; main-thread CPU per request the same within noise;
 * - callgrind (instructions, stable under load) of the answer function alone, the body flattened
 *   as the route's Content-Length and the pool's message do: `/api/frontend` 289 k per answer,
 *   this 289 k (304 k with mapping.ts's outcomes looked up in a Set and a Map); without
 *   flattening 232 k and 253 k (270 k).
 *   Deciding the 100 flags is 215 k of it, so the rest is the listing: OFREP lists every flag (100
 *   entries) where `/api/frontend` lists the enabled ones (≈ 44 on these contexts). Joining an
 *   array instead of concatenating cost as much as flattening the concatenation saves (305 k);
 *   keeping each piece also as `,json`, so that an entry is one concatenation instead of two,
 *   cost more, not less: 300 k against 289 k, both versions in alternating phases of one
 *   callgrind process, so the comma is added per entry;
 * - bench:ofrep (`--seconds=5 --rounds=3`, load 17–21), both versions in turn: O1 / F1 1.00×
 *   (1.03× with the hashed look-ups), single rounds 0.8–1.4×: here the ratio is 1 within noise.
 * In bench/seed.ts every flag's strategies depend on the context, so the splicing does not show
 * there; it removes the decision of each flag that is off in the token's environment.
 */
import { constantDecision, ContextReader, mixBlock, type CompiledFlag, type CompiledFlagEnvironment } from '../../evaluation/index.js';
import type { TokenScope } from '../client-api/features.js';
import {
  combinedEtag, decideScoped, piece, scopeFlags, type FrontendAnswer, type FrontendSource, type Piece, type ScopeFlag, type ScopeFlags,
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

/**
 * The scope's flags as OFREP renders them, made once per state and scope: `flags` aligned with
 * `scoped.flags`; `parts`, the bulk answer's list in order — a run of flags no context changes
 * (`constantDecision`: off in the environment, or on for everyone) as one JSON fragment with its
 * own fingerprint, spliced as it is, else the index of a flag decided per request.
 */
interface OfrepScope {
  readonly flags: readonly OfrepFlag[];
  readonly parts: ReadonlyArray<Piece | number>;
}

/**
 * Each compiled flag's OFREP form per environment, kept while the compiled flag is (a new state
 * shares every flag a write did not change), so the pieces it renders on demand are rendered
 * once per flag revision, not once per state.
 */
const ofrepFlags = new WeakMap<CompiledFlag, WeakMap<CompiledFlagEnvironment, OfrepFlag>>();

function ofrepFlagOf({ flag, env }: ScopeFlag): OfrepFlag {
  let byEnv = ofrepFlags.get(flag);
  if (byEnv === undefined) ofrepFlags.set(flag, (byEnv = new WeakMap<CompiledFlagEnvironment, OfrepFlag>()));
  let ofrep = byEnv.get(env);
  if (ofrep === undefined) {
    ofrep = new OfrepFlag(flag.name, env, constantDecision(flag, env));
    byEnv.set(env, ofrep);
  }
  return ofrep;
}

function ofrepScope(scoped: ScopeFlags): OfrepScope {
  const memo = scoped.rendered.get('ofrep') as OfrepScope | undefined;
  if (memo) return memo;
  const flags = scoped.flags.map(ofrepFlagOf);
  const parts: Array<Piece | number> = [];
  let run: string[] = [];
  const endRun = () => {
    if (run.length > 0) parts.push(piece(run.join(',')));
    run = [];
  };
  flags.forEach((flag, i) => {
    if (flag.constant !== undefined) return void run.push(flag.constant.json);
    endRun();
    parts.push(i);
  });
  endRun();
  const scope: OfrepScope = { flags, parts };
  scoped.rendered.set('ofrep', scope);
  return scope;
}

/** `{"flags":[…],"eventStreams":[…]}` for one context, with a strong ETag of its content (frontend-api/evaluate.ts `combinedEtag`). */
export function answerOfrep(source: FrontendSource, { scope, context, streams }: OfrepQuestion): FrontendAnswer {
  const scoped = scopeFlags(source, scope);
  const { flags, parts } = ofrepScope(scoped);
  const reader = new ContextReader(context, 'frontend');
  let out = '{"flags":[';
  let high = 0;
  let low = 0;
  for (let p = 0; p < parts.length; p++) {
    const entry = parts[p]!;
    const part = typeof entry === 'number' ? flags[entry]!.evaluation(decideScoped(source, scope.environment, scoped.flags[entry]!, reader), reader) : entry;
    out += p === 0 ? part.json : `,${part.json}`;
    high = mixBlock(high, part.high);
    low = mixBlock(low, part.low);
  }
  const body = Buffer.from(`${out}],"eventStreams":${streams.json}}`);
  return { body, etag: combinedEtag(body.length, mixBlock(high, streams.high), mixBlock(low, streams.low), parts.length + 1) };
}

/** One flag's evaluation JSON, or undefined when the token does not see a flag of that name. */
export function evaluateOne(source: FrontendSource, scope: TokenScope, key: string, context: Record<string, unknown>): string | undefined {
  const scoped = scopeFlags(source, scope);
  const index = scoped.byName.get(key);
  if (index === undefined) return undefined;
  const reader = new ContextReader(context, 'frontend');
  const decision = decideScoped(source, scope.environment, scoped.flags[index]!, reader);
  return ofrepScope(scoped).flags[index]!.evaluation(decision, reader).json;
}
