import t from 'tap';
import { spawn, execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
const serverJs = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'server.js');
/** Processes whose command line mentions `text` (pgrep exits 1 when there are none). */
function processesMentioning(text) {
    try {
        return execFileSync('pgrep', ['-f', text], { encoding: 'utf8' }).split('\n').filter(Boolean);
    }
    catch {
        return [];
    }
}
t.test('a busy port stops the start with exit 1 and leaves no embedded database behind', async (t) => {
    const blocker = createServer();
    await new Promise((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    t.teardown(() => blocker.close());
    const port = blocker.address().port;
    const dataDir = mkdtempSync(join(tmpdir(), 'vane-server-test-'));
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
    // Without MONGODB_URL the server starts its embedded FerretDB under DATA_DIR.
    const { MONGODB_URL: _ignored, ...env } = process.env;
    const child = spawn(process.execPath, [serverJs], {
        env: { ...env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
        stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    t.equal(code, 1, 'exit code 1');
    t.match(stderr, /EADDRINUSE/, 'the reason is printed');
    // The embedded FerretDB runs with its state under DATA_DIR; it must have been stopped before exit.
    const left = processesMentioning(dataDir);
    t.same(left, [], 'no process still uses the data directory');
    for (const pid of left)
        process.kill(Number(pid)); // so a failure does not leak the process
});
//# sourceMappingURL=server.test.js.map