import t from 'tap';
import { buildApp } from '../../src/app.js';
import { ADMIN, dropDatabase, testConfig } from '../helpers/app.js';

t.test('start-up: health answers while the state loads; /ready and the API say 503 + Retry-After until it has', async (t) => {
  const config = await testConfig(t);
  t.teardown(() => dropDatabase(config));
  let release!: () => void;
  const holdLoad = new Promise<void>((r) => (release = r));
  const app = await buildApp(config, { logger: false, loadInBackground: true, holdLoad });
  t.teardown(() => app.close());

  t.equal((await app.inject({ url: '/health' })).statusCode, 200);
  t.equal((await app.inject({ url: '/ready' })).statusCode, 503);
  const early = await app.inject({ url: '/api/admin/projects', headers: ADMIN });
  t.equal(early.statusCode, 503);
  t.equal(early.json().name, 'ServiceUnavailable');
  t.ok(Number(early.headers['retry-after']) > 0, 'with Retry-After');

  release();
  await app.loaded;
  t.equal((await app.inject({ url: '/ready' })).statusCode, 200);
  t.equal((await app.inject({ url: '/api/admin/projects', headers: ADMIN })).statusCode, 200);
});
