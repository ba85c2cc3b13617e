import t from 'tap';
import { rawMetrics } from '../../../src/features/metrics/raw.js';
import { MetricsService } from '../../../src/features/metrics/service.js';
import type { MetricsStore } from '../../../src/features/metrics/store.js';

/** A store that accepts every write and has nothing to read: the history under test is the service's memory. */
const store = {
  allHeads: async () => [], sheet: async () => null, writeSheets: async () => undefined,
} as unknown as MetricsStore;

t.test('past hours are kept compacted for 48 hours, and a late report still adds to them', async (t) => {
  const service = new MetricsService(store);
  const hour = 3_600_000;
  const threeHoursAgo = new Date(Math.floor(Date.now() / hour) * hour - 3 * hour);
  service.record('development', 'svc', threeHoursAgo, { alpha: { yes: 2, no: 1 }, beta: { yes: 1, no: 0, variants: { v: 1 } } });
  await service.flush(); // written
  await service.flush(); // clean and past the hours SDKs report into: compacted
  const [alpha, beta] = [await service.history('alpha'), await service.history('beta')];
  t.equal(alpha[0]?.hour, beta[0]?.hour, 'one Date per hour');
  t.ok(Object.isFrozen(alpha[0]?.variants), 'one shared empty variants object');
  service.record('development', 'svc', threeHoursAgo, { alpha: { yes: 1, no: 0, variants: { late: 1 } } });
  const entry = rawMetrics('alpha', await service.history('alpha'), 4).data.find((e) => e.yes > 0);
  t.same(entry && { yes: entry.yes, no: entry.no, variants: entry.variants }, { yes: 3, no: 1, variants: { late: 1 } });
  t.same(rawMetrics('beta', await service.history('beta'), 4).data.find((e) => e.yes > 0)?.variants, { v: 1 }, 'variants kept');
});
