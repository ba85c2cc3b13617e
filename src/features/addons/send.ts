/**
 * One POST to a webhook: to the address its URL was checked at (url.ts), within a deadline,
 * never following a redirect (a 30x could point at an internal host), the answer's body read and
 * dropped. Resolves with the status, or with the reason no status came.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { CheckedUrl } from './url.js';

export type PostResult = { status: number } | { error: string };

export function post(target: CheckedUrl, headers: Record<string, string>, body: string, timeoutMs: number): Promise<PostResult> {
  const client = target.url.protocol === 'https:' ? https : http;
  const pinned: LookupFunction = (_host, options, callback) => {
    if (options.all) (callback as unknown as (err: null, all: Array<{ address: string; family: number }>) => void)(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  return new Promise((resolve) => {
    let settled = false;
    const done = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const request = client.request(target.url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      lookup: pinned,
      // A fresh connection per delivery: a receiver that restarts leaves no dead keep-alive socket behind.
      agent: false,
    }, (response) => {
      response.resume();
      response.on('end', () => done({ status: response.statusCode ?? 0 }));
      response.on('error', (err) => done({ error: err.message }));
    });
    const timer = setTimeout(() => {
      done({ error: `no answer within ${timeoutMs} ms` });
      request.destroy();
    }, timeoutMs);
    request.on('error', (err: NodeJS.ErrnoException) => done({ error: err.code ?? err.message }));
    request.end(body);
  });
}
