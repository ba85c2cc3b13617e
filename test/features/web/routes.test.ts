import t from 'tap';
import { JSON_ADMIN, buildTestApp } from '../../helpers/app.js';

const PAGES = ['/login', '/new-user?invite=abc', '/playground?context=%7B%7D', '/flags', '/admin/invite-links', '/admin/events'];

t.test('pages and assets are served by Vane itself under /vane/, with a strict Content-Security-Policy', async (t) => {
  const app = await buildTestApp(t);
  for (const page of PAGES) {
    const url = `/vane${page}`;
    const res = await app.inject({ method: 'GET', url });
    t.equal(res.statusCode, 200, url);
    t.match(res.headers['content-type'], /^text\/html/);
    t.match(res.headers['content-security-policy'], /default-src 'self'.*script-src 'self'/);
    t.match(res.body, /<script type="module" src="\/vane\/assets\/[a-z-]+\.js"><\/script>/);
    t.notMatch(res.body, /https?:\/\//, 'nothing loaded from elsewhere');
    t.match(res.body, /<main id="main">/);
  }
  const js = await app.inject({ method: 'GET', url: '/vane/assets/playground.js' });
  t.equal(js.statusCode, 200);
  t.match(js.headers['content-type'], /javascript/);
  const css = await app.inject({ method: 'GET', url: '/vane/assets/app.css' });
  t.match(css.headers['content-type'], /text\/css/);
  t.equal((await app.inject({ method: 'GET', url: '/vane/assets/../package.json' })).statusCode, 404);
  const docs = await app.inject({ method: 'GET', url: '/docs/openapi.json' });
  t.equal(docs.statusCode, 200);
  const paths = Object.keys(docs.json().paths);
  t.ok(['/auth/simple/login', '/logout', '/api/admin/user', '/auth/invite/{token}'].every((p) => paths.includes(p)), 'the session routes are documented');
  t.notOk(paths.includes('/playground'), 'the pages are not API');
});

t.test('without the official UI, / and the pages\' earlier paths (the invite links the API returns) lead to /vane/', async (t) => {
  const app = await buildTestApp(t);
  const root = await app.inject({ method: 'GET', url: '/' });
  t.equal(root.statusCode, 302);
  t.equal(root.headers.location, '/vane/playground');
  for (const page of PAGES) {
    const res = await app.inject({ method: 'GET', url: page });
    t.equal(res.statusCode, 302, page);
    t.equal(res.headers.location, `/vane${page}`, 'the query is kept');
  }
  t.equal((await app.inject({ method: 'GET', url: '/projects/default' })).statusCode, 404, 'no page fallback without the UI');
});

t.test('GET /auth/invite/:token: who invited, until when, which role; no credential needed', async (t) => {
  const app = await buildTestApp(t);
  const expiresAt = new Date(Date.now() + 3 * 86_400_000).toISOString();
  const link = await app.inject({ method: 'POST', url: '/api/admin/invite-link/tokens', headers: JSON_ADMIN, payload: { name: 'x', expiresAt } });
  const secret = link.json().secret as string;
  const res = await app.inject({ method: 'GET', url: `/auth/invite/${secret}` });
  t.equal(res.statusCode, 200);
  t.same(res.json(), { usable: true, createdBy: 'admin', expiresAt, role: 'Viewer' });
  await app.inject({ method: 'PUT', url: `/api/admin/invite-link/tokens/${secret}`, headers: JSON_ADMIN, payload: { enabled: false } });
  t.equal((await app.inject({ method: 'GET', url: `/auth/invite/${secret}` })).json().usable, false);
  const unknown = await app.inject({ method: 'GET', url: `/auth/invite/${'0'.repeat(32)}` });
  t.equal(unknown.statusCode, 404);
  t.equal(unknown.json().name, 'NotFoundError');
});
