/**
 * Fetching the official UI's build: from a registry served here (a tarball made by the test,
 * shaped as the `unleash-server` package), so the checks run without the real registry.
 */
import t from 'tap';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import * as tar from 'tar';
import { ensureUiBuild, registryUrl, uiBuildDir } from '../../../src/features/admin-ui/package.js';

const quiet = { info: () => undefined };
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(4000))});\n`;

async function packageTarball(dir: string): Promise<Buffer> {
  const root = join(dir, 'src');
  mkdirSync(join(root, 'package/frontend/build/static'), { recursive: true });
  mkdirSync(join(root, 'package/dist'), { recursive: true });
  writeFileSync(join(root, 'package/frontend/build/index.html'), '<meta name="baseUriPath" content="::baseUriPath::" />');
  writeFileSync(join(root, 'package/frontend/build/static/index-abc.js'), SCRIPT);
  writeFileSync(join(root, 'package/dist/server.js'), 'server code');
  const file = join(dir, 'pkg.tgz');
  await tar.c({ gzip: true, file, cwd: root }, ['package']);
  return readFileSync(file);
}

interface Registry { url: string; requests: string[]; server: Server }

function serveRegistry(tarball: Buffer, integrity: string): Promise<Registry> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    if (req.url === '/unleash-server/9.9.9') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ name: 'unleash-server', version: '9.9.9', dist: { tarball: `${base}/unleash-server/-/unleash-server-9.9.9.tgz`, integrity } }));
    } else if (req.url === '/unleash-server/-/unleash-server-9.9.9.tgz') {
      res.end(tarball);
    } else {
      res.statusCode = 404;
      res.end('{}');
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    resolve({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`, requests, server });
  }));
}

t.test('the build is fetched once, checked against the registry\'s sha512, and only the build is extracted', async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'vane-ui-pkg-'));
  const cache = join(work, 'cache');
  const previous = process.env.VANE_CACHE_DIR;
  process.env.VANE_CACHE_DIR = cache;
  t.teardown(() => {
    if (previous === undefined) delete process.env.VANE_CACHE_DIR; else process.env.VANE_CACHE_DIR = previous;
    rmSync(work, { recursive: true, force: true });
  });
  const tarball = await packageTarball(work);
  const good = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;

  const forged = await serveRegistry(tarball, `sha512-${createHash('sha512').update('something else').digest('base64')}`);
  t.teardown(() => forged.server.close());
  await t.rejects(ensureUiBuild('9.9.9', quiet, forged.url), /does not match the registry's integrity/);
  t.notOk(existsSync(uiBuildDir('9.9.9')), 'nothing cached from a tarball that does not match');
  t.same(readdirSync(cache).filter((f) => !f.endsWith('.lock')), [], 'no partial extraction left');

  await t.rejects(ensureUiBuild('1.0.0', quiet, forged.url), /answered 404/, 'a version the registry does not have');

  const registry = await serveRegistry(tarball, good);
  t.teardown(() => registry.server.close());
  const dir = await ensureUiBuild('9.9.9', quiet, registry.url);
  t.equal(dir, uiBuildDir('9.9.9'));
  t.ok(existsSync(join(dir, 'index.html')));
  t.equal(readFileSync(join(dir, 'static/index-abc.js'), 'utf8'), SCRIPT);
  t.notOk(existsSync(join(dir, 'dist')), 'the server code is not extracted');
  t.equal(brotliDecompressSync(readFileSync(join(dir, 'static/index-abc.js.br'))).toString(), SCRIPT, 'compressed beside the file');
  t.ok(existsSync(join(dir, 'static/index-abc.js.gz')));
  t.notOk(existsSync(join(dir, 'index.html.br')), 'files under 1 KB are not compressed');

  const before = registry.requests.length;
  t.equal(await ensureUiBuild('9.9.9', quiet, registry.url), dir);
  t.equal(registry.requests.length, before, 'the second start reads the cache only');
});

t.test('an unreachable registry fails the fetch with its reason', async (t) => {
  const previous = process.env.VANE_CACHE_DIR;
  const cache = mkdtempSync(join(tmpdir(), 'vane-ui-cache-'));
  process.env.VANE_CACHE_DIR = cache;
  t.teardown(() => {
    if (previous === undefined) delete process.env.VANE_CACHE_DIR; else process.env.VANE_CACHE_DIR = previous;
    rmSync(cache, { recursive: true, force: true });
  });
  await t.rejects(ensureUiBuild('9.9.9', quiet, 'http://127.0.0.1:1/'), /fetch failed/);
});

t.test('the registry is npm\'s own (npm_config_registry under npm start), with a trailing slash', async (t) => {
  t.equal(registryUrl({}), 'https://registry.npmjs.org/');
  t.equal(registryUrl({ npm_config_registry: 'https://npm.example.com/repo' }), 'https://npm.example.com/repo/');
});
