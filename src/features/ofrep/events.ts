/**
 * OFREP's event streams (ADR-0008 of open-feature/protocol; docs/rules.md §10.5): server-sent
 * events that tell providers to re-fetch their bulk evaluation, `{"type":"refetchEvaluation"}`,
 * whenever a change can alter what their token's scope evaluates. The changes are the SDK
 * streaming's own (client-api/streaming.ts follows the SDK state's rebuilds): this follows it, so
 * an OFREP provider hears of a write at the moment an Unleash SDK's stream does.
 *
 * Notifications only, no evaluations: a provider re-fetches with its context, and a re-fetch that
 * finds its answer unchanged is a 304.
 */
import type { ServerResponse } from 'node:http';
import type { TokenScope } from '../client-api/features.js';
import { ScopeGroups } from '../client-api/stream-groups.js';
import type { ChangeFollower, DeltaService } from '../client-api/streaming.js';

/**
 * A stream whose client stopped reading is dropped past this much queued output (it reconnects
 * and re-fetches). Events are tens of bytes, so this is thousands of them.
 */
const MAX_QUEUED_BYTES = 256 * 1024;

export class OfrepEventStreams implements ChangeFollower {
  /** Every stream of one token scope: one test of the change, one frame for all. */
  private readonly groups = new ScopeGroups<ServerResponse>((res) => send(res, ': keep-alive\n\n'));
  /** This instance's clock in ms, strictly increasing: the id of the last event sent (SSE `id`, for Last-Event-ID). */
  private lastEventId = 0;

  constructor(private readonly delta: Pick<DeltaService, 'follow' | 'current'>) {
    delta.follow(this);
  }

  listening(): boolean {
    return this.groups.size > 0;
  }

  get connected(): number {
    return this.groups.connected;
  }

  changed(_state: unknown, touches: (scope: TokenScope) => boolean): void {
    let frame: string | undefined;
    for (const group of this.groups.values()) {
      if (!touches(group.scope)) continue;
      frame ??= this.refetchFrame();
      for (const res of group.streams) send(res, frame);
    }
  }

  private refetchFrame(): string {
    this.lastEventId = Math.max(Date.now(), this.lastEventId + 1);
    // OFREP routes by `data.type`; the SSE event name is always `message`.
    return `id: ${this.lastEventId}\nevent: message\ndata: {"type":"refetchEvaluation"}\n\n`;
  }

  /**
   * Starts a stream for a token scope (`headers`: those already set on the reply, CORS's). A
   * client that comes back with a Last-Event-ID older than the last event sent here missed
   * something, and is told to re-fetch at once.
   */
  async open(res: ServerResponse, headers: Record<string, string | number | string[] | undefined>, scope: TokenScope, lastEventId: string | undefined): Promise<void> {
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
    if (res.destroyed) return;
    this.groups.join(scope, res, res);
  }

  close(): void {
    this.groups.close((res) => res.end());
  }
}

function send(res: ServerResponse, frame: string): void {
  if (res.destroyed) return;
  if (res.writableLength > MAX_QUEUED_BYTES) {
    res.destroy();
    return;
  }
  res.write(frame);
}
