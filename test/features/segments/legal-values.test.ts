import t from 'tap';
import { buildTestApp, send } from '../../helpers/app.js';
import { expectRecorded, fixture, vaneError } from '../../helpers/samples.js';

const recorded = fixture('segments/legal-values.json');

t.test('a segment\'s constraints use only their context field\'s legal values', async (t) => {
  const app = await buildTestApp(t);
  t.equal((await send(app, 'POST', '/api/admin/context', recorded.field)).statusCode, 201);
  await expectRecorded(t, app, '/api/admin/segments', recorded.cases);
  const created = await send(app, 'POST', '/api/admin/segments', recorded.legal);
  t.equal(created.statusCode, 201);
  const update = await send(app, 'PUT', `/api/admin/segments/${created.json().id}`, recorded.cases[0].body);
  t.equal(update.statusCode, 400);
  const { id, ...rest } = update.json();
  t.type(id, 'string');
  t.same(rest, vaneError(recorded.cases[0].response));
});
