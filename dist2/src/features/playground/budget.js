/**
 * A request's budget for work on the pool: aborted when `timeoutMs` runs out (when given) or when
 * the client goes away, so a worker never keeps computing an answer nobody will read (an aborted
 * running task's thread is replaced).
 *
 * "Goes away" is the response's 'close' before its last byte was handed to the kernel — never the
 * request's 'close': Node 20 emits that one as soon as the request body has been read, so
 * listening there aborted every playground POST a few milliseconds in, over a real socket (a 503
 * "did not finish within the time budget" at once; Fastify's inject() does not emit it, so only
 * the differential tester against a running server showed it).
 */
export function requestBudget(reply, timeoutMs) {
    const controller = new AbortController();
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => controller.abort(new Error('time budget exceeded')), timeoutMs);
    const onClose = () => {
        if (!reply.sent || !reply.raw.writableFinished)
            controller.abort(new Error('client went away'));
    };
    reply.raw.once('close', onClose);
    return {
        signal: controller.signal,
        done() {
            clearTimeout(timer);
            reply.raw.off('close', onClose);
        },
    };
}
//# sourceMappingURL=budget.js.map