/** Copy-on-write overlays for change-request previews. */
import t from 'tap';
import { compile, evaluate, isEnabled, overlay } from '../../src/evaluation/index.js';
import { constraint, ENV, flag, snapshot, strategy } from './fixtures/builders.js';

const euOnly = { id: 1, name: 'eu', constraints: [constraint('region', 'IN', { values: ['eu'] })] };
const base = compile(
  snapshot(
    [
      flag({ name: 'segmented', strategies: [strategy('default', { segments: [1] })] }),
      flag({ name: 'plain', createdAt: '2026-02-01T00:00:00.000Z' }),
    ],
    [euOnly],
  ),
);

t.test('flag changes', async (t) => {
  const changed = overlay(base, {
    flags: [flag({ name: 'plain', enabled: false }), flag({ name: 'added', createdAt: '2027-01-01T00:00:00.000Z' })],
    removedFlags: ['segmented'],
  });
  t.strictSame(evaluate(changed, ENV, {}).map((r) => [r.name, r.isEnabled]), [['added', true], ['plain', false]]);
  t.strictSame(evaluate(base, ENV, {}).map((r) => [r.name, r.isEnabled]), [['plain', true], ['segmented', false]], 'base untouched');
  const archived = overlay(base, { flags: [flag({ name: 'plain', archived: true })] });
  t.strictSame(evaluate(archived, ENV, {}).map((r) => r.name), ['segmented'], 'archiving removes');
  const segmentOnly = overlay(base, { segments: [{ ...euOnly, name: 'renamed' }] });
  t.equal(segmentOnly.flags.get('plain'), base.flags.get('plain'), 'unchanged flags are shared, not recompiled');
});

t.test('segment changes reach the flags using them', async (t) => {
  const us = { region: 'us' };
  t.equal(isEnabled(base, ENV, 'segmented', us), false);
  const widened = overlay(base, { segments: [{ ...euOnly, constraints: [constraint('region', 'IN', { values: ['eu', 'us'] })] }] });
  t.equal(isEnabled(widened, ENV, 'segmented', us), true);
  t.equal(evaluate(widened, ENV, us).find((r) => r.name === 'segmented')!.strategies.data[0]!.segments[0]!.result, true);
  const removed = overlay(base, { removedSegments: [1] });
  t.equal(isEnabled(removed, ENV, 'segmented', { region: 'eu' }), false, 'a removed segment fails its strategies');
  t.equal(isEnabled(base, ENV, 'segmented', { region: 'eu' }), true, 'base untouched');
});
