/** Unleash Edge's routes as the reference answered them (test/fixtures/edge/reference.json, tools/difftest/record-calls.ts). */
import t from 'tap';
import { asRecorded, callerHeaders, fillIn, type CallFixture, type Placeholders } from '../../../tools/difftest/record-calls.js';
import { ADMIN_TOKEN, buildTestApp, send } from '../../helpers/app.js';
import { fixture, vaneError } from '../../helpers/samples.js';
import { login, ORIGIN, STRONG, userWithRole } from '../../helpers/sessions.js';
import { createToken } from '../client-api/helpers.js';

const EDGE = fixture('edge/reference.json') as CallFixture;

t.test('token validation and signed token requests answer as the reference did', async (t) => {
  const app = await buildTestApp(t);
  await userWithRole(app, 'viewer', 3);
  const known: Placeholders = {
    admin: ADMIN_TOKEN,
    client: await createToken(app, 'client', ['*']),
    frontend: await createToken(app, 'frontend', ['*']),
    viewer: 'viewer@example.com',
  };
  const cookie = await login(app, 'viewer', STRONG);
  for (const call of EDGE.calls) {
    const res = await app.inject({
      method: call.method as never,
      url: call.path,
      headers: {
        ...callerHeaders(call.as, known, cookie),
        ...(call.as === 'viewer' ? { origin: ORIGIN } : {}),
        ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...fillIn(call.headers ?? {}, known),
      },
      ...(call.body === undefined ? {} : { payload: JSON.stringify(fillIn(call.body, known)) }),
    });
    const label = `${call.as} ${call.path} ${JSON.stringify(call.body ?? null)} ${JSON.stringify(call.headers ?? {})}`;
    t.equal(res.statusCode, call.status, `${label} (${res.body.slice(0, 160)})`);
    const answer = asRecorded(res.body, known) as Record<string, unknown>;
    const recorded = call.response as Record<string, unknown>;
    if (call.status === 200) {
      t.same(answer, recorded, label);
    } else if (typeof recorded.error === 'string') {
      t.match(answer, { name: 'UnauthorizedError', message: recorded.error, error: recorded.error }, label);
    } else if (recorded.name === undefined) {
      t.match(answer, { name: 'NoAccessError', message: recorded.message }, label);
    } else {
      t.same(vaneError(answer), vaneError(recorded), label);
    }
  }
});

t.test('a token revoked or expired is no longer listed', async (t) => {
  const app = await buildTestApp(t);
  const secret = await createToken(app, 'client', ['*']);
  const validate = async () => (await send(app, 'POST', '/edge/validate', { tokens: [secret] })).json().tokens as unknown[];
  t.equal((await validate()).length, 1);
  t.equal((await send(app, 'DELETE', `/api/admin/api-tokens/${encodeURIComponent(secret)}`)).statusCode, 200);
  t.same(await validate(), []);
});
