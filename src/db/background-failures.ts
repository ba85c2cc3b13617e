/**
 * How background database work reports its failures: each job (`commit poll`, `event flush`)
 * logs its first failure at once, then at most one line per `windowMs` with how many
 * failed meanwhile. A database that does not answer fails a commit poll four times a second;
 * one line per failure would bury everything else in the log, none would hide the outage.
 */
export type BackgroundJob = 'commit poll' | 'event flush' | 'snapshot';

export interface FailureLog {
  error(obj: unknown, msg?: string): void;
}

export function backgroundFailureReporter(log: FailureLog, windowMs = 10_000): (job: BackgroundJob, err: unknown) => void {
  const last = new Map<BackgroundJob, { at: number; suppressed: number }>();
  return (job, err) => {
    const now = Date.now();
    const seen = last.get(job);
    if (seen && now - seen.at < windowMs) {
      seen.suppressed++;
      return;
    }
    last.set(job, { at: now, suppressed: 0 });
    log.error({ job, err, failedMeanwhile: seen?.suppressed ?? 0 }, `${job} failed; retried in the background`);
  };
}
