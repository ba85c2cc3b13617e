import t from 'tap';
import { readFileSync, readdirSync } from 'node:fs';
import { buildTestApp, JSON_ADMIN } from '../helpers/app.js';

/** The nice value of every thread of this process (Linux /proc: the 19th field of a task's stat). */
function threadNices(): number[] {
  return readdirSync('/proc/self/task').flatMap((tid) => {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      return [Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
    } catch {
      return []; // the thread ended meanwhile
    }
  });
}

const evaluate = async (app: Awaited<ReturnType<typeof buildTestApp>>) => await app.inject({
  method: 'POST', url: '/api/admin/playground', headers: JSON_ADMIN, payload: { environment: 'development', context: { appName: 'a' } },
});

t.test('the evaluation threads run at PLAYGROUND_WORKER_NICE; the main thread keeps its priority', { skip: process.platform !== 'linux' && 'Linux only' }, async (t) => {
  const before = threadNices().filter((nice) => nice === 10).length;
  const app = await buildTestApp(t, { PLAYGROUND_WORKERS: '2', PLAYGROUND_WORKER_NICE: '10' });
  // Two evaluations: each thread lowers itself when it loads its first entry point.
  t.equal((await evaluate(app)).statusCode, 200);
  t.equal((await evaluate(app)).statusCode, 200);
  const deadline = Date.now() + 5000;
  while (threadNices().filter((nice) => nice === 10).length < before + 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  t.equal(threadNices().filter((nice) => nice === 10).length - before, 2, 'both pool threads at nice 10');
  const main = readFileSync('/proc/self/stat', 'utf8');
  t.equal(Number(main.slice(main.lastIndexOf(')') + 2).split(' ')[16]), 0, 'the main thread at 0');
});

t.test('PLAYGROUND_WORKER_NICE=0 leaves the threads alone', { skip: process.platform !== 'linux' && 'Linux only' }, async (t) => {
  const before = threadNices().filter((nice) => nice > 0).length;
  const app = await buildTestApp(t, { PLAYGROUND_WORKERS: '2', PLAYGROUND_WORKER_NICE: '0' });
  t.equal((await evaluate(app)).statusCode, 200);
  t.equal(threadNices().filter((nice) => nice > 0).length, before);
});
