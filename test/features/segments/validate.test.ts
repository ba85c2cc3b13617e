/** `POST /api/admin/segments/validate` (the segment form asks it before its Next step) against the reference's recorded answers. */
import { readFileSync } from 'node:fs';
import t from 'tap';
import { JSON_ADMIN, buildTestApp } from '../../helpers/app.js';

interface Case { body: Record<string, unknown>; status: number; response?: Record<string, unknown> }
const RECORDED = JSON.parse(readFileSync(new URL('../../../../test/fixtures/ui-actions/validate.json', import.meta.url), 'utf8')) as { segments: Case[] };

const asVane = (body: Record<string, unknown>) => ({ ...body, name: body.name === 'BadDataError' ? 'ValidationError' : body.name });

t.test('segment name validation answers as the reference', async (t) => {
  const app = await buildTestApp(t);
  // The reference held segment `a8-seg0` when these were recorded.
  const made = await app.inject({ method: 'POST', url: '/api/admin/segments', headers: JSON_ADMIN, payload: { name: 'a8-seg0', constraints: [] } });
  t.equal(made.statusCode, 201);
  for (const recorded of RECORDED.segments) {
    const res = await app.inject({ method: 'POST', url: '/api/admin/segments/validate', headers: JSON_ADMIN, payload: recorded.body });
    t.equal(res.statusCode, recorded.status, JSON.stringify(recorded.body));
    if (recorded.response) {
      const { id, ...rest } = res.json();
      t.type(id, 'string');
      t.same(rest, asVane(recorded.response));
    } else t.equal(res.body, '');
  }
});
