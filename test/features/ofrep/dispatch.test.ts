/**
 * OFREP's bulk evaluation in the worker pool: a worker's answer is the main thread's, byte for byte
 * and with the same ETag, and concurrent requests through the real pool get what a lone request
 * gets.
 */
import t from 'tap';
import { shippedState } from '../../../src/features/frontend-api/shipped-state.js';
import { frontendContext, piece } from '../../../src/features/frontend-api/evaluate.js';
import { answerOfrep, type OfrepQuestion } from '../../../src/features/ofrep/evaluate.js';
import { frontendInput } from '../../../src/features/ofrep/mapping.js';
import answerBatch from '../../../workers/ofrep.js';
import { buildTestApp } from '../../helpers/app.js';
import { createToken } from '../client-api/helpers.js';
import { randomConfiguration as clientRandomConfiguration, seeded } from '../client-api/random-config.js';
import { Random, randomOfrepContext } from './helpers.js';

t.test('OFREP bulk answers from the pool', async (t) => {
  const app = await buildTestApp(t);
  await clientRandomConfiguration(app, seeded(2727), 30);
  const frontend = await createToken(app, 'frontend');
  const random = new Random(2727);
  // Contexts with a userId and a sessionId (this configuration's stickiness fields): without them
  // an answer is random, wherever it runs.
  const contexts = Array.from({ length: 60 }, () => ({ userId: `u${random.int(0, 50)}`, ...randomOfrepContext(random), sessionId: `s${random.int(0, 50)}` }));

  await t.test('a worker\'s copy of the state answers as the main thread', async (t) => {
    const state = await app.sdkStates.get();
    const streams = piece('[]');
    const questions: OfrepQuestion[] = contexts.map((context) => ({
      scope: { projects: ['default'], environment: 'development' }, context: frontendContext(frontendInput(context), '10.0.0.1'), streams,
    }));
    const inWorker = answerBatch(structuredClone({ state: shippedState(state), questions }));
    t.same(inWorker, questions.map((question) => answerOfrep(state, question)));
  });

  await t.test('concurrent requests through the real pool', async (t) => {
    const ask = (context: Record<string, unknown>) => app.inject({
      method: 'POST', url: '/ofrep/v1/evaluate/flags', headers: { authorization: frontend, 'content-type': 'application/json' }, payload: { context },
    });
    const alone = [];
    for (const context of contexts) alone.push(await ask(context));
    const together = await Promise.all(contexts.map(ask));
    t.same(together.map((res) => [res.statusCode, res.body, res.headers.etag]), alone.map((res) => [res.statusCode, res.body, res.headers.etag]));
    const metrics = (await app.inject({ method: 'GET', url: '/internal-backstage/prometheus' })).body;
    const pooled = Number(/vane_ofrep_answers_total\{where="pool"\} (\d+)/.exec(metrics)?.[1] ?? 0);
    t.ok(pooled > 0, `${pooled} answers came from the pool`);
  });
});
