/**
 * One process of bench:sdk's streaming clients (S): opens `count` SSE streams on raw TCP sockets,
 * reports `ready` once each has its `unleash-connected` event, then, for each stream, the
 * wall-clock time (ms) its first `unleash-updated` event arrived. Raw sockets and a byte search for
 * the event line are all the parsing: the clients share the 2 cores with the server, so a full
 * HTTP client and SSE parser per stream would put their own cost into the time measured.
 *
 *   node dist/bench/stream-clients.js <host> <port> <token> <count>   (forked with an IPC channel)
 */
import { connect, type Socket } from 'node:net';
import { commandLine, usageError } from '../tools/cli.js';

const USAGE = `
Usage: node dist/bench/stream-clients.js <host> <port> <token> <count>

Opens <count> SSE streams on /api/client/streaming and reports over its IPC channel when each had
its first update: forked by bench/sdk.ts (scenario S), not run by hand.
`;
const { positionals } = commandLine(USAGE, { allowPositionals: true });
if (positionals.length !== 4) usageError(USAGE, 'expected four arguments');
const [host, portText, token, countText] = positionals as [string, string, string, string];
const port = Number(portText);
const count = Number(countText);
const CONNECTED = Buffer.from('event: unleash-connected');
const UPDATED = Buffer.from('event: unleash-updated');
/** Long enough to find a marker split across two reads. */
const TAIL = Math.max(CONNECTED.length, UPDATED.length);

function send(message: unknown): void {
  process.send?.(message);
}

const sockets: Socket[] = [];
const arrivals: number[] = [];
let armed = false;

function open(): Promise<void> {
  return new Promise((ready, fail) => {
    const socket = connect({ host, port });
    sockets.push(socket);
    let carry: Buffer = Buffer.alloc(0);
    let connected = false;
    let updated = false;
    let checkedStatus = false;
    socket.setNoDelay(true);
    socket.on('error', fail);
    socket.on('connect', () => {
      socket.write(`GET /api/client/streaming HTTP/1.1\r\nHost: ${host}:${port}\r\nAuthorization: ${token}\r\nAccept: text/event-stream\r\n\r\n`);
    });
    socket.on('data', (chunk: Buffer) => {
      if (updated) return;
      const at = performance.timeOrigin + performance.now();
      const data = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
      if (!checkedStatus) {
        checkedStatus = true;
        if (!data.subarray(0, 12).toString('latin1').startsWith('HTTP/1.1 200')) {
          fail(new Error(`stream: ${data.subarray(0, 40).toString('latin1')}`));
          return;
        }
      }
      if (!connected) {
        const i = data.indexOf(CONNECTED);
        if (i >= 0) {
          connected = true;
          ready();
          carry = data.subarray(i + CONNECTED.length);
          carry = carry.subarray(Math.max(0, carry.length - TAIL));
          return;
        }
      } else if (data.indexOf(UPDATED) >= 0) {
        updated = true;
        if (armed) arrivals.push(at);
        if (arrivals.length === count) send({ type: 'done', arrivals });
        return;
      }
      carry = Buffer.from(data.subarray(Math.max(0, data.length - TAIL)));
    });
  });
}

async function main(): Promise<void> {
  // In batches, as a fleet of SDKs would connect over a moment rather than in one instant.
  for (let i = 0; i < count; i += 200) {
    await Promise.all(Array.from({ length: Math.min(200, count - i) }, () => open()));
  }
  armed = true;
  send({ type: 'ready' });
}

process.on('message', (message) => {
  if (message === 'close') {
    for (const socket of sockets) socket.destroy();
    process.exit(0);
  }
});

main().catch((err: unknown) => {
  send({ type: 'error', message: String(err) });
  process.exit(1);
});
