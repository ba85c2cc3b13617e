import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Gauge, type Registry } from 'prom-client';
import { changeTouches, DeltaLog } from './delta.js';
import type { TokenScope } from './features.js';
import { ScopeGroups, scopeKey } from './stream-groups.js';
import type { SdkState, SdkStateCache } from './state.js';

interface Stream {
  res: ServerResponse;
  socket: Socket;
  /** Whether the response body is chunk-framed (HTTP/1.1; an HTTP/1.0 client gets raw bytes until close). */
  chunked: boolean;
}

/** The last fan-out, in this machine's wall clock (ms), for /internal-backstage/prometheus and bench:sdk. */
export interface FanOut {
  eventId: number;
  /** When the write was committed (the SDK state was invalidated; rebuilt from here). */
  committedAt: number;
  /** When the new state reached the fan-out. */
  startedAt: number;
  /** When the last socket write had been handed to the kernel (or queued behind a full socket). */
  issuedAt: number;
  streams: number;
  /**
   * CPU the fan-out used (process user + system ms): unlike issuedAt − startedAt it does not
   * count the time the process waited for a core on a loaded machine.
   */
  cpuMs: number;
  /** Distinct payloads serialized (one per token scope that saw a change). */
  payloads: number;
}

/**
 * Another push channel told of the same changes as the SDK streams (OFREP's event streams): after
 * each fan-out it gets the new state and a test of whether a token scope sees the change.
 */
export interface ChangeFollower {
  /** Whether it has listeners now: while any follower has, the SDK state is rebuilt at once after a write. */
  listening(): boolean;
  changed(state: SdkState, touches: (scope: TokenScope) => boolean): void;
}

/**
 * A stream whose client stopped reading is dropped once this much is queued for it (the SDK
 * reconnects with Last-Event-ID and gets what it missed as one delta); without a bound, one stuck
 * client would hold every event since it stopped.
 */
const MAX_QUEUED_BYTES = 4 * 1024 * 1024;

const CRLF = Buffer.from('\r\n');

/** One server-sent event in both framings, each built once and written as is to every socket. */
class Frame {
  private readonly data: Buffer;
  private chunkedBytes: Buffer | undefined;

  constructor(text: string) {
    this.data = Buffer.from(text, 'utf8');
  }

  bytes(chunked: boolean): Buffer {
    if (!chunked) return this.data;
    this.chunkedBytes ??= Buffer.concat([Buffer.from(`${this.data.length.toString(16)}\r\n`, 'latin1'), this.data, CRLF]);
    return this.chunkedBytes;
  }
}

const KEEP_ALIVE_FRAME = new Frame(': keep-alive\n\n');

