import t from 'tap';
import type { FastifyInstance } from 'fastify';
import type { SdkState } from '../../../src/features/client-api/state.js';
import { FrontendDispatcher, type FrontendPool } from '../../../src/features/frontend-api/dispatch.js';
import {
  answerQuestion, frontendContext, frontendToggles, type FrontendAnswer, type FrontendQuestion,
} from '../../../src/features/frontend-api/evaluate.js';
import answerBatch from '../../../workers/frontend-api.js';
import { WorkerStates } from '../../../workers/sdk-state.js';
import { shippedState, type BatchTask } from '../../../src/features/frontend-api/shipped-state.js';
import { buildTestApp, JSON_ADMIN } from '../../helpers/app.js';
import { createToken } from '../client-api/helpers.js';
import { randomConfiguration, randomContext, seeded } from '../client-api/random-config.js';

const SCOPE = { projects: ['default'], environment: 'development' };

/**
 * A random context with a userId and a sessionId: without them, "default" stickiness is random
 * (as in every SDK), and two evaluations of one context may differ wherever they run.
 */
function stickyContext(rng: () => number): Record<string, unknown> {
  return { userId: String(Math.floor(rng() * 200)), ...randomContext(rng) };
}

function questions(rng: () => number, count: number): FrontendQuestion[] {
  return Array.from({ length: count }, () => ({ scope: SCOPE, context: frontendContext(stickyContext(rng), '10.1.2.3'), all: rng() < 0.3 }));
}

function inPlace(state: SdkState, question: FrontendQuestion): FrontendAnswer {
  return answerQuestion(state, question);
}

/** A pool that answers in this thread with the worker's own function, and counts its tasks. */
class InThreadPool implements FrontendPool {
  idle = 1;
  tasks: BatchTask<FrontendQuestion>[] = [];
  failWith: Error | undefined;
  idleThreads(): number {
    return this.idle;
  }
  async run(task: BatchTask<FrontendQuestion>): Promise<FrontendAnswer[]> {
    this.tasks.push(task);
    if (this.failWith) throw this.failWith;
    // Through the structured clone a real task goes through, so nothing shared by reference helps.
    return answerBatch(structuredClone(task));
  }
}

async function write(app: FastifyInstance, method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown): Promise<void> {
  const res = await app.inject({ method, url, headers: JSON_ADMIN, ...(payload === undefined ? {} : { payload: payload as object }) });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
}

t.test('frontend answers from the pool', async (t) => {
  const app = await buildTestApp(t);
  const rng = seeded(1501);
  await randomConfiguration(app, rng, 25);

  await t.test('a worker copy of the state answers byte for byte as the main thread, across incremental changes', async (t) => {
    const worker = new WorkerStates();
    const check = async (label: string) => {
      const state = await app.sdkStates.get();
      const source = worker.source(shippedState(state));
      let differing = 0;
      for (const question of questions(rng, 150)) {
        const main = inPlace(state, question);
        const copy = answerQuestion(source, question);
        if (!main.body.equals(copy.body) || main.etag !== copy.etag) differing++;
      }
      t.equal(differing, 0, `${label}: 150 random contexts`);
      return source;
    };
    const first = await check('first build (full compile)');
    const base = '/api/admin/projects/default/features';
    await write(app, 'POST', `${base}/flag-3/environments/development/strategies`, {
      name: 'flexibleRollout', parameters: { rollout: '37', stickiness: 'default', groupId: 'g3' },
      constraints: [{ contextName: 'country', operator: 'IN', values: ['no'] }],
    });
    await write(app, 'POST', `${base}/flag-4/environments/development/off`);
    const second = await check('a strategy added and a flag turned off (two flags recompiled)');
    t.equal(second.compiled.flags.get('flag-0'), first.compiled.flags.get('flag-0'), 'an unchanged flag keeps its compiled form in the worker');
    t.not(second.compiled.flags.get('flag-3'), first.compiled.flags.get('flag-3'), 'a changed flag is recompiled');
    await write(app, 'POST', base, { name: 'flag-new', impressionData: true });
    await write(app, 'POST', `${base}/flag-new/environments/development/on`);
    await write(app, 'DELETE', `${base}/flag-5`);
    await write(app, 'PUT', '/api/admin/segments/1', { name: 'seg-0', constraints: [{ contextName: 'userId', operator: 'IN', values: ['1', '42'] }] });
    const third = await check('a flag created, one archived, a segment changed');
    t.ok(third.compiled.flags.has('flag-new'));
    t.notOk(third.compiled.flags.has('flag-5'), 'the archived flag is gone from the worker copy');
    t.ok(third.flags.some((flag) => flag.name === 'flag-new' && flag.impressionData), 'impressionData travels with the flag');
  });

  await t.test('one request in a turn is answered in place; a turn of several is shared half and half', async (t) => {
    const state = await app.sdkStates.get();
    const pool = new InThreadPool();
    const dispatcher = new FrontendDispatcher(pool);
    const single = questions(rng, 1)[0]!;
    t.same(await dispatcher.answer(state, single), inPlace(state, single));
    t.equal(pool.tasks.length, 0, 'no task for a lone request');
    const turn = questions(rng, 7);
    const answers = await Promise.all(turn.map((question) => dispatcher.answer(state, question)));
    t.same(answers, turn.map((question) => inPlace(state, question)), 'every answer equals the main thread’s, in request order');
    t.equal(pool.tasks.length, 1, 'one task for the turn');
    t.equal(pool.tasks[0]!.questions.length, 3, 'the later half went to the pool');
    t.same(dispatcher.counts, { pool: 3, main: 5, fallback: 0, tasks: 1 });
  });

  await t.test('no idle thread: the turn is answered in place', async (t) => {
    const state = await app.sdkStates.get();
    const pool = new InThreadPool();
    pool.idle = 0;
    const dispatcher = new FrontendDispatcher(pool);
    const turn = questions(rng, 6);
    t.same(await Promise.all(turn.map((question) => dispatcher.answer(state, question))), turn.map((question) => inPlace(state, question)));
    t.equal(pool.tasks.length, 0);
  });

  await t.test('a failed task is answered on the main thread, and reported', async (t) => {
    const state = await app.sdkStates.get();
    const pool = new InThreadPool();
    pool.failWith = new Error('worker exited');
    const failures: unknown[] = [];
    const dispatcher = new FrontendDispatcher(pool, (err) => failures.push(err));
    const turn = questions(rng, 8);
    t.same(await Promise.all(turn.map((question) => dispatcher.answer(state, question))), turn.map((question) => inPlace(state, question)));
    t.equal(failures.length, 1);
    t.same(dispatcher.counts, { pool: 0, main: 4, fallback: 4, tasks: 1 });
  });

  await t.test('a request that sees a newer state answers the older turn first, each against its own state', async (t) => {
    const older = await app.sdkStates.get();
    const pool = new InThreadPool();
    const dispatcher = new FrontendDispatcher(pool);
    const before = questions(rng, 3);
    const pending = before.map((question) => dispatcher.answer(older, question));
    await write(app, 'POST', '/api/admin/projects/default/features/flag-6/environments/development/off');
    const newer = await app.sdkStates.get();
    t.not(newer, older);
    const after = questions(rng, 3);
    const later = after.map((question) => dispatcher.answer(newer, question));
    t.same(await Promise.all(pending), before.map((question) => inPlace(older, question)));
    t.same(await Promise.all(later), after.map((question) => inPlace(newer, question)));
  });
});

