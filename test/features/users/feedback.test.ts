/** The UI's feedback prompts: `POST /api/admin/feedback`, `PUT /api/admin/feedback/:id`, and `feedback` in `GET /api/admin/user`. */
import { readFileSync } from 'node:fs';
import t from 'tap';
import { ADMIN, JSON_ADMIN, buildTestApp } from '../../helpers/app.js';
import { asPerson, login } from '../../helpers/sessions.js';

interface Case { method: 'POST' | 'PUT'; url: string; body: Record<string, unknown>; status: number; response: Record<string, unknown> }
const RECORDED = JSON.parse(readFileSync(new URL('../../../../test/fixtures/ui-actions/validate.json', import.meta.url), 'utf8')) as {
  feedback: Case[]; userFeedbackAfter: Record<string, unknown>[];
};

t.test('feedback is kept per person, one entry per id', async (t) => {
  const app = await buildTestApp(t, { INIT_ADMIN_USER: 'admin', INIT_ADMIN_PASSWORD: 'First-Admin-Pass-1' });
  const cookie = await login(app, 'admin', 'First-Admin-Pass-1');
  const before = await app.inject({ url: '/api/admin/user', headers: { cookie } });
  t.same(before.json().feedback, []);
  for (const recorded of RECORDED.feedback) {
    const started = Date.now();
    const res = await app.inject({ method: recorded.method, url: recorded.url, headers: asPerson(cookie), payload: recorded.body });
    t.equal(res.statusCode, recorded.status, `${recorded.method} ${recorded.url} ${JSON.stringify(recorded.body)}`);
    const { given, ...rest } = res.json();
    t.same(rest, recorded.response);
    t.ok(Date.parse(given) >= started - 1000, '`given` is the time of the call, whatever the body says');
  }
  const after = await app.inject({ url: '/api/admin/user', headers: { cookie } });
  t.same(after.json().feedback.map(({ given: _given, ...rest }: Record<string, unknown>) => rest), RECORDED.userFeedbackAfter);
  const events = await app.inject({ url: '/api/admin/search/events', headers: ADMIN });
  t.notOk(events.json().events.some((e: { type: string }) => /feedback/.test(e.type)), 'no event');

  const missing = await app.inject({ method: 'POST', url: '/api/admin/feedback', headers: asPerson(cookie), payload: {} });
  t.equal(missing.statusCode, 400);
  t.equal(missing.json().details[0].path, '/body/feedbackId');
  // The reference fails an API token's insert with a 500 (user_id null); Vane says the caller has no user.
  const token = await app.inject({ method: 'POST', url: '/api/admin/feedback', headers: JSON_ADMIN, payload: { feedbackId: 'x' } });
  t.equal(token.statusCode, 400);
});
