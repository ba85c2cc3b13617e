import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { Test } from 'tap';
import { JSON_ADMIN } from './app.js';
import { eventView, normaliseAdmin, type EventView } from '../../tools/difftest/admin-run.js';
import { resolveRefs } from '../../tools/difftest/config.js';
import { capturedId, recordedBody, withKept, withRefs, type RecordedStep } from '../../tools/difftest/recorded-steps.js';

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

/** Unleash's message for a validation error whose own text it drops (src/errors.ts, unnamedValidationError). */
const UNNAMED_REASON = 'A validation error occurred while processing your request data. Please make sure it conforms to the request data schema.';

/**
 * Sends each recorded step (tools/difftest/record-admin.ts) to Vane in order, with the admin token
 * the app was built with, and expects the reference's status, body and events, made comparable as
 * they were recorded. Error bodies are compared in Vane's form (`vaneError`); where the reference
 * answered an error with no body (a 403), Vane's names `emptyErrorAs`; where with only a message,
 * Vane's carries it.
 */
export async function expectRecordedSteps(
  t: Test, app: FastifyInstance, steps: readonly RecordedStep[], options: {
    token?: string; personToken?: string; emptyErrorAs?: string; arrange?: (events: unknown[]) => unknown[];
    keptBefore?: readonly RecordedStep[]; unorderedEvents?: RegExp;
    /** Puts an answer (Vane's and the recorded one alike) in one order where the reference's has none. */
    arrangeAnswer?: (step: RecordedStep, answer: unknown) => unknown;
  } = {},
): Promise<void> {
  const token = options.token ?? PEER_ENV.INIT_ADMIN_API_TOKENS;
  const ids = new Map<string, unknown>();
  // What the reference answered, not Vane: a kept export imported later is the reference's file.
  const kept = new Map([...(options.keptBefore ?? []), ...steps].flatMap((step) => (step.keep === undefined ? [] : [[step.keep, step.response] as const])));
  const latest = async () => (await app.inject({ method: 'GET', url: '/api/admin/search/events?limit=50', headers: { authorization: token } })).json().events as EventView[];
  let last = Math.max(0, ...(await latest()).map((event) => event.id));
  for (const [index, step] of steps.entries()) {
    const url = step.path.replace(/\{ref:([^}]+)\}/g, (_m, name: string) => String(ids.get(name) ?? name));
    if (step.as === 'person' && options.personToken === undefined) throw new Error('a step as a person needs options.personToken');
    const res = await app.inject({
      method: step.method as never,
      url,
      headers: {
        authorization: step.as === 'person' ? options.personToken! : token, ...(step.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(step.body === undefined ? {} : { payload: JSON.stringify(resolveRefs(withKept(step.body, kept), ids)) }),
    });
    const events = (await latest()).filter((event) => event.id > last).reverse();
    last = Math.max(last, ...events.map((event) => event.id));
    const body = recordedBody(res.body, step.only);
    if (step.capture !== undefined && capturedId(body, step) !== undefined) ids.set(step.capture, capturedId(body, step));
    const label = `#${index} ${step.method} ${step.path} ${JSON.stringify(step.body ?? null).slice(0, 120)}`;
    t.equal(res.statusCode, step.status, label);
    const arrangeAnswer = (value: unknown) => (options.arrangeAnswer ? options.arrangeAnswer(step, value) : value);
    const answer = arrangeAnswer(normaliseAdmin(withRefs(body, ids), 'peer-admin'));
    const expected = arrangeAnswer(step.keep === undefined ? step.response : normaliseAdmin(withRefs(step.response, ids), 'peer-admin'));
    if (step.status === 201 && isObject(answer) && isObject(step.response)) {
      // D6: a created flag answers with the whole flag, whose first keys are the reference's.
      t.same(Object.fromEntries(Object.keys(answer).slice(0, Object.keys(step.response).length).map((k) => [k, answer[k]])), step.response, label);
    } else if (step.status! >= 400 && step.response === '') {
      t.equal((answer as { name?: string }).name, options.emptyErrorAs, `${label}: the error Vane names where the reference sends no body`);
    } else if (step.status! >= 400 && String((step.response as { message?: unknown }).message).endsWith(UNNAMED_REASON)) {
      // D20: where Unleash's one detail repeats its unnamed message, Vane's names the reason.
      const { details: _vane, ...vane } = vaneError(answer as Record<string, unknown>);
      const { details: _reference, ...reference } = vaneError(step.response as Record<string, unknown>);
      t.same(vane, reference, label);
    } else if (step.status! >= 400 && isObject(step.response) && step.response.name === undefined) {
      // A body of only a message (Unleash's middlewares: maintenance mode, a token of the wrong type): D1 adds the rest.
      t.match(answer, { ...step.response, name: String, details: [{ message: step.response.message }] }, label);
    } else if (step.status! >= 400) {
      t.same(vaneError(answer as Record<string, unknown>), vaneError(step.response as Record<string, unknown>), label);
    } else {
      t.same(answer, expected, label);
      if (step.keep !== undefined) t.equal(JSON.stringify(answer), JSON.stringify(expected), `${label}: key order`);
    }
    const seen = events.map((event) => eventView(withRefs(event, ids) as EventView, 'peer-admin'));
    // `arrange` puts both servers' events in one order where Vane's is its own on purpose (a §0
    // decision); where the reference writes concurrently (its order changes between runs), the
    // events after the first are compared as a set.
    const arrange = options.arrange ?? ((list: unknown[]) => list);
    const ordered = (list: unknown[]) => (options.unorderedEvents?.test(step.path)
      ? [list[0], ...list.slice(1).map((e) => JSON.stringify(e)).sort()]
      : arrange(list));
    t.same(ordered(seen), ordered(step.events ?? []), `${label}: events`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
