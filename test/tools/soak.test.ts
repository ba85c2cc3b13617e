import t from 'tap';
import { runSoak } from '../../tools/soak/run.js';

/**
 * The soak of `npm run soak`, one minute long: every kind of client at once on one Vane instance
 * (`npm run soak` runs two: under the suite's load an event search on one of two instances once
 * went 10 s without an answer, waiting for the copy's read of the other's events), the database
 * frozen and resumed, Vane killed mid-write and restarted. The
 * bars asserted here are the ones that hold on a machine shared with the rest of the suite (no
 * hang, no 5xx but 503, reads served while frozen, writes back after resuming, nothing
 * acknowledged lost); latency is reported, and judged by `npm run soak` on a quiet machine.
 */
t.test('one minute of every client at once, a frozen database, a killed process', async (t) => {
  const report = await runSoak({
    durationS: 60, flags: 40, instances: 1, freezeS: 10, seed: 5, writers: 2, serverSdks: 2, browserSdks: 1,
    log: (line) => t.comment(line),
  });
  t.comment(`writes: ${JSON.stringify(report.writes)}; samples: ${JSON.stringify(report.samples.map((s) => [s.atS, s.sqliteHandles, s.rssMb, s.writeP99Ms]))}`);
  t.equal(report.configureFailures, 0, 'the configuration applied');
  t.equal(report.hangs, 0, 'no request went 10 s without an answer');
  t.equal(report.unexpected5xx, 0, 'no 5xx other than 503');
  t.ok(report.sdkReadP99Ms > 0, `the SDKs' reads were timed by the server (p99 ${report.sdkReadP99Ms} ms)`);
  t.equal(report.sdkErrors, 0, 'the SDKs, in their own process, saw no errors');
  t.ok(report.writes.acknowledged > 20, `writes were acknowledged during the soak (${report.writes.acknowledged})`);
  t.ok(report.freeze.firstWrite503Ms !== null, `a write while frozen answered 503 (${report.freeze.firstWrite503Ms} ms)`);
  t.ok(report.freeze.ready503Ms !== null && report.freeze.ready503Ms <= 5000, `/ready 503 within 5 s (${report.freeze.ready503Ms} ms)`);
  t.equal(report.freeze.readsDuringFreeze.failed, 0, `reads while frozen all answered (${report.freeze.readsDuringFreeze.ok})`);
  t.ok(report.freeze.writesOkAfterResumeMs !== null && report.freeze.writesOkAfterResumeMs <= 10_000,
    `writes succeed within 10 s of resuming (${report.freeze.writesOkAfterResumeMs} ms)`);
  t.ok(report.restart.readyAfterMs !== null, `ready again after the SIGKILL (${report.restart.readyAfterMs} ms)`);
  t.same(report.restart.missing, [], 'every acknowledged write is there after the restart');
  t.same(report.restart.missingEvents, [], 'with its event');
  const handles = report.samples.filter((s) => s.sqliteHandles >= 0).map((s) => s.sqliteHandles);
  // Math.max() of no samples is -Infinity, which is below any bound: a soak that never read the
  // database's handles must fail here, not pass.
  t.ok(handles.length > 0, `the database's SQLite handles were sampled (${handles.length} samples)`);
  t.ok(handles.length > 0 && Math.max(...handles) < 90, `the database's SQLite handles stayed bounded (max ${Math.max(...handles)})`);
});
