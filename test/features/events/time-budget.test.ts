import t, { type Test } from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { ApiError } from '../../../src/errors.js';
import { EventSearchService, SEARCH_TIME_BUDGET_MS } from '../../../src/features/events/service.js';
import { seedLog } from './helpers.js';

function assertBudget503(t: Test, err: unknown, budget: number): void {
  t.ok(err instanceof ApiError, `a ${budget} ms budget is exceeded`);
  t.equal((err as ApiError).statusCode, 503);
  t.equal((err as ApiError).name, 'ServiceUnavailable');
  t.equal((err as ApiError).headers['retry-after'], '1');
  t.match((err as ApiError).message, new RegExp(`^The event search took longer than ${budget} ms and was stopped\\. Narrow it with`));
}

t.test('a free-text search over its time budget is stopped and answered 503', async (t) => {
  const app = await buildTestApp(t);
  await seedLog(app, Array.from({ length: 5000 }, (_, i) => ({
    id: 6 + i, type: 'filler', createdAt: new Date(Date.UTC(2021, 0, 1) + i * 1000),
    data: { n: i, text: `lorem ipsum ${i} dolor sit amet` },
  })));

  t.equal(SEARCH_TIME_BUDGET_MS, 5000, 'the budget the routes use');
  const normal = await app.services.events.search({ query: 'dolor sit', limit: '3' });
  t.equal(normal.total, 5000, 'within the budget the scan completes');

  await t.test('from the log mirror: the confirming scan checks the clock as it goes', async (t) => {
    const none = new EventSearchService(app.stores.eventLog, app.config.baseUrl, { timeBudgetMs: 0 });
    assertBudget503(t, await none.search({ query: 'd%r s_t' }).then(() => null, (e: unknown) => e), 0);
    const filtered = await none.search({ query: 'd%r s_t', id: 'IS:7' });
    t.equal(filtered.total, 1, 'a search with few candidates finishes before the first clock check');
  });

  await t.test('from the database: the server stops the scan (maxTimeMS)', async (t) => {
    const tight = new EventSearchService(app.stores.eventLog, app.config.baseUrl, { timeBudgetMs: 1, fromDatabase: true });
    assertBudget503(t, await tight.search({ query: 'd%r s_t' }).then(() => null, (e: unknown) => e), 1);
  });
});
