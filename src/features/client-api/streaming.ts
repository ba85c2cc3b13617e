import type { ServerResponse } from 'node:http';
import { DeltaLog } from './delta.js';
import { isAllProjects, type TokenScope } from './features.js';
import type { SdkState, SdkStateCache } from './state.js';

interface Stream {
  res: ServerResponse;
  scope: TokenScope;
}

/** Idle proxies close a silent connection; a comment line every 15 s keeps it open. */
const KEEP_ALIVE_MS = 15_000;

function scopeKey(scope: TokenScope): string {
  return `${scope.environment}\0${isAllProjects(scope.projects) ? '*' : [...scope.projects].sort().join(',')}`;
}

/**
 * Delta log and server-sent-event fan-out over the SDK state. A write on this instance rebuilds
 * the state at once (SdkStateCache refreshes eagerly while anyone listens) and each connected
 * stream gets an `unleash-updated` event; the body is rendered once per token scope, not per
 * stream, so 5 000 streams of one scope cost one serialization and 5 000 socket writes.
 */
export class DeltaService {
  readonly log = new DeltaLog();
  private seen: SdkState | undefined;
  private readonly streams = new Map<string, Set<Stream>>();
  private keepAlive: NodeJS.Timeout | undefined;

  constructor(private readonly states: SdkStateCache) {
    states.onChange((state) => this.publish(state));
    states.eager = () => this.streams.size > 0;
  }

  /** The current state, with the log advanced to it. */
  async current(): Promise<SdkState> {
    const state = await this.states.get();
    this.sync(state);
    return state;
  }

  private sync(state: SdkState): ReturnType<DeltaLog['advance']> {
    if (this.seen !== undefined && state.build <= this.seen.build) return undefined;
    this.seen = state;
    return this.log.advance(state);
  }

  private publish(state: SdkState): void {
    const change = this.sync(state);
    if (change === undefined) return;
    for (const group of this.streams.values()) {
      const first = group.values().next().value;
      if (!first) continue;
      const events = this.log.render(state, first.scope, [change]);
      if (events.length === 0) continue;
      const frame = `event: unleash-updated\nid: ${change.eventId}\ndata: ${JSON.stringify({ events })}\n\n`;
      for (const stream of group) stream.res.write(frame);
    }
  }

  get connected(): number {
    let n = 0;
    for (const group of this.streams.values()) n += group.size;
    return n;
  }

  /** Starts a stream: hydration (or the events after Last-Event-ID), then updates until the client leaves. */
  async open(res: ServerResponse, scope: TokenScope, lastEventId: string | undefined): Promise<void> {
    const state = await this.current();
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    const since = lastEventId === undefined ? NaN : Number(lastEventId);
    if (Number.isInteger(since) && this.log.knows(since)) {
      const events = this.log.eventsSince(state, scope, since);
      if (events.length > 0) res.write(`event: unleash-updated\nid: ${this.log.eventId}\ndata: ${JSON.stringify({ events })}\n\n`);
    } else {
      res.write(`event: unleash-connected\nid: ${this.log.eventId}\ndata: ${JSON.stringify(this.log.hydration(state, scope))}\n\n`);
    }
    const key = scopeKey(scope);
    let group = this.streams.get(key);
    if (!group) {
      group = new Set();
      this.streams.set(key, group);
    }
    const stream: Stream = { res, scope };
    group.add(stream);
    this.startKeepAlive();
    res.on('close', () => {
      group.delete(stream);
      if (group.size === 0) this.streams.delete(key);
    });
  }

  private startKeepAlive(): void {
    if (this.keepAlive) return;
    this.keepAlive = setInterval(() => {
      for (const group of this.streams.values()) for (const stream of group) stream.res.write(': keep-alive\n\n');
    }, KEEP_ALIVE_MS);
    this.keepAlive.unref();
  }

  close(): void {
    clearInterval(this.keepAlive);
    for (const group of this.streams.values()) for (const stream of group) stream.res.end();
    this.streams.clear();
  }
}
