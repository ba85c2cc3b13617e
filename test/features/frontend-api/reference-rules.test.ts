import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { resolveRefs } from '../../../tools/difftest/config.js';
import type { FrontendFixture } from '../../../tools/difftest/record-frontend.js';
import { frontendContext } from '../../../src/features/frontend-api/evaluate.js';
import answerBatch from '../../../workers/frontend-api.js';
import { shippedState } from '../../../src/features/frontend-api/shipped-state.js';
import { buildTestApp, JSON_ADMIN } from '../../helpers/app.js';
import { createToken } from '../client-api/helpers.js';

/**
 * Frontend API answers recorded from the Unleash reference (tools/difftest/record-frontend.ts),
 * compared toggle by toggle: Unleash lists flags in PostgreSQL's row order, so the toggles are
 * compared sorted by name, each toggle's JSON (key order included) as recorded.
 */
export function loadFrontendFixture(name: string): FrontendFixture {
  return JSON.parse(readFileSync(fileURLToPath(new URL(`../../../../test/fixtures/frontend-api/${name}`, import.meta.url)), 'utf8')) as FrontendFixture;
}

export async function applyFixtureConfiguration(app: FastifyInstance, fixture: FrontendFixture): Promise<void> {
  const ids = new Map<string, unknown>();
  for (const request of fixture.configuration) {
    const url = request.path.replace(/\{ref:([^}]+)\}/g, (_m, name: string) => String(ids.get(name)));
    const payload = request.body === undefined ? undefined : (resolveRefs(request.body, ids) as object);
    const res = await app.inject({ method: request.method, url, headers: JSON_ADMIN, ...(payload === undefined ? {} : { payload }) });
    if (res.statusCode >= 300) throw new Error(`${request.method} ${url}: ${res.statusCode} ${res.body}`);
    if (request.capture !== undefined) ids.set(request.capture, res.json().id);
  }
}

/** The toggles of a frontend answer, each as JSON, sorted by flag name; only `names` when given. */
export function togglesByName(body: string, names?: readonly string[]): string[] {
  const toggles = (JSON.parse(body) as { toggles: Array<{ name: string }> }).toggles.filter((toggle) => names === undefined || names.includes(toggle.name));
  return toggles.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((toggle) => JSON.stringify(toggle));
}

t.test('the frontend API answers as the Unleash reference (docs/rules.md §9)', async (t) => {
  const fixture = loadFrontendFixture('reference-rules.json');
  const app = await buildTestApp(t);
  await applyFixtureConfiguration(app, fixture);
  const token = await createToken(app, 'frontend', ['default'], fixture.environment);
  const answers: Array<{ label: string; request: FrontendFixture['requests'][number]; res: LightMyRequestResponse }> = [];
  for (const request of fixture.requests) {
    const res: LightMyRequestResponse = request.method === 'POST'
      ? await app.inject({ method: 'POST', url: '/api/frontend', headers: { authorization: token, 'content-type': 'application/json' }, payload: { context: request.context } })
      : await app.inject({ method: 'GET', url: `/api/frontend${request.query === '' ? '' : `?${request.query}`}`, headers: { authorization: token } });
    answers.push({ label: `${request.method} ${request.method === 'POST' ? JSON.stringify(request.context) : request.query}`, request, res });
  }
  await t.test('statuses (a POST context is validated as Unleash validates it)', async (t) => {
    for (const { label, request, res } of answers) t.equal(res.statusCode, request.status, label);
  });
  await t.test('a worker thread answers the same (dispatch.ts sends it some of the requests)', async (t) => {
    const state = await app.sdkStates.get();
    const scope = { projects: ['default'], environment: fixture.environment };
    for (const { label, request } of answers) {
      if (request.status !== 200) continue;
      const input = request.method === 'POST' ? request.context : Object.fromEntries(new URLSearchParams(request.query));
      const question = { scope, context: frontendContext(input, '127.0.0.1'), all: false };
      const [worker] = answerBatch(structuredClone({ state: shippedState(state), questions: [question] }));
      t.same(togglesByName(worker!.body.toString()), togglesByName(request.body!), label);
    }
  });
  for (const [rule, names] of Object.entries(fixture.groups!)) {
    await t.test(rule, async (t) => {
      for (const { label, request, res } of answers) {
        if (request.status === 200) t.same(togglesByName(res.body, names), togglesByName(request.body!, names), label);
      }
    });
  }
});
