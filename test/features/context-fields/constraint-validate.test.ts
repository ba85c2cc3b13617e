/** `POST /api/admin/constraints/validate` (the strategy form asks it before Save) against the reference's recorded answers. */
import { readFileSync } from 'node:fs';
import t from 'tap';
import { ADMIN, JSON_ADMIN, buildTestApp } from '../../helpers/app.js';

interface Case { body: Record<string, unknown>; status: number; response?: Record<string, unknown> }
const RECORDED = JSON.parse(readFileSync(new URL('../../../../test/fixtures/ui-actions/validate.json', import.meta.url), 'utf8')) as { constraints: Case[] };

/** Vane's form of the reference's error: D1 names BadDataError ValidationError, and every error has an id. */
const asVane = (body: Record<string, unknown>) => ({ ...body, name: body.name === 'BadDataError' ? 'ValidationError' : body.name });

t.test('constraint validation answers as the reference', async (t) => {
  const app = await buildTestApp(t);
  const field = await app.inject({ method: 'POST', url: '/api/admin/context', headers: JSON_ADMIN, payload: { name: 'ui-legal-probe', legalValues: [{ value: 'a' }, { value: 'b' }] } });
  t.equal(field.statusCode, 201);
  for (const recorded of RECORDED.constraints) {
    const res = await app.inject({ method: 'POST', url: '/api/admin/constraints/validate', headers: JSON_ADMIN, payload: recorded.body });
    t.equal(res.statusCode, recorded.status, JSON.stringify(recorded.body));
    if (recorded.response) {
      const { id, ...rest } = res.json();
      t.type(id, 'string');
      t.same(rest, asVane(recorded.response));
    } else t.equal(res.body, '');
  }
  const anonymous = await app.inject({ method: 'POST', url: '/api/admin/constraints/validate', headers: { 'content-type': 'application/json' }, payload: {} });
  t.equal(anonymous.statusCode, 401, 'signed-in callers only');
  const asked = await app.inject({ url: '/api/admin/search/events', headers: ADMIN });
  t.equal(asked.json().events[0].type, 'context-field-created', 'a check records no event');
});
