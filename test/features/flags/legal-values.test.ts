/** A strategy's constraints use only the legal values of their context field, when it has some (measured on Unleash 8.2). */
import t from 'tap';
import { buildTestApp, eventsAfter, lastEventId, send } from '../../helpers/app.js';

const STRATEGIES = '/api/admin/projects/default/features/f/environments/development/strategies';

t.test('legal values checked on strategy add and update', async (t) => {
  const app = await buildTestApp(t);
  await send(app, 'POST', '/api/admin/projects/default/features', { name: 'f' });
  await send(app, 'POST', '/api/admin/context', { name: 'region', legalValues: [{ value: 'eu' }, { value: 'us' }] });
  await send(app, 'POST', '/api/admin/context', { name: 'tier', legalValues: [{ value: '5' }] });
  const after = await lastEventId(app);
  const strategy = (constraint: object) => ({ name: 'default', constraints: [constraint] });

  const listed = await send(app, 'POST', STRATEGIES, strategy({ contextName: 'region', operator: 'IN', values: ['eu', 'asia'] }));
  t.equal(listed.statusCode, 400);
  t.match(listed.json().message, /input values are not specified as a legal value on this context field/);
  const single = await send(app, 'POST', STRATEGIES, strategy({ contextName: 'tier', operator: 'NUM_EQ', value: '6' }));
  t.equal(single.statusCode, 400);
  t.match(single.json().message, /6 is not specified as a legal value on this context field/);
  t.same(await eventsAfter(app, after), [], 'nothing written');

  const ok = await send(app, 'POST', STRATEGIES, strategy({ contextName: 'region', operator: 'IN', values: ['eu'] }));
  t.equal(ok.statusCode, 200);
  t.equal((await send(app, 'POST', STRATEGIES, strategy({ contextName: 'userId', operator: 'IN', values: ['anything'] }))).statusCode, 200, 'no legal values: any');
  t.equal((await send(app, 'POST', STRATEGIES, strategy({ contextName: 'nope', operator: 'IN', values: ['x'] }))).statusCode, 200, 'an unknown field: any');
  const updated = await send(app, 'PUT', `${STRATEGIES}/${ok.json().id}`, strategy({ contextName: 'region', operator: 'IN', values: ['mars'] }));
  t.equal(updated.statusCode, 400, 'on update too');
});
