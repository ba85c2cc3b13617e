/** Maintenance mode's state: off, an Admin's to read, as Unleash 8.2 answers (test/fixtures/maintenance). */
import t from 'tap';
import { ADMIN, buildTestApp } from '../../helpers/app.js';
import { fixture } from '../../helpers/samples.js';
import { roleCookies } from '../../helpers/sessions.js';
import { createToken } from '../client-api/helpers.js';

const MEASURED = fixture('maintenance/get.json');

t.test('GET /api/admin/maintenance: off for Admins, refused to everyone else as Unleash refuses them', async (t) => {
  const app = await buildTestApp(t);
  const { viewer, editor } = await roleCookies(app);
  const callers: Record<string, Record<string, string>> = {
    admin: ADMIN, viewer: { cookie: viewer }, editor: { cookie: editor },
    client: { authorization: await createToken(app, 'client', ['*']) },
    frontend: { authorization: await createToken(app, 'frontend', ['*']) },
    anonymous: {},
  };
  for (const [who, headers] of Object.entries(callers)) {
    const res = await app.inject({ url: '/api/admin/maintenance', headers });
    t.equal(res.statusCode, MEASURED[who].status, who);
    // Unleash names a person's refusal PermissionError; Vane NoAccessError (docs/rules.md D1).
    const refusedPerson = who === 'viewer' || who === 'editor';
    t.match(res.json(), refusedPerson ? { name: 'NoAccessError', message: /UPDATE_MAINTENANCE_MODE/ } : MEASURED[who].response, who);
  }
  t.same((await app.inject({ url: '/api/admin/maintenance', headers: ADMIN })).json(), MEASURED.admin.response, 'exactly its state');
});
