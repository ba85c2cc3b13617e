/**
 * The official UI as Vane serves it, from a build placed in the cache by the test (the fetch is
 * package.test.ts; the real build in chromium is test/web/official-ui.test.ts).
 */
import t from 'tap';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ADMIN, buildTestApp } from '../../helpers/app.js';

const INDEX = [
  '<link rel="icon" href="::faviconPrefix::/favicon.ico" />',
  '<meta name="baseUriPath" content="::baseUriPath::" />',
  '<meta name="cdnPrefix" content="::cdnPrefix::" />',
  '<meta name="uiFlags" content="::uiFlags::" />',
  '<meta name="unleashToken" content="::unleashToken::" />',
  '<script type="module" crossorigin src="/static/index-abc.js"></script>',
].join('\n');
const SCRIPT = 'console.log("the UI");';

t.test('the UI at /: its files, its page for every client-side route, and the API\'s 404 kept', async (t) => {
  const cache = mkdtempSync(join(tmpdir(), 'vane-ui-routes-'));
  const build = join(cache, 'unleash-ui-9.9.9');
  mkdirSync(join(build, 'static'), { recursive: true });
  writeFileSync(join(build, 'index.html'), INDEX);
  writeFileSync(join(build, 'static/index-abc.js'), SCRIPT);
  writeFileSync(join(build, 'static/index-abc.js.gz'), gzipSync(SCRIPT));
  writeFileSync(join(build, 'favicon.ico'), 'icon');
  const previous = process.env.VANE_CACHE_DIR;
  process.env.VANE_CACHE_DIR = cache;
  t.teardown(() => {
    if (previous === undefined) delete process.env.VANE_CACHE_DIR; else process.env.VANE_CACHE_DIR = previous;
    rmSync(cache, { recursive: true, force: true });
  });
  const app = await buildTestApp(t, { UNLEASH_UI: '9.9.9' });

  const root = await app.inject({ url: '/' });
  t.equal(root.statusCode, 200);
  t.match(root.headers['content-type'], /^text\/html/);
  t.equal(root.body, [
    '<link rel="icon" href="/favicon.ico" />',
    '<meta name="baseUriPath" content="" />',
    '<meta name="cdnPrefix" content="" />',
    '<meta name="uiFlags" content="%22%7B%7D%22" />',
    '<meta name="unleashToken" content="" />',
    '<script type="module" crossorigin src="/static/index-abc.js"></script>',
  ].join('\n'), 'the placeholders filled as Unleash fills them');
  t.match(root.headers['content-security-policy'], /script-src 'self';/);

  for (const path of ['/login', '/projects/default/features/f1', '/new-user?invite=abc', '/playground']) {
    const page = await app.inject({ url: path });
    t.equal(page.statusCode, 200, path);
    t.equal(page.body, root.body, `${path}: the UI's page`);
  }
  const gone = await app.inject({ url: '/static/gone.js' });
  t.equal(gone.statusCode, 404, 'a missing file is a 404 (with the page, as Unleash answers)');

  const script = await app.inject({ url: '/static/index-abc.js', headers: { 'accept-encoding': 'gzip' } });
  t.equal(script.statusCode, 200);
  t.equal(script.headers['content-encoding'], 'gzip', 'the compressed copy written at extraction');
  t.equal(script.headers['cache-control'], 'public, max-age=31536000, immutable', 'hashed names are cached for good');
  const plain = await app.inject({ url: '/static/index-abc.js' });
  t.equal(plain.body, SCRIPT);
  t.equal((await app.inject({ url: '/favicon.ico' })).body, 'icon');
  const index = await app.inject({ url: '/index.html' });
  t.equal(index.statusCode, 200);
  t.equal(index.body, root.body, 'never the unfilled file');

  const api = await app.inject({ url: '/api/admin/nothing-here', headers: ADMIN });
  t.equal(api.statusCode, 404);
  t.equal(api.json().name, 'NotFoundError', 'the API keeps its JSON 404');
  t.equal((await app.inject({ method: 'POST', url: '/projects' })).statusCode, 404, 'only GET reaches the page');
  t.equal((await app.inject({ url: '/vane/login' })).statusCode, 200, 'Vane\'s own pages stay under /vane/');
});

t.test('a version that cannot be fetched: Vane\'s own pages at /', async (t) => {
  const cache = mkdtempSync(join(tmpdir(), 'vane-ui-none-'));
  const previous = process.env.VANE_CACHE_DIR;
  const registry = process.env.npm_config_registry;
  process.env.VANE_CACHE_DIR = cache;
  process.env.npm_config_registry = 'http://127.0.0.1:1/';
  t.teardown(() => {
    if (previous === undefined) delete process.env.VANE_CACHE_DIR; else process.env.VANE_CACHE_DIR = previous;
    if (registry === undefined) delete process.env.npm_config_registry; else process.env.npm_config_registry = registry;
    rmSync(cache, { recursive: true, force: true });
  });
  const app = await buildTestApp(t, { UNLEASH_UI: '9.9.8' });
  const root = await app.inject({ url: '/' });
  t.equal(root.statusCode, 302);
  t.equal(root.headers.location, '/vane/playground');
});
