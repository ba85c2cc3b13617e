import { ScopeGroups } from '../client-api/stream-groups.js';
/**
 * A stream whose client stopped reading is dropped past this much queued output (it reconnects
 * and re-fetches). Events are tens of bytes, so this is thousands of them.
 */
const MAX_QUEUED_BYTES = 256 * 1024;
export class OfrepEventStreams {
    delta;
    /** Every stream of one token scope: one test of the change, one frame for all. */
    groups = new ScopeGroups((res) => send(res, ': keep-alive\n\n'));
    /** This instance's clock in ms, strictly increasing: the id of the last event sent (SSE `id`, for Last-Event-ID). */
    lastEventId = 0;
    constructor(delta) {
        this.delta = delta;
        delta.follow(this);
    }
    listening() {
        return this.groups.size > 0;
    }
    get connected() {
        return this.groups.connected;
    }
    changed(_state, touches) {
        let frame;
        for (const group of this.groups.values()) {
            if (!touches(group.scope))
                continue;
            frame ??= this.refetchFrame();
            for (const res of group.streams)
                send(res, frame);
        }
    }
    refetchFrame() {
        this.lastEventId = Math.max(Date.now(), this.lastEventId + 1);
        // OFREP routes by `data.type`; the SSE event name is always `message`.
        return `id: ${this.lastEventId}\nevent: message\ndata: {"type":"refetchEvaluation"}\n\n`;
    }
    /**
     * Starts a stream for a token scope (`headers`: those already set on the reply, CORS's). A
     * client that comes back with a Last-Event-ID older than the last event sent here missed
     * something, and is told to re-fetch at once.
     */
    async open(res, headers, scope, lastEventId) {
        // The SDK streaming's log must know the current state, or the next change would only set its baseline.
        await this.delta.current();
        res.writeHead(200, {
            ...headers,
            'content-type': 'text/event-stream',
            'cache-control': 'no-cache',
            connection: 'keep-alive',
            'x-accel-buffering': 'no',
        });
        const since = lastEventId === undefined ? NaN : Number(lastEventId);
        res.write(Number.isFinite(since) && since < this.lastEventId ? this.refetchFrame() : ': connected\n\n');
        if (res.destroyed)
            return;
        this.groups.join(scope, res, res);
    }
    close() {
        this.groups.close((res) => res.end());
    }
}
function send(res, frame) {
    if (res.destroyed)
        return;
    if (res.writableLength > MAX_QUEUED_BYTES) {
        res.destroy();
        return;
    }
    res.write(frame);
}
//# sourceMappingURL=events.js.map