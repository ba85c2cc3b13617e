import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';

/**
 * The only file that listens. Shutdown (SIGTERM/SIGINT): stop accepting, let in-flight requests
 * finish, then the app's onClose hooks close the worker pool, the database client and the
 * embedded database, in reverse order of registration.
 */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const app = await buildApp(config, { loadInBackground: true });
  closeWithGrace({ delay: 10_000, logger: app.log }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    else app.log.info({ signal }, 'shutting down');
    await app.close();
  });
  try {
    await app.listen({ port: config.PORT, host: config.HOST });
  } catch (err) {
    // e.g. EADDRINUSE: without closing, the embedded FerretDB child started by buildApp outlives
    // this process (seen with a busy port during differential tester runs).
    await app.close().catch(() => undefined);
    throw err;
  }
  // Listening while the state loads: /health answers, /ready and the API say 503 until then.
  await app.loaded.catch(async (err: unknown) => {
    app.log.fatal({ err }, 'loading the configuration state failed');
    await app.close();
    process.exit(1);
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`Vane failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
