import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { searchTextOf, type EventDocument } from '../../../src/db/outbox.js';
import { ApiError } from '../../../src/errors.js';
import { EventSearchService, SEARCH_TIME_BUDGET_MS } from '../../../src/features/events/service.js';

t.test('a search over its time budget is stopped by the server and answered 503', async (t) => {
  const app = await buildTestApp(t);
  const docs: EventDocument[] = Array.from({ length: 5000 }, (_, i) => {
    const base = {
      type: 'filler', createdBy: 'admin', createdByUserId: -42, createdAt: new Date(Date.UTC(2021, 0, 1) + i * 1000),
      data: { n: i, text: `lorem ipsum ${i} dolor sit amet` }, preData: null, tags: [], featureName: null, project: null, environment: null,
    };
    return { _id: `filler-${i}`, id: 1000 + i, ...base, searchText: searchTextOf(base) };
  });
  await app.database.db.collection<EventDocument>('events').insertMany(docs);

  t.equal(SEARCH_TIME_BUDGET_MS, 5000, 'the budget the routes use');
  const normal = await app.services.events.search({ query: 'dolor sit', limit: '3' });
  t.equal(normal.total, 5000, 'within the budget the scan completes');

  const tight = new EventSearchService(app.stores.events, app.config.baseUrl, 1);
  const err = await tight.search({ query: 'd%r s_t' }).then(() => null, (e: unknown) => e);
  t.ok(err instanceof ApiError, 'a 1 ms budget is exceeded');
  t.equal((err as ApiError).statusCode, 503);
  t.equal((err as ApiError).name, 'ServiceUnavailable');
  t.equal((err as ApiError).headers['retry-after'], '1');
  t.match((err as ApiError).message, /^The event search took longer than 1 ms and was stopped\. Narrow it with/);
});