t.test('the real pool: concurrent requests share it, answers equal the main thread’s, a killed worker loses nothing', async (t) => {
  const app = await buildTestApp(t, { PLAYGROUND_WORKERS: '2' });
  const rng = seeded(1502);
  await randomConfiguration(app, rng, 20);
  const token = await createToken(app, 'frontend');
  const contexts = Array.from({ length: 60 }, () => stickyContext(rng));
  const ask = (context: Record<string, unknown>) => app.inject({
    method: 'POST', url: '/api/frontend', headers: { authorization: token, 'content-type': 'application/json' }, payload: { context },
  });
  const expected = async () => {
    const state = await app.sdkStates.get();
    return contexts.map((context) => frontendToggles(state, SCOPE, frontendContext(context, '127.0.0.1'), false).body.toString());
  };

  const counts = () => app.frontendDispatcher.counts;
  const poolBefore = counts().pool;
  const bodies = (await Promise.all(contexts.map(ask))).map((res) => res.body);
  t.same(bodies, await expected(), '60 concurrent requests');
  t.ok(counts().pool > poolBefore, `some answers came from the pool (${counts().pool - poolBefore})`);

  // A write, then concurrent requests again: the workers pick up the new build.
  await write(app, 'POST', '/api/admin/projects/default/features/flag-2/environments/development/off');
  t.same((await Promise.all(contexts.map(ask))).map((res) => res.body), await expected(), 'after a write');

  // Kill every worker while a turn's task is in flight: its requests are answered on the main thread.
  const fallbackBefore = counts().fallback;
  const inFlight = contexts.map(ask);
  await new Promise((resolve) => setImmediate(resolve));
  await Promise.all(app.workerPool.piscina.threads.map((thread) => thread.terminate()));
  const answered = await Promise.all(inFlight);
  t.same(answered.map((res) => res.statusCode), contexts.map(() => 200), 'every request answered 200');
  t.same(answered.map((res) => res.body), await expected(), 'with the right bodies');
  t.ok(counts().fallback > fallbackBefore, `answers of the killed task were given on the main thread (${counts().fallback - fallbackBefore})`);
  // The pool replaces its threads; later turns use them again.
  const deadline = Date.now() + 10_000;
  while (app.workerPool.idleThreads === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  t.ok(app.workerPool.idleThreads > 0, `the pool has idle threads again (${app.workerPool.piscina.threads.length} threads)`);
  const poolAgain = counts().pool;
  t.same((await Promise.all(contexts.map(ask))).map((res) => res.body), await expected(), 'after the pool replaced its threads');
  t.ok(counts().pool > poolAgain, 'the replaced threads answer again');
});

t.test('FRONTEND_EVALUATION=main answers every request in place', async (t) => {
  const app = await buildTestApp(t, { FRONTEND_EVALUATION: 'main' });
  const rng = seeded(1503);
  await randomConfiguration(app, rng, 5);
  const token = await createToken(app, 'frontend');
  const results = await Promise.all(Array.from({ length: 20 }, () => app.inject({
    method: 'GET', url: `/api/frontend?userId=${Math.floor(rng() * 100)}`, headers: { authorization: token },
  })));
  t.same(results.map((res) => res.statusCode), results.map(() => 200));
  t.same(app.frontendDispatcher.counts, { pool: 0, main: 20, fallback: 0, tasks: 0 });
});
