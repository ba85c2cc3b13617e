export function backgroundFailureReporter(log, windowMs = 10_000) {
    const last = new Map();
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
//# sourceMappingURL=background-failures.js.map