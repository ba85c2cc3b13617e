/** `POST /api/admin/segments/validate` (the segment form asks it before its Next step) against the reference's recorded answers. */
import t from 'tap';
import { JSON_ADMIN, buildTestApp } from '../../helpers/app.js';
import { expectRecorded, fixture, type RecordedCase } from '../../helpers/samples.js';

const RECORDED = fixture('ui-actions/validate.json') as { segments: RecordedCase[] };

t.test('segment name validation answers as the reference', async (t) => {
  const app = await buildTestApp(t);
  // The reference held segment `a8-seg0` when these were recorded.
  const made = await app.inject({ method: 'POST', url: '/api/admin/segments', headers: JSON_ADMIN, payload: { name: 'a8-seg0', constraints: [] } });
  t.equal(made.statusCode, 201);
  await expectRecorded(t, app, '/api/admin/segments/validate', RECORDED.segments);
});
