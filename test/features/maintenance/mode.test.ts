/**
 * Maintenance mode on: the admin API's writes refused and everything else answering, as the
 * reference answered the same calls (test/fixtures/maintenance/mode.json, tools/difftest/record-calls.ts).
 */
import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { adminOperations, PARAMETERS } from '../../../tools/difftest/record-permissions.js';
import { callerHeaders, fillIn, type CallFixture, type Placeholders } from '../../../tools/difftest/record-calls.js';
import { ADMIN_TOKEN, buildTestApp, send } from '../../helpers/app.js';
import { fixture } from '../../helpers/samples.js';
import { login, ORIGIN, STRONG, userWithRole } from '../../helpers/sessions.js';
import { createToken } from '../client-api/helpers.js';

const MODE = fixture('maintenance/mode.json') as CallFixture;
const MESSAGE = 'Unleash is currently in maintenance mode.';
const REFUSED = { name: 'MaintenanceModeError', message: MESSAGE, details: [{ message: MESSAGE }] };

async function principals(app: FastifyInstance): Promise<{ known: Placeholders; cookie: string }> {
  await userWithRole(app, 'viewer', 3);
  const known: Placeholders = {
    admin: ADMIN_TOKEN,
    client: await createToken(app, 'client', ['*']),
    frontend: await createToken(app, 'frontend', ['*']),
    viewer: 'viewer@example.com',
  };
  return { known, cookie: await login(app, 'viewer', STRONG) };
}

t.test('every call the reference answered while in maintenance mode answers the same status on Vane', async (t) => {
  const app = await buildTestApp(t);
  const { known, cookie } = await principals(app);
  for (const step of MODE.setup ?? []) t.equal((await send(app, step.method, step.path, step.body)).statusCode, 201, `setup ${step.path}`);
  t.equal((await send(app, 'POST', '/api/admin/maintenance', { enabled: true })).statusCode, 204);
  for (const call of MODE.calls) {
    const res = await app.inject({
      method: call.method as never,
      url: fillIn(call.path, known),
      headers: {
        ...callerHeaders(call.as, known, cookie),
        ...(call.as === 'viewer' ? { origin: ORIGIN } : {}),
        ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(call.body === undefined ? {} : { payload: JSON.stringify(fillIn(call.body, known)) }),
    });
    const label = `${call.as} ${call.method} ${call.path}`;
    t.equal(res.statusCode, call.status, `${label} (${res.body.slice(0, 160)})`);
    if (call.status === 503) t.match(res.json(), REFUSED, label);
    if (call.path === '/api/admin/ui-config') {
      t.equal(res.json().maintenanceMode, (call.response as { maintenanceMode: boolean }).maintenanceMode, label);
    }
  }
});

t.test('every admin operation Vane serves is refused in maintenance mode exactly where Unleash 8.2 refused it', async (t) => {
  const app = await buildTestApp(t);
  const segment = (await send(app, 'POST', '/api/admin/segments', { name: 'mm-segment', constraints: [] })).json().id as number;
  t.equal((await send(app, 'POST', '/api/admin/maintenance', { enabled: true })).statusCode, 204);
  const shape = (key: string) => key.replace(/\{[^}]+\}/g, '{}');
  const served = new Set(adminOperations((await app.inject({ url: '/docs/openapi.json' })).json()).map((op) => shape(op.key)));
  const paths = Object.keys(MODE.operations!).map((key) => {
    const [method, path] = key.split(' ') as [string, string];
    return [path, { [method.toLowerCase()]: {} }] as const;
  });
  const reference = adminOperations({ paths: Object.fromEntries(paths) });
  let compared = 0;
  let refused = 0;
  for (const operation of reference) {
    if (!served.has(shape(operation.key))) continue;
    const withBody = operation.method !== 'GET' && operation.method !== 'DELETE';
    const url = operation.url.replace(`/segments/${PARAMETERS.id}`, `/segments/${segment}`);
    const res = await send(app, operation.method, url, withBody ? {} : undefined);
    const expected = MODE.operations![operation.key]!;
    if (expected === 503) {
      t.equal(res.statusCode, 503, `${operation.key} refused`);
      refused++;
    } else {
      t.not(res.statusCode, 503, `${operation.key} is let through as on Unleash (${expected}; Vane ${res.statusCode} ${res.body.slice(0, 100)})`);
    }
    compared++;
  }
  t.ok(compared >= 100 && refused >= 60, `${compared} operations compared, ${refused} refused`);
  t.same((await send(app, 'GET', '/api/admin/maintenance')).json(), { enabled: true }, 'the sweep changed nothing, the switch included');
});
