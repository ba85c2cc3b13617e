import t from 'tap';
import { buildApp } from '../../../src/app.js';
import { buildTestApp, ADMIN, JSON_ADMIN } from '../../helpers/app.js';

const SEARCH = '/api/admin/search/events?type=IS:api-token-created&limit=50';

/**
 * A write b has noticed (its revision polled) is in b's next answer: the search waits for the
 * copy's read of the other instance's events, which the poll only starts. The poll runs by hand
 * (REVISION_POLL_MS is an hour), so the check is the log's, not the timer's: under a load of 20
 * on the 2-core machine, a 100 ms poll and the reads behind it took longer than a second.
 */
t.test('cached event searches still see every write: own at once, another instance once noticed', async (t) => {
  const a = await buildTestApp(t, { REVISION_POLL_MS: '3600000' });
  const b = await buildApp(a.config, { logger: false });
  t.teardown(() => b.close());
  const count = async (app: typeof a) => (await app.inject({ url: SEARCH, headers: ADMIN })).json().total as number;

  const before = await count(b);
  t.equal(await count(b), before, 'a repeated search (served from the cache) answers the same');

  const created = await b.inject({ method: 'POST', url: '/api/admin/api-tokens', headers: JSON_ADMIN, payload: { tokenName: 'on-b', type: 'client' } });
  t.equal(created.statusCode, 201);
  t.equal(await count(b), before + 1, "the instance's own write is visible at once");

  await a.inject({ method: 'POST', url: '/api/admin/api-tokens', headers: JSON_ADMIN, payload: { tokenName: 'on-a', type: 'client' } });
  await a.database.outbox.flushed();
  t.equal(await count(b), before + 1, 'not noticed yet: b answers as before');
  t.ok(await b.database.outbox.poll(), "b's poll notices a's write");
  t.equal(await count(b), before + 2, "another instance's write is visible once noticed");
});
