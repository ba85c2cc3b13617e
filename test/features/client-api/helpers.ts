import type { FastifyInstance } from 'fastify';
import { JSON_ADMIN } from '../../helpers/app.js';

/**
 * The configuration the reference fixtures (test/fixtures/client-api/) were captured with on
 * unleash-server 8.2.0: a segment, three flags (strategy with constraint, segment and variants;
 * environment variants with payload, a disabled strategy, a tag; a dependency).
 */
export async function seedReferenceConfiguration(
  app: FastifyInstance,
  options: { retryUnavailable?: boolean } = {},
): Promise<void> {
  const calls: Array<[string, string, unknown]> = [
    ['POST', '/api/admin/segments', { name: 'seg1', constraints: [{ contextName: 'userId', operator: 'IN', values: ['1', '2'] }] }],
    ['POST', '/api/admin/projects/default/features', { name: 'alpha', description: 'first', impressionData: true }],
    ['POST', '/api/admin/projects/default/features', { name: 'beta', type: 'experiment', tags: [{ type: 'simple', value: 't1' }] }],
    ['POST', '/api/admin/projects/default/features', { name: 'gamma' }],
    ['POST', '/api/admin/projects/default/features/alpha/environments/development/strategies', {
      name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'default', groupId: 'alpha' },
      constraints: [{ contextName: 'appName', operator: 'IN', values: ['web'] }], segments: [1],
      variants: [{ name: 'v1', weight: 1000, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: 'x' } }],
    }],
    ['POST', '/api/admin/projects/default/features/beta/environments/development/strategies', { name: 'default', parameters: {} }],
    ['PUT', '/api/admin/projects/default/features/beta/environments/development/variants', [
      { name: 'b1', weight: 1000, weightType: 'variable', stickiness: 'default', payload: { type: 'json', value: '{"a":1}' } },
    ]],
    ['POST', '/api/admin/projects/default/features/alpha/environments/development/on', undefined],
    ['POST', '/api/admin/projects/default/features/beta/environments/development/on', undefined],
    ['POST', '/api/admin/projects/default/features/gamma/dependencies', { feature: 'beta', enabled: true }],
    ['POST', '/api/admin/segments', { name: 'seg2', constraints: [] }],
    ['POST', '/api/admin/projects/default/features/beta/environments/development/strategies', {
      name: 'default', parameters: {}, disabled: true, title: 'dis',
    }],
    ['POST', '/api/admin/projects/default/features/beta/environments/development/strategies', {
      name: 'flexibleRollout', title: 'tt', parameters: { rollout: '10', stickiness: 'userId', groupId: 'g' },
      constraints: [{ contextName: 'x', operator: 'STR_CONTAINS', values: ['a'], caseInsensitive: true, inverted: false }],
    }],
  ];
  for (const [method, url, payload] of calls) {
    const send = () => app.inject({ method: method as 'POST', url, headers: JSON_ADMIN, ...(payload === undefined ? {} : { payload: payload as object }) });
    let res = await send();
    // A test with a short DB_TIMEOUT_MS (test/db/frozen.test.ts) can see a 503 before its fault
    // when a loaded CI machine stalls its database past the deadline. It retries as a client
    // honouring Retry-After would; a 409 after a 503 means the unanswered write had applied.
    let unanswered = false;
    for (let attempt = 1; options.retryUnavailable && res.statusCode === 503 && attempt <= 5; attempt++) {
      unanswered = true;
      await new Promise((r) => setTimeout(r, Number(res.headers['retry-after'] ?? 1) * 1000));
      res = await send();
    }
    if (unanswered && res.statusCode === 409) continue;
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  }
}

export async function createToken(
  app: FastifyInstance,
  type: string,
  projects: string[] = ['default'],
  environment = 'development',
): Promise<string> {
  const res = await app.inject({
    method: 'POST', url: '/api/admin/api-tokens', headers: JSON_ADMIN,
    payload: { tokenName: `t-${type}-${Math.random()}`, type, environment, projects },
  });
  if (res.statusCode !== 201) throw new Error(`token: ${res.statusCode} ${res.body}`);
  return res.json().secret as string;
}
