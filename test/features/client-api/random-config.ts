import type { FastifyInstance } from 'fastify';
import { JSON_ADMIN } from '../../helpers/app.js';

/** mulberry32: a small seeded generator, so a failing configuration can be rebuilt from its seed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(rng: () => number, list: readonly T[]): T => list[Math.floor(rng() * list.length)]!;

const USERS = ['1', '2', '3', '17', '42', '99', '123', '1000'];
const COUNTRIES = ['no', 'se', 'dk', 'fi'];

function constraint(rng: () => number): Record<string, unknown> {
  switch (Math.floor(rng() * 5)) {
    case 0: return { contextName: 'userId', operator: 'IN', values: [pick(rng, USERS), ...USERS.filter(() => rng() < 0.3)].filter((v, i, all) => all.indexOf(v) === i) };
    case 1: return { contextName: 'country', operator: 'NOT_IN', values: [pick(rng, COUNTRIES)], inverted: rng() < 0.2 };
    case 2: return { contextName: 'country', operator: 'STR_STARTS_WITH', values: ['n', 'S'], caseInsensitive: rng() < 0.5 };
    case 3: return { contextName: 'age', operator: 'NUM_GT', value: String(Math.floor(rng() * 60)) };
    default: return { contextName: 'version', operator: 'SEMVER_LT', value: pick(rng, ['1.2.0', '2.0.0', '2.0.0-beta.1']) };
  }
}

function variants(rng: () => number, prefix: string): Array<Record<string, unknown>> {
  const count = Math.floor(rng() * 3);
  return Array.from({ length: count }, (_, i) => ({
    name: `${prefix}${i}`, weight: 1000 / count, weightType: 'variable', stickiness: pick(rng, ['default', 'userId', 'sessionId']),
    ...(rng() < 0.5 ? { payload: { type: 'string', value: `p${i}` } } : {}),
  }));
}

function strategy(rng: () => number, segmentIds: number[]): Record<string, unknown> {
  const constraints = Array.from({ length: Math.floor(rng() * 3) }, () => constraint(rng));
  const segments = segmentIds.length > 0 && rng() < 0.3 ? [pick(rng, segmentIds)] : [];
  const kind = rng();
  if (kind < 0.2) return { name: 'default', parameters: {}, constraints, segments };
  return {
    name: 'flexibleRollout',
    parameters: { rollout: String(pick(rng, [0, 10, 33, 50, 90, 100])), stickiness: pick(rng, ['default', 'userId', 'sessionId']), groupId: `g${Math.floor(rng() * 3)}` },
    constraints, segments, variants: rng() < 0.4 ? variants(rng, 's') : [],
    ...(rng() < 0.1 ? { disabled: true } : {}),
  };
}

async function call(app: FastifyInstance, method: 'POST' | 'PUT', url: string, payload?: unknown): Promise<Record<string, unknown>> {
  const res = await app.inject({ method, url, headers: JSON_ADMIN, ...(payload === undefined ? {} : { payload: payload as never }) });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.body ? res.json<Record<string, unknown>>() : {};
}

/** A random configuration in project default, environment development; returns the flag names. */
export async function randomConfiguration(app: FastifyInstance, rng: () => number, flagCount: number): Promise<string[]> {
  const segmentIds: number[] = [];
  for (let i = 0; i < 2; i++) {
    const created = await call(app, 'POST', '/api/admin/segments', { name: `seg-${i}`, constraints: [constraint(rng)] });
    segmentIds.push(created.id as number);
  }
  const names: string[] = [];
  const parents: string[] = [];
  const base = '/api/admin/projects/default/features';
  for (let i = 0; i < flagCount; i++) {
    const name = `flag-${i}`;
    await call(app, 'POST', base, { name, impressionData: rng() < 0.3 });
    const env = `${base}/${name}/environments/development`;
    const strategies = Math.floor(rng() * 3);
    for (let s = 0; s < strategies; s++) await call(app, 'POST', `${env}/strategies`, strategy(rng, segmentIds));
    const envVariants = variants(rng, 'e');
    if (envVariants.length > 0) await call(app, 'PUT', `${env}/variants`, envVariants);
    if (rng() < 0.8) await call(app, 'POST', `${env}/on`);
    // One level only (Unleash refuses transitive dependencies): children are never parents.
    if (parents.length > 0 && rng() < 0.25) {
      await call(app, 'POST', `${base}/${name}/dependencies`, { feature: pick(rng, parents), enabled: rng() < 0.8 });
    } else if (rng() < 0.5) {
      parents.push(name);
    }
    names.push(name);
  }
  return names;
}

export function randomContext(rng: () => number): Record<string, unknown> {
  const properties: Record<string, string> = {};
  if (rng() < 0.7) properties.country = pick(rng, [...COUNTRIES, 'NO', 'Se']);
  if (rng() < 0.5) properties.age = String(Math.floor(rng() * 80));
  if (rng() < 0.4) properties.version = pick(rng, ['1.0.0', '1.9.9', '2.0.0-alpha', '3.1.4']);
  return {
    ...(rng() < 0.85 ? { userId: pick(rng, USERS) } : {}),
    sessionId: String(Math.floor(rng() * 1000)),
    properties,
  };
}
