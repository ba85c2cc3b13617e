/**
 * The admin's user operations and the reset-link routes held to Unleash 8.2's answers, statuses and
 * events (test/fixtures/users/admin.json, recorded by tools/difftest/record-admin.ts on a fresh
 * reference whose first user is its admin).
 */
import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { fixture, expectRecordedSteps, PEER_ENV } from '../../helpers/samples.js';
import { unleashAdmin } from '../../helpers/sessions.js';
import type { RecordedStep } from '../../../tools/difftest/recorded-steps.js';

/** The reference's address: its links start with it. */
const REFERENCE_ENV = { ...PEER_ENV, BASE_URL: 'http://localhost:4402', USER_ADMIN_RATE_LIMIT: '1000', PASSWORD_RESET_RATE_LIMIT: '1000' };

/**
 * The reference lists users in its table's row order, which moves a user to the end when it is
 * updated; Vane lists them by id. The recorded lists are compared in id order.
 */
function byId(steps: RecordedStep[]): RecordedStep[] {
  const sorted = (users: Array<{ id: number }>) => [...users].sort((a, b) => a.id - b.id);
  return steps.map((step) => {
    const response = step.response as { users?: Array<{ id: number }> } | Array<{ id: number }> | undefined;
    if (Array.isArray(response)) return { ...step, response: sorted(response) };
    if (response?.users) return { ...step, response: { ...response, users: sorted(response.users) } };
    return step;
  });
}

t.test('user admin and reset links answer as the reference', async (t) => {
  const app = await buildTestApp(t, REFERENCE_ENV);
  await unleashAdmin(app, 'unleash4all');
  await expectRecordedSteps(t, app, byId(fixture('users/admin.json').steps as RecordedStep[]));
});
