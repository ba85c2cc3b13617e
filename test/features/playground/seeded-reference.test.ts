/**
 * A rich configuration against the real Unleash: bench/seed.ts (100 flags, every operator,
 * segments, strategy and environment variants, dependencies, both environments) was sent to
 * Unleash 8.2 and its playground answers recorded in test/fixtures/unleash-seeded/. The same
 * admin requests build Vane's state here, and every flag result must be identical (strategy ids
 * aside; flags are matched by name, since Unleash lists them in database order).
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildTestApp } from '../../helpers/app.js';
import { seed } from '../../../bench/seed.js';

interface Recorded {
  request: { path: string; body: Record<string, unknown> };
  response: { features: Array<{ name: string }>; input: unknown; warnings?: unknown };
}

const fixture = JSON.parse(readFileSync(fileURLToPath(new URL('../../../../test/fixtures/unleash-seeded/playground.json', import.meta.url)), 'utf8')) as { recorded: Recorded[] };

const normalise = (value: unknown): string =>
  JSON.stringify(value).replace(/"id":"[^"]+"/g, '"id":"<id>"').replace(/strategyId=[^"]+/g, 'strategyId=<id>');

t.test('Vane answers like Unleash on a 100-flag configuration built through the same requests', async (t) => {
  const app = await buildTestApp(t, { INIT_ADMIN_API_TOKENS: '*:*.seeded-admin-token' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await seed({ name: 'vane', url: `http://127.0.0.1:${port}`, token: '*:*.seeded-admin-token' }, 'probe');

  for (const { request, response } of fixture.recorded) {
    const res = await app.inject({
      method: 'POST', url: request.path, payload: request.body,
      headers: { authorization: '*:*.seeded-admin-token', 'content-type': 'application/json' },
    });
    t.equal(res.statusCode, 200);
    const ours = res.json<Recorded['response']>();
    const theirs = new Map(response.features.map((flag) => [flag.name, normalise(flag)]));
    t.equal(ours.features.length, response.features.length, `${request.path}: flag count`);
    const differing = ours.features.filter((flag) => normalise(flag) !== theirs.get(flag.name)).map((flag) => flag.name);
    t.same(differing, [], `${request.path} ${JSON.stringify(request.body).slice(0, 80)}: every flag result identical`);
    t.same(ours.input, response.input, 'input echo');
    t.same(ours.warnings, response.warnings, 'warnings');
  }
});
