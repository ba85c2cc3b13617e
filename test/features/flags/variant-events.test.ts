import t from 'tap';
import { buildTestApp, eventsAfter, lastEventId, send } from '../../helpers/app.js';

t.test('a variants event records the variants as sent, and the previous ones as stored (key order measured on Unleash 8.2)', async (t) => {
  const app = await buildTestApp(t);
  await send(app, 'POST', '/api/admin/projects/default/features', { name: 'v' });
  const url = '/api/admin/projects/default/features/v/environments/development/variants';
  const variant = {
    name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: 'b' },
    overrides: [{ contextName: 'userId', values: ['1'] }],
  };
  await send(app, 'PUT', url, [variant]);
  const after = await lastEventId(app);
  await send(app, 'PUT', url, [{ ...variant, name: 'red' }]);
  const [event] = await eventsAfter(app, after);
  const data = (event!.data as { variants: Array<Record<string, unknown>> }).variants[0]!;
  t.same(Object.keys(data), ['name', 'weight', 'weightType', 'stickiness', 'payload', 'overrides']);
  t.same(Object.keys((data.overrides as object[])[0]!), ['contextName', 'values']);
  const pre = (event!.preData as { variants: Array<Record<string, unknown>> }).variants[0]!;
  t.same(Object.keys(pre), ['name', 'weight', 'payload', 'overrides', 'stickiness', 'weightType'], 'jsonb order: by length, then bytes');
});
