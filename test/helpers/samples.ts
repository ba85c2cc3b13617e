import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { Test } from 'tap';
import { JSON_ADMIN } from './app.js';

/** Recorded request/response pairs of a real Unleash 8.2 (copied from the reference kit). */
export interface Sample {
  file: string;
  number: number;
  request: { method: string; path: string; headers: Record<string, string>; body?: unknown };
  response: { status: number; headers: Record<string, string>; body: unknown };
}

const dir = fileURLToPath(new URL('../../../test/fixtures/unleash-samples/', import.meta.url));

/** A JSON file of test/fixtures, e.g. `fixture('segments/19-segment-create.json')`. */
export function fixture(path: string): any {
  return JSON.parse(readFileSync(fileURLToPath(new URL(`../../../test/fixtures/${path}`, import.meta.url)), 'utf8'));
}

export function loadSamples(): Sample[] {
  return readdirSync(dir)
    .filter((file) => /^\d\d-.*\.json$/.test(file))
    .sort()
    .map((file) => ({ file, number: Number(file.slice(0, 2)), ...JSON.parse(readFileSync(dir + file, 'utf8')) }));
}

/** Sends a sample's request as recorded (headers included), to an app whose admin token is the peer's. */
export async function replay(app: FastifyInstance, sample: Sample) {
  const { method, path, headers, body } = sample.request;
  return await app.inject({
    method: method as never,
    url: path,
    headers,
    ...(body === undefined || body === null ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

/** The reference server's admin token, so samples replay with their own headers. */
export const PEER_ENV = { INIT_ADMIN_API_TOKENS: '*:*.peer-admin-token', INIT_ADMIN_API_TOKEN_NAME: 'peer-admin' };

/** A reference answer recorded as `{body, status, response?}` (test/fixtures/ui-actions). */
export interface RecordedCase { body: Record<string, unknown>; status: number; response?: Record<string, unknown> }

/**
 * POSTs each recorded body to `url` and expects the reference's status and answer in Vane's form:
 * D1 names BadDataError ValidationError, and every error carries an id; no answer is an empty body.
 */
export async function expectRecorded(t: Test, app: FastifyInstance, url: string, cases: readonly RecordedCase[]): Promise<void> {
  for (const recorded of cases) {
    const res = await app.inject({ method: 'POST', url, headers: JSON_ADMIN, payload: recorded.body });
    t.equal(res.statusCode, recorded.status, JSON.stringify(recorded.body));
    if (!recorded.response) {
      t.equal(res.body, '');
      continue;
    }
    const { id, ...rest } = res.json();
    t.type(id, 'string');
    t.same(rest, vaneError(recorded.response));
  }
}

/** A recorded Unleash error body as Vane answers it, without its `id`: D1 names BadDataError ValidationError. */
export function vaneError(recorded: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, ...rest } = recorded;
  return { ...rest, name: rest.name === 'BadDataError' ? 'ValidationError' : rest.name };
}

/** A Vane body without its `id`, as Unleash would name it: D1 names ValidationError BadDataError. */
export function asUnleash(body: Record<string, unknown> | null): unknown {
  if (!body) return body;
  const { id: _id, ...rest } = body;
  return rest.name === 'ValidationError' ? { ...rest, name: 'BadDataError' } : rest;
}

/** A body without its `id` (Unleash omits it in many errors; D1). */
export function withoutId(body: Record<string, unknown> | null): unknown {
  if (!body) return body;
  const { id: _id, ...rest } = body;
  return rest;
}
