/**
 * The SDK state as the pool's threads follow it from build to build: a thread's copy brought up
 * with the changes since its own build must answer byte for byte as the main thread's state,
 * whichever builds it missed; and the client API's body, joined from per-flag pieces, must be the
 * one serialised whole.
 */
import t from 'tap';
import { MAX_STEPS } from '../../../src/evaluation/revision-chain.js';
import { clientFeatureView, featuresDocument, resolveQuery, shortHash, usedSegments } from '../../../src/features/client-api/features.js';
import { stateOf, type SdkState } from '../../../src/features/client-api/state.js';
import { frontendContext, frontendToggles, type ScopeFlags } from '../../../src/features/frontend-api/evaluate.js';
import { shippedState } from '../../../src/features/frontend-api/shipped-state.js';
import { WorkerStates } from '../../../workers/sdk-state.js';
import { seeded } from '../client-api/random-config.js';
import { randomFlag, randomSegment, write, type Config } from '../client-api/random-states.js';

const SCOPES = [
  { projects: ['*'], environment: 'development' },
  { projects: ['other'], environment: 'production' },
];

/** Whether the state's scope list for every flag was derived from the previous state's (it shares the name index). */
function isDerived(state: SdkState): boolean {
  const key = 'scope\0development\0*';
  const list = state.memo.get(key) as ScopeFlags | undefined;
  const before = state.step?.basis.memo.get(key) as ScopeFlags | undefined;
  return list !== undefined && before !== undefined && list !== before && list.byName === before.byName;
}

function answers(source: Parameters<typeof frontendToggles>[0]): string {
  const out: string[] = [];
  for (const scope of SCOPES) {
    for (const userId of ['1', '7', '30']) {
      const context = frontendContext({ userId, sessionId: `s${userId}` }, '10.0.0.1');
      for (const all of [false, true]) {
        const answer = frontendToggles(source, scope, context, all);
        out.push(answer.body.toString(), answer.etag);
      }
    }
  }
  return out.join('\n');
}

/**
 * The client API's body as it was made before per-flag pieces, every view serialised at once, with
 * the ETag given (it combines the pieces' fingerprints: checked apart, see `etagOf` below).
 */
function wholeDocument(state: SdkState, inline: boolean, etag: string) {
  const query = resolveQuery({ projects: ['*'], environment: 'development' }, {}, inline);
  const features = state.flags.map((flag) => clientFeatureView(flag, query.environment, state.segments, inline));
  const featuresJson = JSON.stringify(features);
  const queryJson = JSON.stringify(query);
  const segmentsJson = inline ? undefined : JSON.stringify(usedSegments(state.flags, query.environment, state.segments));
  const queryHash = shortHash(queryJson);
  const meta = JSON.stringify({ revisionId: state.revisionId, etag, queryHash });
  return {
    body: `{"version":2,"features":${featuresJson},"query":${queryJson}${segmentsJson === undefined ? '' : `,"segments":${segmentsJson}`},"meta":${meta}}`,
    content: `${featuresJson}\n${segmentsJson ?? ''}`,
  };
}

t.test('threads following, skipping and joining the chain answer as the main thread; the client body is the one serialised whole', async (t) => {
  const rng = seeded(31415);
  const counter = { next: 100 };
  const segments = [1, 2, 3].map((id) => randomSegment(rng, id));
  let config: Config = {
    flags: Array.from({ length: 30 }, (_, i) => randomFlag(rng, `flag-${i}`, new Date(Date.UTC(2026, 0, 1) + i * 1000), [1, 2, 3])),
    segments,
  };
  const following = new WorkerStates();
  const skipping = new WorkerStates();
  let state: SdkState | undefined;
  let differing = 0;
  let wholeDiffering = 0;
  let derived = 0;
  let bodies = 0;
  let orders = 0;
  let fullCopies = 0;
  // Each body's content (flags and segments) by ETag, and the reverse: one ETag per content.
  const contentOf = new Map<string, string>();
  const etagOf = new Map<string, string>();
  let etagClashes = 0;
  const previousPieces: Partial<Record<'true' | 'false', ReturnType<typeof featuresDocument>['pieces']>> = {};
  const builds = MAX_STEPS * 2 + 20;
  for (let build = 1; build <= builds; build++) {
    state = stateOf(build, build * 10, config.flags, config.segments, state);
    const expected = answers(state);
    // The state's scope lists came from the previous state's after an in-place write; answered
    // from lists built whole (a source with no step back), the bytes must be the same.
    if (answers({ flags: state.flags, compiled: state.compiled, memo: new Map() }) !== expected) wholeDiffering++;
    if (isDerived(state)) derived++;
    // Not every build is shipped (a build answered on the main thread alone never is).
    if (build % 5 !== 3) {
      const shipped = shippedState(state);
      if (shipped.base === shipped.revision) fullCopies++;
      const copies = [following.source(shipped)];
      if (build % 7 === 0) copies.push(skipping.source(shipped));
      if (build % 11 === 0) copies.push(new WorkerStates().source(shipped));
      for (const copy of copies) {
        if (answers(copy) !== expected) differing++;
        if (copy.flags.map((f) => `${f.name}:${f.project}:${f.impressionData}`).join() !== state.flags.map((f) => `${f.name}:${f.project}:${f.impressionData}`).join()) orders++;
      }
    }
    for (const inline of [false, true]) {
      const query = resolveQuery({ projects: ['*'], environment: 'development' }, {}, inline);
      // Every other build from the previous document's pieces, as the client API does.
      const document = featuresDocument(state.flags, state.segments, query, state.revisionId, build % 2 === 0 ? previousPieces[`${inline}`] : undefined);
      previousPieces[`${inline}`] = document.pieces;
      const whole = wholeDocument(state, inline, document.etag);
      if (document.json.toString('utf8') !== whole.body) bodies++;
      const content = `${inline}\n${whole.content}`;
      if ((contentOf.get(document.etag) ?? content) !== content || (etagOf.get(content) ?? document.etag) !== document.etag) etagClashes++;
      contentOf.set(document.etag, content);
      etagOf.set(content, document.etag);
    }
    config = write(rng, config, counter);
  }
  t.equal(differing, 0, `${builds} builds of random writes: frontend answers of the threads' copies`);
  t.equal(wholeDiffering, 0, `the scope lists derived from the previous build's answer as lists built whole (${derived} builds derived them)`);
  t.ok(derived >= builds / 4, 'most in-place writes derive the scope lists');
  t.equal(orders, 0, 'the copies list the flags in the state\'s order');
  t.equal(bodies, 0, 'client bodies, segments inlined and not');
  t.equal(etagClashes, 0, `one ETag per body content and one content per ETag (${etagOf.size} contents)`);
  t.ok(fullCopies >= 3, `the chain started again past its bound (${fullCopies} full copies)`);
});

t.test('a build that changes nothing compiles nothing and keeps the segments map', async (t) => {
  const rng = seeded(5);
  const flags = [randomFlag(rng, 'a', new Date(0), [1])];
  const segments = [randomSegment(rng, 1)];
  const first = stateOf(1, 1, flags, segments, undefined);
  const second = stateOf(2, 2, [...flags], [{ ...segments[0]! }], first);
  t.equal(second.compiled, first.compiled);
  t.equal(second.segments, first.segments);
  t.strictSame(second.changes, { flags: [], removedFlags: [], segments: [], removedSegments: [], order: undefined });
});
