import t from 'tap';
import { buildApp } from '../../src/app.js';
import { ADMIN, dropDatabase, testConfig } from '../helpers/app.js';

t.test('start-up: health answers while the state loads; /ready and the API say 503 + Retry-After until it has', async (t) => {
  const config = await testConfig(t, { PLAYGROUND_WORKERS: '2' });
  t.teardown(() => dropDatabase(config));
  let release!: () => void;
  const holdLoad = new Promise<void>((r) => (release = r));
  const app = await buildApp(config, { logger: false, loadInBackground: true, holdLoad });
  t.teardown(() => app.close());

  t.equal((await app.inject({ url: '/health' })).statusCode, 200);
  t.equal((await app.inject({ url: '/ready' })).statusCode, 503);
  t.equal(app.workerPool.threads.length, 0, 'no worker thread takes CPU from the load');
  const early = await app.inject({ url: '/api/admin/projects', headers: ADMIN });
  t.equal(early.statusCode, 503);
  t.equal(early.json().name, 'ServiceUnavailable');
  t.ok(Number(early.headers['retry-after']) > 0, 'with Retry-After');

  release();
  await app.loaded;
  t.equal((await app.inject({ url: '/ready' })).statusCode, 200);
  t.equal((await app.inject({ url: '/api/admin/projects', headers: ADMIN })).statusCode, 200);

  // Then the threads start, all of them, and stay: one that exits is replaced.
  const deadline = Date.now() + 10_000;
  while (app.workerPool.idleThreads < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  t.equal(app.workerPool.threads.length, 2, 'PLAYGROUND_WORKERS threads once loaded');
  t.equal(app.workerPool.options.minThreads, 2, 'kept: min = max');
  await app.workerPool.threads[0]!.terminate();
  while (app.workerPool.idleThreads < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  t.equal(app.workerPool.idleThreads, 2, 'a thread that exited is replaced');
});
