/** A custom strategy type updated, deprecated, reactivated and deleted, as Unleash 8.2 answers and records it (measured). */
import t from 'tap';
import { buildTestApp, eventsAfter, lastEventId, send } from '../../helpers/app.js';

t.test('update, deprecate, reactivate, delete', async (t) => {
  const app = await buildTestApp(t);
  await send(app, 'POST', '/api/admin/strategies', { name: 'by-team', description: 'd', parameters: [] });
  const after = await lastEventId(app);

  const updated = await send(app, 'PUT', '/api/admin/strategies/by-team', {
    name: 'ignored', description: 'd2', title: 'By team', parameters: [{ name: 'team', type: 'list' }], editable: false, deprecated: true,
  });
  t.equal(updated.statusCode, 200);
  t.match((await send(app, 'GET', '/api/admin/strategies/by-team')).json(), {
    name: 'by-team', description: 'd2', editable: true, deprecated: false, parameters: [{ name: 'team', type: 'list', description: '', required: false }],
  }, 'editable and deprecated are not taken from the body');
  t.equal((await send(app, 'PUT', '/api/admin/strategies/by-team', { name: 'by-team', description: 'x' })).statusCode, 400, 'parameters are required');
  t.equal((await send(app, 'PUT', '/api/admin/strategies/nope', { name: 'nope', parameters: [] })).json().message, 'No strategy found');
  const builtIn = await send(app, 'PUT', '/api/admin/strategies/default', { name: 'default', parameters: [] });
  t.equal(builtIn.statusCode, 403, 'Unleash: 500');
  t.equal(builtIn.json().message, 'Cannot edit strategy default');

  t.equal((await send(app, 'POST', '/api/admin/strategies/by-team/deprecate')).statusCode, 200);
  t.equal((await send(app, 'GET', '/api/admin/strategies/by-team')).json().deprecated, true);
  t.equal((await send(app, 'POST', '/api/admin/strategies/by-team/reactivate')).statusCode, 200);
  t.equal((await send(app, 'POST', '/api/admin/strategies/nope/deprecate')).json().message, 'Could not find strategy with name nope');

  await send(app, 'POST', '/api/admin/projects/default/features', { name: 'user' });
  await send(app, 'POST', '/api/admin/projects/default/features/user/environments/development/strategies', { name: 'by-team', parameters: {} });
  t.equal((await send(app, 'DELETE', '/api/admin/strategies/by-team')).statusCode, 200, 'also while a flag uses it');
  t.equal((await send(app, 'DELETE', '/api/admin/strategies/by-team')).json().message, 'No strategy found');
  t.equal((await send(app, 'DELETE', '/api/admin/strategies/default')).statusCode, 403);

  t.same((await eventsAfter(app, after)).filter((e) => e.type.startsWith('strategy-')).map((e) => [e.type, e.data]), [
    ['strategy-updated', {
      name: 'by-team', description: 'd2', parameters: [{ name: 'team', type: 'list' }], title: 'By team', editable: false, deprecated: true,
    }],
    ['strategy-deprecated', { name: 'by-team' }],
    ['strategy-reactivated', { name: 'by-team' }],
    ['strategy-deleted', { name: 'by-team' }],
  ]);
});
