/** `POST /api/admin/constraints/validate` (the strategy form asks it before Save) against the reference's recorded answers. */
import t from 'tap';
import { ADMIN, JSON_ADMIN, buildTestApp } from '../../helpers/app.js';
import { expectRecorded, fixture, type RecordedCase } from '../../helpers/samples.js';

const RECORDED = fixture('ui-actions/validate.json') as { constraints: RecordedCase[] };

t.test('constraint validation answers as the reference', async (t) => {
  const app = await buildTestApp(t);
  const field = await app.inject({ method: 'POST', url: '/api/admin/context', headers: JSON_ADMIN, payload: { name: 'ui-legal-probe', legalValues: [{ value: 'a' }, { value: 'b' }] } });
  t.equal(field.statusCode, 201);
  await expectRecorded(t, app, '/api/admin/constraints/validate', RECORDED.constraints);
  const anonymous = await app.inject({ method: 'POST', url: '/api/admin/constraints/validate', headers: { 'content-type': 'application/json' }, payload: {} });
  t.equal(anonymous.statusCode, 401, 'signed-in callers only');
  const asked = await app.inject({ url: '/api/admin/search/events', headers: ADMIN });
  t.equal(asked.json().events[0].type, 'context-field-created', 'a check records no event');
});