function wallClock(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * Delta log and server-sent-event fan-out over the SDK state. A write on this instance rebuilds
 * the state at once (SdkStateCache refreshes eagerly while anyone listens) and each connected
 * stream gets an `unleash-updated` event.
 *
 * The fan-out is one serialization per token scope (streams are grouped by scope when they open,
 * so there is no per-stream filtering either) and one socket write per stream of a Buffer shared by
 * the whole group, already chunk-framed: the frame goes straight to the socket, not through
 * ServerResponse.write, which would frame each write again (hex length, CRLF, data, CRLF: four
 * writes into a corked socket and a nextTick to uncork it, per stream). Measured with 5 000
 * streams on the shared 2-core machine: docs/benchmarks.md (`npm run bench:sdk -- --only=S`).
 * The platform's way, a Readable per stream handed to reply.send, was built and measured beside
 * this: 193–195 ms of CPU per fan-out to 5 000 streams against 79–80 ms, and +57–59 MB against
 * +20–50 MB RSS for the streams, so the frames stay written here.
 */
export class DeltaService {
  readonly log = new DeltaLog();
  private seen: SdkState | undefined;
  /** Every stream of one token scope sees the same events, so gets the same bytes. */
  private readonly groups = new ScopeGroups<Stream>((stream) => this.send(stream, KEEP_ALIVE_FRAME));
  private readonly followers = new Set<ChangeFollower>();
  /** The last fan-out's timing (undefined until a change was pushed). */
  lastFanOut: FanOut | undefined;

  constructor(private readonly states: SdkStateCache) {
    states.onChange((state) => this.publish(state));
    states.eager = () => this.groups.size > 0 || [...this.followers].some((follower) => follower.listening());
  }

  /** Tells `follower` of every change pushed from now on (see ChangeFollower). */
  follow(follower: ChangeFollower): void {
    this.followers.add(follower);
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
    // Timed only when there are streams to fan out to (the gauges describe a fan-out): the two
    // process.cpuUsage calls (getrusage) were 0.33 ms of every write's first read with no stream
    // open (`--cpu-prof` of the server at 100 flags, 400 writes).
    const timed = this.groups.size > 0;
    const startedAt = timed ? wallClock() : 0;
    const cpu = timed ? process.cpuUsage() : undefined;
    const change = this.sync(state);
    if (change === undefined) return;
    let streams = 0;
    let payloads = 0;
    for (const group of this.groups.values()) {
      const events = this.log.render(state, group.scope, [change]);
      if (events.length === 0) continue;
      payloads++;
      const frame = new Frame(`event: unleash-updated\nid: ${change.eventId}\ndata: ${JSON.stringify({ events })}\n\n`);
      for (const stream of group.streams) this.send(stream, frame);
      streams += group.streams.size;
    }
    if (cpu !== undefined) {
      const used = process.cpuUsage(cpu);
      this.lastFanOut = {
        eventId: change.eventId, committedAt: this.states.invalidatedAt, startedAt, issuedAt: wallClock(),
        streams, cpuMs: (used.user + used.system) / 1000, payloads,
      };
    }
    for (const follower of this.followers) follower.changed(state, (scope) => changeTouches(change, scope));
  }

  private send(stream: Stream, frame: Frame): void {
    if (stream.socket.destroyed) return;
    if (stream.socket.writableLength > MAX_QUEUED_BYTES) {
      stream.socket.destroy();
      return;
    }
    stream.socket.write(frame.bytes(stream.chunked));
  }

  get connected(): number {
    return this.groups.connected;
  }

  /** The hydration event as text, serialized once per state, scope and event id (a reconnect storm costs one). */
  private hydration(state: SdkState, scope: TokenScope, key: string): string {
    const memoKey = `stream-hydration\0${this.log.eventId}\0${key}`;
    const memo = state.memo.get(memoKey);
    if (typeof memo === 'string') return memo;
    const text = `event: unleash-connected\nid: ${this.log.eventId}\ndata: ${JSON.stringify(this.log.hydration(state, scope))}\n\n`;
    state.memo.set(memoKey, text);
    return text;
  }

  /** Starts a stream: hydration (or the events after Last-Event-ID), then updates until the client leaves. */
  async open(res: ServerResponse, scope: TokenScope, lastEventId: string | undefined): Promise<void> {
    const state = await this.current();
    const key = scopeKey(scope);
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    // The first write goes through ServerResponse, so the head and its framing are Node's own;
    // later frames go straight to the socket, framed as this response is.
    const since = lastEventId === undefined ? NaN : Number(lastEventId);
    if (Number.isInteger(since) && this.log.knows(since)) {
      const events = this.log.eventsSince(state, scope, since);
      res.write(events.length > 0 ? `event: unleash-updated\nid: ${this.log.eventId}\ndata: ${JSON.stringify({ events })}\n\n` : ': resumed\n\n');
    } else {
      res.write(this.hydration(state, scope, key));
    }
    const socket = res.socket;
    if (!socket || socket.destroyed) return;
    this.groups.join(scope, { res, socket, chunked: res.chunkedEncoding }, res, key);
  }

  /** Gauges of the stream count and of the last fan-out (bench:sdk reads them for the server-side time). */
  registerMetrics(registry: Registry): void {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- prom-client calls collect() with the metric as `this`
    const service = this;
    new Gauge({
      name: 'vane_sdk_streams', help: 'Open /api/client/streaming connections', registers: [registry],
      collect() { this.set(service.connected); },
    });
    const fanOut = (name: string, help: string, read: (f: FanOut) => number) => new Gauge({
      name, help, registers: [registry],
      collect() { if (service.lastFanOut) this.set(read(service.lastFanOut)); },
    });
    fanOut('vane_sdk_stream_fanout_committed_seconds', 'Wall-clock time of the commit the last fan-out pushed (unix seconds)', (f) => f.committedAt / 1000);
    fanOut('vane_sdk_stream_fanout_started_seconds', 'Wall-clock time the last change reached the stream fan-out (unix seconds)', (f) => f.startedAt / 1000);
    fanOut('vane_sdk_stream_fanout_issued_seconds', 'Wall-clock time the last fan-out had issued every socket write (unix seconds)', (f) => f.issuedAt / 1000);
    fanOut('vane_sdk_stream_fanout_cpu_seconds', 'CPU time the last fan-out used (process user + system)', (f) => f.cpuMs / 1000);
    fanOut('vane_sdk_stream_fanout_streams', 'Streams written to by the last fan-out', (f) => f.streams);
    fanOut('vane_sdk_stream_fanout_payloads', 'Distinct payloads the last fan-out serialized (one per token scope)', (f) => f.payloads);
  }

  close(): void {
    this.groups.close((stream) => stream.res.end());
  }
}
