/**
 * The SDK state as the pool's threads follow it from build to build: a thread's copy brought up
 * with the changes since its own build must answer byte for byte as the main thread's state,
 * whichever builds it missed; and the client API's body, joined from per-flag pieces, must be the
 * one serialised whole.
 */
import t from 'tap';
import type { SegmentConfig, StrategyConfig } from '../../../src/evaluation/index.js';
import { MAX_STEPS } from '../../../src/evaluation/revision-chain.js';
import { clientFeatureView, featuresDocument, resolveQuery, shortHash, usedSegments } from '../../../src/features/client-api/features.js';
import { stateOf, type SdkState } from '../../../src/features/client-api/state.js';
import { frontendContext, frontendToggles } from '../../../src/features/frontend-api/evaluate.js';
import { shippedState } from '../../../src/features/frontend-api/shipped-state.js';
import type { FlagData } from '../../../src/features/flags/read-model.js';
import { WorkerStates } from '../../../workers/sdk-state.js';
import { seeded } from '../client-api/random-config.js';

const SCOPES = [
  { projects: ['*'], environment: 'development' },
  { projects: ['other'], environment: 'production' },
];

function randomStrategy(rng: () => number, id: string, segmentIds: number[]): StrategyConfig {
  const segments = segmentIds.length > 0 && rng() < 0.4 ? [segmentIds[Math.floor(rng() * segmentIds.length)]!] : [];
  const constraints = rng() < 0.5 ? [{ contextName: 'userId', operator: 'IN', values: ['1', '7'], inverted: false, caseInsensitive: false }] : [];
  return rng() < 0.5
    ? { id, name: 'default', parameters: {}, constraints, segments, ...(rng() < 0.15 ? { disabled: true } : {}) }
    : { id, name: 'flexibleRollout', parameters: { rollout: String(Math.floor(rng() * 101)), stickiness: 'userId', groupId: id }, constraints, segments, variants: [] };
}

function randomFlag(rng: () => number, name: string, createdAt: Date, segmentIds: number[]): FlagData {
  const environments: FlagData['environments'] = {};
  for (const environment of ['development', 'production']) {
    environments[environment] = {
      enabled: rng() < 0.8,
      strategies: Array.from({ length: 1 + Math.floor(rng() * 2) }, (_, k) => randomStrategy(rng, `${name}-${environment}-${k}`, segmentIds)),
      variants: rng() < 0.3 ? [{ name: 'v', weight: 1000, weightType: 'variable', stickiness: 'default' }] : [],
    };
  }
  return {
    _id: name, name, project: rng() < 0.7 ? 'default' : 'other', description: null, type: 'release', impressionData: rng() < 0.3,
    stale: false, archived: false, archivedAt: null, createdAt, createdBy: { id: 1, name: 'admin' }, tags: [],
    lifecycle: { stage: 'initial', enteredStageAt: createdAt }, dependencies: [], environments, strategyIds: [],
  };
}

function randomSegment(rng: () => number, id: number): SegmentConfig {
  return { id, name: `segment-${id}`, constraints: [{ contextName: 'userId', operator: 'IN', values: [String(Math.floor(rng() * 50)), '7'] }] };
}

interface Config { flags: FlagData[]; segments: SegmentConfig[] }

/** One random write, with new objects only for what changes (as the flags store hands them out). */
function write(rng: () => number, config: Config, counter: { next: number }): Config {
  let { flags, segments } = config;
  const ids = segments.map((s) => s.id);
  const kind = rng();
  const at = Math.floor(rng() * flags.length);
  if (kind < 0.4 && flags.length > 0) {
    flags = flags.map((f, k) => (k === at ? randomFlag(rng, f.name, f.createdAt, ids) : f));
  } else if (kind < 0.5 && flags.length > 0) {
    flags = flags.map((f, k) => (k === at ? { ...f, impressionData: !f.impressionData, project: f.project === 'default' ? 'other' : 'default' } : f));
  } else if (kind < 0.62) {
    flags = [...flags, randomFlag(rng, `flag-${counter.next++}`, new Date(Date.UTC(2026, 0, 1) + counter.next * 1000), ids)];
  } else if (kind < 0.72 && flags.length > 0) {
    flags = flags.filter((_, k) => k !== at);
  } else if (kind < 0.76 && flags.length > 0) {
    flags = flags.map((f, k) => (k === at ? { ...f, archived: true } : f));
  } else if (kind < 0.88 && segments.length > 0) {
    const i = Math.floor(rng() * segments.length);
    segments = segments.map((s, k) => (k === i ? randomSegment(rng, s.id) : s));
  } else if (kind < 0.94) {
    segments = [...segments, randomSegment(rng, counter.next++)];
  } else if (segments.length > 0) {
    segments = segments.filter((_, k) => k !== Math.floor(rng() * segments.length));
  }
  return { flags, segments };
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
