import t from 'tap';
import type { Piscina } from 'piscina';
import { PoolScheduler } from '../../src/plugins/pool-scheduler.js';
import type { Task } from '../../workers/protocol.js';

/** A pool whose tasks finish when the test says so, recording the order they started in. */
function fakePool() {
  const started: string[] = [];
  const finishers = new Map<string, (value: unknown) => void>();
  const aborted: string[] = [];
  const piscina = {
    run(task: Task, options: { signal?: AbortSignal }) {
      const name = label(task);
      started.push(name);
      return new Promise((resolve, reject) => {
        finishers.set(name, resolve);
        options.signal?.addEventListener('abort', () => {
          aborted.push(name);
          reject(new Error('aborted while running'));
        }, { once: true });
      });
    },
  } as unknown as Piscina;
  const finish = async (name: string) => {
    finishers.get(name)!(new Uint8Array());
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { piscina, started, aborted, finish };
}

/** Tasks named by their appName (deprecated: interactive) or their first context index (batch: bulk). */
const deprecated = (name: string) => ({ kind: 'deprecated', context: { appName: name } }) as unknown as Task;
const batch = (name: string) => ({ kind: 'batch', start: 0, end: 100, environments: ['development'], name }) as unknown as Task;
const frontend = (name: string) => ({ kind: 'frontend', questions: [1, 2], name }) as unknown as Task;
function label(task: Task): string {
  const loose = task as unknown as { name?: string; context?: { appName: string } };
  return loose.name ?? loose.context!.appName;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

t.test('queued work starts by lane: SDK, then interactive, then bulk; first come first served within a lane', async (t) => {
  const pool = fakePool();
  const scheduler = new PoolScheduler(pool.piscina, { threads: 1, maxWaitMs: 10_000, maxQueue: 10 });
  const results = [
    scheduler.run(batch('bulk-running')),
    scheduler.run(batch('bulk-1')),
    scheduler.run(deprecated('interactive-1')),
    scheduler.run(batch('bulk-2')),
    scheduler.run(frontend('sdk-1')),
    scheduler.run(deprecated('interactive-2')),
  ];
  t.same(pool.started, ['bulk-running'], 'one thread: one task at a time');
  t.equal(scheduler.idleThreads, 0);
  for (const name of ['bulk-running', 'sdk-1', 'interactive-1', 'interactive-2', 'bulk-1', 'bulk-2']) await pool.finish(name);
  t.same(pool.started, ['bulk-running', 'sdk-1', 'interactive-1', 'interactive-2', 'bulk-1', 'bulk-2']);
  await Promise.all(results);
  t.equal(scheduler.idleThreads, 1, 'idle again');
});

t.test('admission by expected wait: refused at once with Retry-After once the work ahead would not start in time', async (t) => {
  const pool = fakePool();
  const scheduler = new PoolScheduler(pool.piscina, { threads: 1, maxWaitMs: 1000, maxQueue: 64 });
  t.equal(scheduler.expectedWaitMs('interactive'), 0, 'an idle pool: no wait');
  // Teach it what a deprecated task costs: ~200 ms.
  const first = scheduler.run(deprecated('learn'));
  await new Promise((resolve) => setTimeout(resolve, 200));
  await pool.finish('learn');
  await first;
  const queued = ['a', 'b', 'c', 'd', 'e', 'f'].map((name) => scheduler.run(deprecated(name)));
  // One running, five queued at ~200 ms each: about 1 s ahead of new interactive work.
  const wait = scheduler.expectedWaitMs('interactive');
  t.ok(wait > 900 && wait < 1400, `expected wait ${Math.round(wait)} ms`);
  t.ok(scheduler.expectedWaitMs('sdk') < wait, 'SDK work does not wait behind queued interactive work');
  t.doesNotThrow(() => scheduler.admit('sdk'), 'SDK work is still admitted');
  queued.push(scheduler.run(deprecated('g')));
  const refused = (() => {
    try {
      scheduler.admit('interactive');
      return undefined;
    } catch (err) {
      return err as { statusCode: number; name: string; headers: Record<string, string> };
    }
  })();
  t.ok(refused, 'refused');
  t.equal(refused?.statusCode, 503);
  t.equal(refused?.name, 'ServiceUnavailable');
  t.match(refused?.headers['retry-after'], /^[1-9]\d*$/, 'with Retry-After');
  t.same(scheduler.stats().refused, { sdk: 0, interactive: 1, bulk: 0 });
  for (const name of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) await pool.finish(name);
  await Promise.all(queued);
  t.doesNotThrow(() => scheduler.admit('interactive'), 'admitted again once the queue drained');
});

t.test('queued work that has not started within twice the bound is dropped with 503; the thread is not lost', async (t) => {
  const pool = fakePool();
  const scheduler = new PoolScheduler(pool.piscina, { threads: 1, maxWaitMs: 50, maxQueue: 64 });
  const running = scheduler.run(deprecated('long'));
  const queuedAt = Date.now();
  const waiting = scheduler.run(deprecated('waiting'));
  const failure = await waiting.then(() => undefined, (err: { statusCode?: number }) => err);
  t.equal(failure?.statusCode, 503);
  t.ok(Date.now() - queuedAt >= 90, `dropped after ${Date.now() - queuedAt} ms`);
  t.same(scheduler.stats().dropped, { sdk: 0, interactive: 1, bulk: 0 });
  t.same(pool.started, ['long'], 'the dropped task never reached a thread');
  await pool.finish('long');
  await running;
  const next = scheduler.run(deprecated('next'));
  t.same(pool.started, ['long', 'next']);
  await pool.finish('next');
  await next;
});

t.test('abort: a queued task leaves the queue without running; a running one gets the signal', async (t) => {
  const pool = fakePool();
  const scheduler = new PoolScheduler(pool.piscina, { threads: 1, maxWaitMs: 10_000, maxQueue: 64 });
  const runningController = new AbortController();
  const queuedController = new AbortController();
  const running = scheduler.run(deprecated('running'), runningController.signal).then(() => 'done', () => 'failed');
  const queued = scheduler.run(deprecated('queued'), queuedController.signal).then(() => 'done', () => 'failed');
  queuedController.abort(new Error('client gone'));
  t.equal(await queued, 'failed');
  t.equal(scheduler.queued, 0);
  runningController.abort(new Error('budget'));
  t.equal(await running, 'failed');
  t.same(pool.aborted, ['running']);
  await settle();
  t.same(pool.started, ['running'], 'the aborted queued task never ran');
  t.equal(scheduler.idleThreads, 1);
});

t.test('the queue is bounded whatever the estimates say', async (t) => {
  const pool = fakePool();
  const scheduler = new PoolScheduler(pool.piscina, { threads: 1, maxWaitMs: 10_000, maxQueue: 2 });
  const jobs = ['r', 'q1', 'q2', 'q3'].map((name) => scheduler.run(deprecated(name)).then(() => 200, (err: { statusCode: number }) => err.statusCode));
  t.throws(() => scheduler.admit('interactive'), 'admission sees the full queue');
  for (const name of ['r', 'q1', 'q2']) await pool.finish(name);
  t.same(await Promise.all(jobs), [200, 200, 200, 503]);
});
