/**
 * The playground snapshot as the pool's threads follow it: a thread's copy brought up to a
 * revision with the changes since its own must evaluate exactly as the snapshot compiled whole,
 * whichever revisions it missed.
 */
import t from 'tap';
import { compile, evaluateToJson, RevisionChain, type FlagConfig, type SegmentConfig, type Snapshot, type SnapshotChanges } from '../../../src/evaluation/index.js';
import { MAX_STEPS } from '../../../src/evaluation/revision-chain.js';
import { nextSnapshot, type CurrentSnapshot } from '../../../src/features/playground/snapshot.js';
import { CompiledSnapshotCache } from '../../../workers/compiled-cache.js';
import { constraint, flag, strategy } from '../../evaluation/fixtures/builders.js';
import { seeded } from '../client-api/random-config.js';

const ENVIRONMENTS = ['development', 'production'];
const CONTEXTS = [{ userId: '1', region: 'eu' }, { userId: '42', region: 'us' }, { userId: '7' }];

function randomFlag(rng: () => number, name: string, segmentIds: number[]): FlagConfig {
  const strategies = Array.from({ length: 1 + Math.floor(rng() * 3) }, () => {
    const segments = segmentIds.length > 0 && rng() < 0.4 ? [segmentIds[Math.floor(rng() * segmentIds.length)]!] : [];
    const constraints = rng() < 0.5 ? [constraint('region', 'IN', { values: [rng() < 0.5 ? 'eu' : 'us'] })] : [];
    return rng() < 0.5
      ? strategy('default', { constraints, segments })
      : strategy('flexibleRollout', { parameters: { rollout: String(Math.floor(rng() * 101)), stickiness: 'userId', groupId: name }, constraints, segments });
  });
  const config = flag({ name, enabled: rng() < 0.8, strategies, createdAt: new Date(Date.UTC(2026, 0, 1) + Math.floor(rng() * 1e9)).toISOString() });
  config.environments.production = { enabled: rng() < 0.5, strategies: [strategy('default')], variants: [] };
  return config;
}

function randomSegment(rng: () => number, id: number): SegmentConfig {
  return { id, name: `segment-${id}`, constraints: [constraint('userId', 'IN', { values: ['1', '7', String(Math.floor(rng() * 50))] })] };
}

/** One random write: flags changed, added, archived or removed, segments changed, added or removed (new objects only for what changes, as the source does). */
function write(rng: () => number, raw: Snapshot, counter: { next: number }): Snapshot {
  let flags = raw.flags;
  let segments = raw.segments;
  const ids = segments.map((s) => s.id);
  const kind = rng();
  if (kind < 0.4 && flags.length > 0) {
    const i = Math.floor(rng() * flags.length);
    flags = flags.map((f, k) => (k === i ? randomFlag(rng, f.name, ids) : f));
  } else if (kind < 0.55) {
    flags = [...flags, randomFlag(rng, `flag-${counter.next++}`, ids)];
  } else if (kind < 0.65 && flags.length > 0) {
    const i = Math.floor(rng() * flags.length);
    flags = flags.filter((_, k) => k !== i);
  } else if (kind < 0.7 && flags.length > 0) {
    const i = Math.floor(rng() * flags.length);
    flags = flags.map((f, k) => (k === i ? { ...f, archived: true } : f));
  } else if (kind < 0.85 && segments.length > 0) {
    const i = Math.floor(rng() * segments.length);
    segments = segments.map((s, k) => (k === i ? randomSegment(rng, s.id) : s));
  } else if (kind < 0.93) {
    segments = [...segments, randomSegment(rng, counter.next++)];
  } else if (segments.length > 0) {
    const i = Math.floor(rng() * segments.length);
    segments = segments.filter((_, k) => k !== i);
  }
  return { flags, segments };
}

function answers(compiled: ReturnType<typeof compile>): string {
  return ENVIRONMENTS.flatMap((environment) => CONTEXTS.map((context) => evaluateToJson(compiled, environment, context))).join('\n');
}

t.test('threads following, skipping and joining the chain evaluate as the snapshot compiled whole', async (t) => {
  const rng = seeded(2718);
  const counter = { next: 100 };
  const segments = Array.from({ length: 3 }, (_, i) => randomSegment(rng, i + 1));
  let raw: Snapshot = { flags: Array.from({ length: 30 }, (_, i) => randomFlag(rng, `flag-${i}`, [1, 2, 3])), segments };
  const chain = new RevisionChain<SnapshotChanges>();
  let current: CurrentSnapshot | undefined;
  const following = new CompiledSnapshotCache();
  const skipping = new CompiledSnapshotCache();
  let differing = 0;
  let bases = 0;
  let lastBase = 0;
  const revisions = MAX_STEPS * 2 + 20;
  for (let revision = 1; revision <= revisions; revision++) {
    current = nextSnapshot(chain, revision, raw, current);
    const expected = answers(compile(raw));
    if (current.ref.base !== lastBase) bases++;
    lastBase = current.ref.base;
    const copies = [following.compiled(current.ref), current.compiled];
    if (revision % 7 === 0) copies.push(skipping.compiled(current.ref));
    if (revision % 13 === 0) copies.push(new CompiledSnapshotCache().compiled(current.ref));
    for (const copy of copies) if (answers(copy) !== expected) differing++;
    raw = write(rng, raw, counter);
  }
  t.equal(differing, 0, `${revisions} revisions of random writes`);
  t.ok(bases >= 3, `the chain started again past its bound (${bases} full copies)`);
});

t.test('a revision that changes nothing the snapshot holds keeps its revision number', async (t) => {
  const raw: Snapshot = { flags: [flag({ name: 'a' })], segments: [] };
  const chain = new RevisionChain<SnapshotChanges>();
  const first = nextSnapshot(chain, 1, raw, undefined);
  const second = nextSnapshot(chain, 2, { flags: [...raw.flags], segments: [] }, first);
  t.equal(second.ref, first.ref, 'threads have nothing to do');
  const third = nextSnapshot(chain, 3, { flags: [flag({ name: 'a', enabled: false })], segments: [] }, second);
  t.equal(third.ref.revision, 3);
  t.equal(third.ref.base, 1);
  const thread = new CompiledSnapshotCache();
  thread.compiled(first.ref);
  t.equal(answers(thread.compiled(third.ref)), answers(compile({ flags: [flag({ name: 'a', enabled: false })], segments: [] })));
});
