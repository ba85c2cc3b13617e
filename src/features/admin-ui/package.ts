import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar';
import { cacheDir, withLock } from '../../cache.js';

/**
 * The official Unleash admin UI is the build inside the `unleash-server` npm package
 * (`package/frontend/build`). Nothing of it is in Vane's repository: it is fetched once from the
 * npm registry by name and version, its tarball checked against the registry's integrity
 * (sha512), and only the build extracted into the cache (`unleash-ui-<version>/`).
 */

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);
/** The 8.2.0 build's scripts and styles (8.4 MB): quality 11 took 17.0 s for 1.80 MB, 9 took 1.4 s for 1.95 MB. */
const BROTLI_QUALITY = 9;

const PACKAGE = 'unleash-server';
const BUILD_PREFIX = 'package/frontend/build/';
/** The whole fetch (packument and a ~25 MB tarball); a registry out of reach fails it instead of holding the start. */
const FETCH_TIMEOUT_MS = 120_000;

export interface UiLogger {
  info(obj: object, msg?: string): void;
}

/** The registry npm uses (`npm_config_registry` under `npm start`), else npm's default. */
export function registryUrl(env: NodeJS.ProcessEnv = process.env): string {
  const url = env.npm_config_registry || 'https://registry.npmjs.org/';
  return url.endsWith('/') ? url : `${url}/`;
}

export function uiBuildDir(version: string): string {
  return join(cacheDir(), `unleash-ui-${version}`);
}

const COMPRESSIBLE = new Set(['.js', '.css', '.svg', '.json', '.map', '.txt', '.ico']);
/** Smaller files gain less than the headers they add. */
const MIN_COMPRESSED_BYTES = 1024;

/**
 * Writes `.br` and `.gz` beside every text file, once, for the static plugin's `preCompressed`:
 * the UI's first load is ~4 MB of scripts and styles (index-*.js alone 2.6 MB), which compressing
 * per request would cost each browser's first visit in CPU.
 */
async function precompress(dir: string): Promise<void> {
  const files = (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile() && COMPRESSIBLE.has(extname(entry.name)))
    .map((entry) => join(entry.parentPath, entry.name));
  for (const file of files) {
    const body = await readFile(file);
    if (body.length < MIN_COMPRESSED_BYTES) continue;
    await writeFile(`${file}.br`, await brotli(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } }));
    await writeFile(`${file}.gz`, await gzip(body, { level: 9 }));
  }
}

interface Packument {
  dist?: { tarball?: string; integrity?: string };
}

/** `sha512-<base64>` as npm writes it: only sha512 is accepted (older sha1 shasums are not checked). */
function expectedDigest(integrity: string | undefined): string {
  const sha512 = integrity?.split(/\s+/).find((entry) => entry.startsWith('sha512-'));
  if (!sha512) throw new Error(`the registry gives no sha512 integrity for ${PACKAGE}`);
  return sha512.slice('sha512-'.length);
}

async function download(url: string, signal: AbortSignal): Promise<Response> {
  const res = await fetch(url, { signal, headers: { accept: 'application/json, application/octet-stream' } });
  if (!res.ok || !res.body) throw new Error(`GET ${url} answered ${res.status}`);
  return res;
}

/**
 * The folder holding the UI build of `version` (index.html, static/…), fetched on first use.
 * Throws when the registry is out of reach, the version does not exist or the tarball does not
 * match its integrity; a partial extraction never becomes the cached build.
 */
export async function ensureUiBuild(version: string, log: UiLogger, registry = registryUrl()): Promise<string> {
  const dir = uiBuildDir(version);
  if (existsSync(join(dir, 'index.html'))) return dir;
  mkdirSync(cacheDir(), { recursive: true });
  return await withLock(`${dir}.lock`, async () => {
    if (existsSync(join(dir, 'index.html'))) return dir;
    const signal = AbortSignal.timeout(FETCH_TIMEOUT_MS);
    const packument = (await (await download(`${registry}${PACKAGE}/${encodeURIComponent(version)}`, signal)).json()) as Packument;
    const tarball = packument.dist?.tarball;
    if (!tarball) throw new Error(`the registry lists no tarball for ${PACKAGE}@${version}`);
    const digest = expectedDigest(packument.dist?.integrity);
    log.info({ version, tarball }, 'fetching the official Unleash UI (first run only)');

    const partial = `${dir}.partial`;
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial, { recursive: true });
    const file = `${partial}.tgz`;
    try {
      const hash = createHash('sha512');
      const body = Readable.fromWeb((await download(tarball, signal)).body as ReadableStream);
      body.on('data', (chunk: Buffer) => hash.update(chunk));
      await pipeline(body, createWriteStream(file));
      const actual = hash.digest('base64');
      if (actual !== digest) throw new Error(`${PACKAGE}@${version}'s tarball does not match the registry's integrity (sha512-${digest}, got sha512-${actual})`);
      await tar.x({
        file,
        cwd: partial,
        strip: 3,
        filter: (path) => path.startsWith(BUILD_PREFIX),
      });
      if (!existsSync(join(partial, 'index.html'))) throw new Error(`${PACKAGE}@${version} has no ${BUILD_PREFIX}index.html`);
      await precompress(partial);
      writeFileSync(join(partial, '.source'), `${tarball}\nsha512-${digest}\n`);
      rmSync(dir, { recursive: true, force: true });
      renameSync(partial, dir);
      log.info({ version, dir }, 'official Unleash UI ready');
      return dir;
    } finally {
      rmSync(file, { force: true });
      rmSync(partial, { recursive: true, force: true });
    }
  });
}
