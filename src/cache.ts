import { closeSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The folder for what Vane builds or downloads once per machine (FerretDB, the official UI's
 * build): VANE_CACHE_DIR, else ~/.cache/vane.
 */
export function cacheDir(): string {
  return resolve(process.env.VANE_CACHE_DIR || join(homedir() || tmpdir(), '.cache', 'vane'));
}

export function isAlive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch { return false; }
}

/**
 * Runs `fn` holding a lock file, one process at a time (parallel test files start together and
 * would each build or download the same thing). A lock whose holder died is taken over.
 */
export async function withLock<T>(lockPath: string, fn: () => Promise<T> | T, timeoutMs = 10 * 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch {
      let holder: number;
      try { holder = Number(readFileSync(lockPath, 'utf8').trim() || 0); } catch { continue; /* released meanwhile */ }
      if (holder && !isAlive(holder)) { rmSync(lockPath, { force: true }); continue; }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lockPath}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try { return await fn(); } finally { rmSync(lockPath, { force: true }); }
}
