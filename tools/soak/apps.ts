/**
 * The soak's applications (tools/soak/run.ts), in a process of their own as real ones are: server
 * SDKs (`unleash-client`) evaluating every flag for rotating users and posting metrics every
 * second, a streaming SDK, and browser SDKs (`unleash-proxy-client`). In the soak's own process
 * their evaluation loops held its event loop: its SDK-poll probe read a 1.3 MB answer in 10.7 s
 * (p50) that another process read in 10 ms, and each such read delayed the freeze phase's
 * `/ready` polls (503 seen after 9.1 s). Started with `fork`; told what to run by one `start`
 * message; answers `stop` with its SDK error count and exits.
 */
import { InMemStorageProvider, Unleash } from 'unleash-client';
import { InMemoryStorageProvider, UnleashClient } from 'unleash-proxy-client';

export interface AppsStart {
  type: 'start';
  /** Each SDK talks to one instance, in turn. */
  urls: string[];
  clientToken: string;
  frontendToken: string;
  flagNames: string[];
  serverSdks: number;
  browserSdks: number;
}

export interface AppsStopped {
  type: 'stopped';
  sdkErrors: number;
}

let sdkErrors = 0;
let stopped = false;
const stops: Array<() => void> = [];
const loops: Array<Promise<void>> = [];

function loop(fn: () => Promise<void> | void, pauseMs: number): void {
  loops.push((async () => {
    while (!stopped) {
      try {
        await fn();
      } catch {
        sdkErrors++;
      }
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  })());
}

function start(message: AppsStart): void {
  let turn = 0;
  const base = () => message.urls[turn++ % message.urls.length]!;
  const { clientToken, frontendToken, flagNames } = message;
  for (let i = 0; i < message.serverSdks; i++) {
    const sdk = new Unleash({
      url: `${base()}/api`, appName: `soak-server-${i}`, instanceId: `soak-${i}`, customHeaders: { authorization: clientToken },
      refreshInterval: 1000, metricsInterval: 1000, storageProvider: new InMemStorageProvider(),
    });
    sdk.on('error', () => { sdkErrors++; });
    sdk.on('warn', () => undefined);
    stops.push(() => sdk.destroy());
    let n = 0;
    loop(() => {
      // Every flag for one rotating user, as a request handler would.
      const context = { userId: `user-${n++ % 5000}`, sessionId: `s-${n % 97}`, properties: { tenant: 'acme' } };
      for (const name of flagNames) {
        sdk.isEnabled(name, context);
        sdk.getVariant(name, context);
      }
    }, 20);
  }
  const streaming = new Unleash({
    url: `${base()}/api`, appName: 'soak-streaming', customHeaders: { authorization: clientToken }, refreshInterval: 60_000,
    metricsInterval: 1000, storageProvider: new InMemStorageProvider(), experimentalMode: { type: 'streaming' },
  });
  streaming.on('error', () => { sdkErrors++; });
  streaming.on('warn', () => undefined);
  stops.push(() => streaming.destroy());
  for (let i = 0; i < message.browserSdks; i++) {
    const client = new UnleashClient({
      url: `${base()}/api/frontend`, clientKey: frontendToken, appName: `soak-web-${i}`, refreshInterval: 1, metricsInterval: 1,
      // unleash-proxy-client's declarations import './storage-provider-inmemory' without the extension NodeNext needs:
      // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call
      storageProvider: new InMemoryStorageProvider(), context: { userId: `web-${i}` },
    });
    client.on('error', () => { sdkErrors++; });
    void client.start();
    stops.push(() => client.stop());
    let n = 0;
    loop(async () => {
      await client.updateContext({ userId: `web-${i}-${n++ % 300}` });
      for (const name of flagNames.slice(0, 50)) client.isEnabled(name);
    }, 200);
  }
}

process.on('message', (message: AppsStart | { type: 'stop' }) => {
  if (message.type === 'start') start(message);
  else {
    stopped = true;
    for (const stop of stops) stop();
    void Promise.all(loops).then(() => {
      process.send!({ type: 'stopped', sdkErrors } satisfies AppsStopped, () => process.exit(0));
    });
  }
});
// The soak gone (killed, crashed): nothing left to serve.
process.on('disconnect', () => process.exit(0));
