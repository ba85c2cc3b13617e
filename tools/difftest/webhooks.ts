/**
 * What the webhook recorder (record-webhooks.ts) and Vane's webhook tests share: a receiver on
 * loopback that keeps every request, the scenario both send, and the normalisation that makes a
 * delivery comparable (event ids, times and transaction group ids replaced).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

/** Headers compared: the ones the webhook sets (the rest is the HTTP client's). */
const KEPT_HEADERS = ['content-type', 'authorization', 'x-team'];

export interface Receiver {
  url: string;
  received: Received[];
  /** The status a path answers (default 200); `hang` never answers. */
  answer: (path: string) => number | 'hang';
  close(): Promise<void>;
}

export async function startReceiver(port = 0): Promise<Receiver> {
  const received: Received[] = [];
  const hanging = new Set<http.ServerResponse>();
  const receiver: Receiver = {
    url: '',
    received,
    answer: (path) => (path.includes('fail') ? 500 : 200),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => { body += chunk.toString('utf8'); });
    req.on('end', () => {
      const headers = Object.fromEntries(KEPT_HEADERS.flatMap((name) => (req.headers[name] === undefined ? [] : [[name, String(req.headers[name])]])));
      received.push({ path: req.url ?? '', headers, body, at: Date.now() });
      const status = receiver.answer(req.url ?? '');
      if (status === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(status).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

/** The configurations the scenario creates, `{receiver}` replaced by the receiver's URL. */
export function scenarioAddons(receiver: string): Array<Record<string, unknown>> {
  return [
    { provider: 'webhook', enabled: true, parameters: { url: `${receiver}/plain` }, events: ['feature-created', 'feature-environment-enabled'] },
    {
      provider: 'webhook', enabled: true, description: 'templated',
      parameters: {
        url: `${receiver}/template`, authorization: 'Bearer tok', contentType: 'text/plain', customHeaders: '{"X-Team":"flags"}',
        bodyTemplate: '{"type":"{{event.type}}","by":"{{event.createdBy}}","flag":"{{event.data.name}}","escaped":"{{event.data.description}}",'
          + '"raw":"{{{event.data.description}}}","json":{{{eventJson}}},"tags":"{{#event.tags}}{{value}};{{/event.tags}}",'
          + '"none":"{{^event.preData}}no preData{{/event.preData}}"}',
      },
      events: ['feature-created'], projects: ['default'], environments: ['development'],
    },
    { provider: 'webhook', enabled: true, parameters: { url: `${receiver}/other-project` }, events: ['feature-created'], projects: ['elsewhere'] },
    { provider: 'webhook', enabled: true, parameters: { url: `${receiver}/production` }, events: ['feature-environment-enabled'], environments: ['production'] },
    { provider: 'webhook', enabled: true, parameters: { url: `${receiver}/fail` }, events: ['feature-created'] },
    { provider: 'webhook', enabled: false, parameters: { url: `${receiver}/disabled` }, events: ['feature-created'] },
  ];
}

/** The writes whose events are delivered: `[method, path, body]`; `{flag}` is the run's flag name. */
export const SCENARIO_WRITES: ReadonlyArray<[string, string, unknown]> = [
  ['POST', '/api/admin/projects/default/features', { name: '{flag}', description: '<b>"Tom" & Jerry</b> / =`x`' }],
  ['POST', '/api/admin/projects/default/features/{flag}/environments/development/on', undefined],
];

/** A delivered body or a listed event made comparable: ids, times and group ids replaced, the flag's name as `{flag}`. */
export function normaliseDelivery(value: unknown, flag: string): unknown {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const replaced = text
    .replaceAll(flag, '{flag}')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>')
    .replace(/(\\*)"id\1":\d+/g, '$1"id$1":$1"<id>$1"')
    .replace(/(\\*"groupId\\*":\\*")[0-9A-Za-z-]+/g, '$1<group>');
  return typeof value === 'string' ? replaced : JSON.parse(replaced) as unknown;
}
