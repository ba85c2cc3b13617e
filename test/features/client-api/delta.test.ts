/**
 * The delta log read off each state's own changes (`follow`) must record what a comparison of
 * every flag's and segment's JSON finds (`compare`), build after build of random writes: flags
 * changed, moved to another project, added, removed and archived; segments changed, added and
 * removed.
 */
import t from 'tap';
import { DeltaLog, type Change } from '../../../src/features/client-api/delta.js';
import { stateOf, type SdkState } from '../../../src/features/client-api/state.js';
import { seeded } from './random-config.js';
import { randomFlag, randomSegment, write, type Config } from './random-states.js';

function described(change: Change | undefined): string {
  if (change === undefined) return 'none';
  const sorted = <T>(values: Iterable<T>) => [...values].map(String).sort().join(',');
  return [
    `flags ${sorted(change.flags)}`, `removed ${sorted([...change.removedFlags].map(([name, project]) => `${name}@${project}`))}`,
    `segments ${sorted(change.segments)}`, `removed segments ${sorted(change.removedSegments)}`, `projects ${sorted(change.projects)}`,
  ].join('; ');
}

t.test('the log follows each state\'s changes as a comparison of the whole state finds them', async (t) => {
  const rng = seeded(2718);
  const counter = { next: 100 };
  let config: Config = {
    flags: Array.from({ length: 40 }, (_, i) => randomFlag(rng, `flag-${i}`, new Date(Date.UTC(2026, 0, 1) + i * 1000), [1, 2, 3])),
    segments: [1, 2, 3].map((id) => randomSegment(rng, id)),
  };
  const following = new DeltaLog();
  const comparing = new DeltaLog();
  let state: SdkState | undefined;
  let followed = 0;
  let differing = 0;
  const kinds = new Set<string>();
  const builds = 300;
  for (let build = 1; build <= builds; build++) {
    state = stateOf(build, build, config.flags, config.segments, state);
    if (state.step !== undefined) followed++;
    const change = following.advance(state);
    const found = described(change);
    // The same state with no step back: the log compares it whole.
    const expected = described(comparing.advance({ ...state, step: undefined }));
    if (found !== expected) {
      differing++;
      t.comment(`build ${build}: followed ${found}; compared ${expected}`);
    }
    if (change?.flags.size) kinds.add('flag changed');
    if (change?.removedFlags.size) kinds.add('flag removed');
    if (change?.segments.size) kinds.add('segment changed');
    if (change?.removedSegments.size) kinds.add('segment removed');
    config = write(rng, config, counter);
  }
  t.equal(differing, 0, `${builds} builds of random writes`);
  t.ok(followed > builds * 0.9, `the log followed the states' changes (${followed} builds)`);
  t.strictSame([...kinds].sort(), ['flag changed', 'flag removed', 'segment changed', 'segment removed'], 'every kind of change was seen');
});
