import t from 'tap';
import { backgroundFailureReporter } from '../../src/db/background-failures.js';

t.test('a background job logs its first failure at once, then one line per window with the count', async (t) => {
  const lines: Array<{ job: string; failedMeanwhile: number }> = [];
  const report = backgroundFailureReporter({ error: (obj) => lines.push(obj as { job: string; failedMeanwhile: number }) }, 50);
  for (let i = 0; i < 10; i++) report('commit poll', new Error('no answer'));
  report('event flush', new Error('no answer'));
  t.same(lines.map((l) => l.job), ['commit poll', 'event flush'], 'one line per job');
  await new Promise((r) => setTimeout(r, 60));
  report('commit poll', new Error('no answer'));
  t.equal(lines.length, 3);
  t.equal(lines[2]!.failedMeanwhile, 9, 'the line after the window counts the failures it did not log');
});
