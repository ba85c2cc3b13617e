/**
 * Differential tester, part 1: a random but realistic configuration, as the admin requests that
 * build it, from a seed. The same sequence goes to Vane and to the Unleash reference; every status
 * must match, then the playground answers are compared (run.ts).
 *
 * What is covered: every strategy type Unleash ships (`default`, `flexibleRollout`,
 * `remoteAddress`, `applicationHostname`) and custom ones created through `POST /api/admin/strategies`
 * (including the legacy names `gradualRollout*`, which the playground implements), disabled
 * strategies, titles, every constraint operator but REGEX with `inverted`/`caseInsensitive`, global
 * and project segments, strategy variants and environment variants (fix/variable weights, payloads
 * of each type, overrides, stickiness default/userId/custom/random), dependencies with and without
 * variants, archived flags (some revived), several projects and both environments.
 *
 * What is left out on purpose, because Vane follows the client specification there (docs/rules.md §0 D2) or
 * because an answer would be random:
 * - `userWithId` strategies, `REGEX` and `IN_CIDR` constraints, `v`-prefixed semver values, missing
 *   segments, strategy variants without stickiness, `enabled: false` dependencies (D2);
 * - randomness: `random` stickiness only where it cannot matter (rollout 0/100, one-variant lists),
 *   `gradualRolloutRandom` only at 0/100 %, and variant stickiness only on fields every generated
 *   context carries (`userId`, property `tenant`) or `default` (contexts always carry a `userId`).
 *
 * Values are drawn from the same pools as the contexts of run.ts (`POOLS`), so constraints match
 * often enough to exercise both outcomes.
 */

/** One admin request. `capture` names the response's `id` for later `{ref:NAME}` / `"$ref:NAME"` uses. */
export interface AdminRequest {
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
  capture?: string;
}

export interface GenerateOptions {
  /** Number of flags (archived ones included). */
  flags: number;
}

/** Value pools shared with the context generator. */
export const POOLS = {
  userIds: ['1', '2', '7', '42', '123', 'u1', 'u2', 'alice', 'bob', 'Bob', 'carol@example.com', 'user-9'],
  sessionIds: ['s1', 's2', 'sess-a', 'sess-b', '9f1c', '12345'],
  tenants: ['acme', 'ACME', 'globex', 'initech', 'umbrella', 'hooli', 'stark'],
  regions: ['eu', 'us', 'ap', 'EU', 'eu-west', 'us-east'],
  plans: ['free', 'pro', 'enterprise', 'Pro'],
  appNames: ['web', 'mobile', 'ios', 'android', 'backend'],
  ipv4: ['10.0.0.1', '10.0.0.77', '10.1.2.3', '192.168.1.10', '192.168.2.1', '172.16.5.4', '8.8.8.8', '127.0.0.1'],
  ipv6: ['::1', '2001:db8::1', 'fe80::1'],
  versions: ['1.0.0', '1.2.3', '2.0.0', '2.0.0-beta.1', '2.0.0-beta.11', '2.0.0-rc.1', '10.0.0', '0.9.9', '1.2.3+build.5', '3.1.4'],
  numbers: ['0', '1', '5', '10', '18', '21', '42', '99.5', '100', '-3', '1e3'],
  /** Dates well away from "now", so DATE_* results do not depend on when the test runs. */
  dates: ['2020-01-01T00:00:00.000Z', '2023-06-15T12:00:00.000Z', '2025-03-01T08:30:00.000Z', '2031-12-31T23:59:59.000Z', '2040-01-01T00:00:00.000Z'],
  hostNames: ['web-1', 'web-2', 'localhost', 'api.example.com'],
} as const;

/** mulberry32: small, fast, good enough for test data; the same seed gives the same sequence. */
export class Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  /** `count` distinct items (fewer when the pool is smaller), in pool order. */
  some<T>(items: readonly T[], count: number): T[] {
    const chosen = new Set<number>();
    while (chosen.size < Math.min(count, items.length)) chosen.add(Math.floor(this.next() * items.length));
    return [...chosen].sort((a, b) => a - b).map((i) => items[i]!);
  }
}

export interface FlagPlan {
  name: string;
  project: string;
  archived: boolean;
  parent: string | null;
  children: number;
  /** Strategy-variant names and environment-variant names, for dependency `variants`. */
  variantNames: Set<string>;
}

export interface SegmentPlan {
  ref: string;
  project: string | null;
}

const STRING_FIELDS = ['userId', 'sessionId', 'appName', 'environment', 'tenant', 'region', 'plan', 'remoteAddress'] as const;
const CUSTOM_TYPES = ['s-custom-a', 's-custom-b'];
/** Legacy built-ins of older Unleash versions: custom types by name, implemented by the playground. */
const LEGACY_TYPES = ['gradualRolloutUserId', 'gradualRolloutSessionId', 'gradualRolloutRandom'];

function stringValuesFor(random: Random, field: string): string[] {
  switch (field) {
    case 'userId':
      return random.some(POOLS.userIds, random.int(1, 4));
    case 'sessionId':
      return random.some(POOLS.sessionIds, random.int(1, 3));
    case 'appName':
      return random.some(POOLS.appNames, random.int(1, 3));
    case 'environment':
      return random.some(['default', 'development', 'production', 'staging'], random.int(1, 2));
    case 'tenant':
      return random.some(POOLS.tenants, random.int(1, 4));
    case 'region':
      return random.some(POOLS.regions, random.int(1, 3));
    case 'plan':
      return random.some(POOLS.plans, random.int(1, 2));
    default:
      return random.some([...POOLS.ipv4, ...POOLS.ipv6], random.int(1, 3));
  }
}

/** A piece of a pool value for STR_* operators: prefix, suffix or middle, sometimes in other case. */
function fragment(random: Random, value: string, where: 'start' | 'end' | 'middle'): string {
  const length = Math.max(1, Math.min(value.length, random.int(1, 4)));
  const cut = where === 'start' ? value.slice(0, length) : where === 'end' ? value.slice(-length) : value.slice(Math.floor((value.length - length) / 2)).slice(0, length);
  return random.chance(0.2) ? cut.toUpperCase() : cut;
}

const OPERATORS = [
  'IN', 'NOT_IN', 'STR_STARTS_WITH', 'STR_ENDS_WITH', 'STR_CONTAINS',
  'NUM_EQ', 'NUM_GT', 'NUM_GTE', 'NUM_LT', 'NUM_LTE',
  'DATE_AFTER', 'DATE_BEFORE',
  'SEMVER_EQ', 'SEMVER_GT', 'SEMVER_LT', 'SEMVER_GTE', 'SEMVER_LTE',
] as const;

export function generateConstraint(random: Random): Record<string, unknown> {
  const operator = random.pick(OPERATORS);
  const constraint: Record<string, unknown> = {};
  if (operator === 'IN' || operator === 'NOT_IN') {
    const field = random.pick(STRING_FIELDS);
    constraint.contextName = field;
    constraint.operator = operator;
    constraint.values = stringValuesFor(random, field);
  } else if (operator.startsWith('STR_')) {
    const field = random.pick(STRING_FIELDS);
    const where = operator === 'STR_STARTS_WITH' ? 'start' : operator === 'STR_ENDS_WITH' ? 'end' : 'middle';
    constraint.contextName = field;
    constraint.operator = operator;
    constraint.values = [...new Set(stringValuesFor(random, field).map((value) => fragment(random, value, where)))];
  } else if (operator.startsWith('NUM_')) {
    constraint.contextName = random.pick(['age', 'score', 'userId']);
    constraint.operator = operator;
    constraint.value = random.pick(['0', '5', '18', '21', '42', '99.5', '100', '-3', '1000']);
  } else if (operator.startsWith('DATE_')) {
    constraint.contextName = 'currentTime';
    constraint.operator = operator;
    constraint.value = random.pick(POOLS.dates);
  } else {
    constraint.contextName = random.pick(['version', 'version', 'appVersion']);
    constraint.operator = operator;
    constraint.value = random.pick(POOLS.versions);
  }
  if (random.chance(0.3)) constraint.inverted = random.chance(0.7);
  if (random.chance(0.3)) constraint.caseInsensitive = random.chance(0.7);
  return constraint;
}

function generateConstraints(random: Random, max: number): Record<string, unknown>[] {
  const count = random.chance(0.45) ? 0 : random.int(1, max);
  return Array.from({ length: count }, () => generateConstraint(random));
}

function generatePayload(random: Random): Record<string, string> | undefined {
  switch (random.int(0, 5)) {
    case 0:
      return { type: 'string', value: random.pick(['on', 'blue', 'hello world', '']) || 'x' };
    case 1:
      return { type: 'json', value: JSON.stringify({ color: random.pick(['red', 'green']), n: random.int(0, 9) }) };
    case 2:
      return { type: 'number', value: String(random.int(0, 500)) };
    case 3:
      return { type: 'csv', value: 'a,b,c' };
    default:
      return undefined;
  }
}

/** Variant stickiness that cannot make the answer random (see the module comment). */
function variantStickiness(random: Random, single: boolean): string {
  const choices = single ? ['default', 'userId', 'tenant', 'random'] : ['default', 'userId', 'tenant'];
  return random.pick(choices);
}

function variantNames(random: Random): string[] {
  return random.some(['red', 'green', 'blue', 'control', 'treatment', 'A', 'b', 'zeta'], random.int(1, 4));
}

function weights(random: Random, count: number): Array<{ weight: number; weightType: 'variable' | 'fix' }> {
  const out: Array<{ weight: number; weightType: 'variable' | 'fix' }> = [];
  let fixed = 0;
  for (let i = 0; i < count; i++) {
    // At least one variable variant; fixed weights never exceed the total.
    if (i > 0 && random.chance(0.3) && fixed < 800) {
      const weight = random.int(0, 200);
      fixed += weight;
      out.push({ weight, weightType: 'fix' });
    } else {
      out.push({ weight: random.int(0, 1000), weightType: 'variable' });
    }
  }
  return out;
}

function strategyVariants(random: Random, into: Set<string>): Record<string, unknown>[] {
  const names = variantNames(random);
  const single = names.length === 1;
  const sameStickiness = random.chance(0.6) ? variantStickiness(random, single) : null;
  const split = weights(random, names.length);
  return names.map((name, i) => {
    into.add(name);
    const variant: Record<string, unknown> = {
      name, weight: split[i]!.weight, weightType: split[i]!.weightType, stickiness: sameStickiness ?? variantStickiness(random, single),
    };
    const payload = generatePayload(random);
    if (payload) variant.payload = payload;
    return variant;
  });
}

export function environmentVariants(random: Random, into: Set<string>): Record<string, unknown>[] {
  const names = variantNames(random);
  const single = names.length === 1;
  const stickiness = variantStickiness(random, single);
  const split = weights(random, names.length);
  return names.map((name, i) => {
    into.add(name);
    const variant: Record<string, unknown> = { name, weight: split[i]!.weight, weightType: split[i]!.weightType, stickiness };
    const payload = generatePayload(random);
    if (payload) variant.payload = payload;
    if (random.chance(0.25)) {
      const field = random.pick(['userId', 'tenant', 'region', 'appName']);
      variant.overrides = [{ contextName: field, values: stringValuesFor(random, field) }];
    }
    return variant;
  });
}

function ipList(random: Random): string {
  const entries = random.some(
    [...POOLS.ipv4, '10.0.0.0/24', '192.168.0.0/16', '172.16.0.0/12', '10.1.0.0/31', ...POOLS.ipv6, 'not-an-ip'],
    random.int(1, 4),
  );
  return entries.join(random.pick([',', ', ', ' ,']));
}

function rolloutPercentage(random: Random): string {
  return String(random.pick([0, 100, 100, random.int(1, 99), random.int(1, 99)]));
}

export function strategyBody(random: Random, flag: FlagPlan, segments: SegmentPlan[]): Record<string, unknown> {
  const type = random.pick([
    'default', 'flexibleRollout', 'flexibleRollout', 'flexibleRollout', 'remoteAddress', 'applicationHostname',
    ...CUSTOM_TYPES, ...LEGACY_TYPES,
  ]);
  const body: Record<string, unknown> = { name: type };
  let parameters: Record<string, string> = {};
  switch (type) {
    case 'flexibleRollout': {
      const stickiness = random.pick(['default', 'default', 'userId', 'sessionId', 'tenant', 'region', 'random']);
      const rollout = stickiness === 'random' ? random.pick(['0', '100']) : rolloutPercentage(random);
      parameters = { rollout, stickiness };
      const group = random.int(0, 3);
      if (group === 1) parameters.groupId = random.pick(['g1', 'shared', flag.name]);
      if (group === 2) parameters.groupId = '';
      if (random.chance(0.1)) delete parameters.stickiness;
      break;
    }
    case 'remoteAddress':
      parameters = { IPs: ipList(random) };
      break;
    case 'applicationHostname':
      parameters = { hostNames: random.some(POOLS.hostNames, 2).join(',') };
      break;
    case 'gradualRolloutUserId':
    case 'gradualRolloutSessionId':
      parameters = { percentage: rolloutPercentage(random), groupId: random.pick(['g1', flag.name, '']) };
      break;
    case 'gradualRolloutRandom':
      parameters = { percentage: random.pick(['0', '100']) };
      break;
    case 'default':
      break;
    default:
      parameters = { level: random.pick(['1', '2', 'high']) };
  }
  body.parameters = parameters;
  if (random.chance(0.3)) body.title = random.pick(['Beta users', 'Canary', 'Internal', 'Rollout ü']);
  if (random.chance(0.2)) body.disabled = true;
  const constraints = generateConstraints(random, 3);
  if (constraints.length > 0) body.constraints = constraints;
  const usable = segments.filter((segment) => segment.project === null || segment.project === flag.project);
  if (usable.length > 0 && random.chance(0.35)) body.segments = random.some(usable, random.int(1, Math.min(3, usable.length))).map((s) => `$ref:${s.ref}`);
  if (type !== 'applicationHostname' && !CUSTOM_TYPES.includes(type) && random.chance(0.4)) {
    body.variants = strategyVariants(random, flag.variantNames);
  } else if (random.chance(0.1)) {
    // Unimplemented types with variants: the playground never picks them.
    body.variants = strategyVariants(random, flag.variantNames);
  }
  return body;
}

/**
 * The admin requests building configuration `seed`: projects, strategy types, segments, flags with
 * strategies, variants, on/off states, dependencies, archivals. Names carry the seed, so two seeds
 * can share a server, except for the strategy types, created once (a 409 the second time).
 */
export function generateConfiguration(seed: number, opts: GenerateOptions): AdminRequest[] {
  const random = new Random(seed * 7919 + 17);
  const requests: AdminRequest[] = [];
  const tag = `s${seed}`;
  const projects = ['default', ...Array.from({ length: random.int(1, 2) }, (_, i) => `${tag}-p${i + 1}`)];
  for (const project of projects.slice(1)) {
    requests.push({ method: 'POST', path: '/api/admin/projects', body: { id: project, name: `Project ${project}` } });
  }
  for (const name of [...CUSTOM_TYPES, ...LEGACY_TYPES]) {
    const parameters = name.startsWith('gradual')
      ? [{ name: 'percentage', type: 'percentage', description: '', required: false }, { name: 'groupId', type: 'string', description: '', required: false }]
      : [{ name: 'level', type: 'string', description: 'how much', required: false }];
    requests.push({ method: 'POST', path: '/api/admin/strategies', body: { name, description: `custom ${name}`, parameters } });
  }

  const segments: SegmentPlan[] = [];
  const segmentCount = random.int(2, 6);
  for (let i = 0; i < segmentCount; i++) {
    const project = random.chance(0.3) ? random.pick(projects) : null;
    const ref = `${tag}-seg${i}`;
    const body: Record<string, unknown> = { name: ref, constraints: Array.from({ length: random.int(0, 3) }, () => generateConstraint(random)) };
    if (project !== null) body.project = project;
    if (random.chance(0.3)) body.description = 'a segment';
    requests.push({ method: 'POST', path: '/api/admin/segments', body, capture: ref });
    segments.push({ ref, project });
  }

  const flags: FlagPlan[] = [];
  for (let i = 0; i < opts.flags; i++) {
    // Some names are array indices: Unleash lists those first (docs/rules.md §3.3).
    const name = random.chance(0.05) ? String(seed * 1000 + i) : `${tag}.flag-${i}`;
    const flag: FlagPlan = { name, project: random.pick(projects), archived: false, parent: null, children: 0, variantNames: new Set() };
    flags.push(flag);
    const base = `/api/admin/projects/${flag.project}/features/${flag.name}`;
    requests.push({ method: 'POST', path: `/api/admin/projects/${flag.project}/features`, body: { name: flag.name } });
    for (const environment of ['development', 'production']) {
      if (random.chance(0.15)) continue;
      const count = random.pick([0, 1, 1, 1, 2, 2, 3]);
      for (let s = 0; s < count; s++) {
        requests.push({ method: 'POST', path: `${base}/environments/${environment}/strategies`, body: strategyBody(random, flag, segments) });
      }
      if (random.chance(0.25)) {
        requests.push({ method: 'PUT', path: `${base}/environments/${environment}/variants`, body: environmentVariants(random, flag.variantNames) });
      }
      // Turning on adds a default strategy when none (or only disabled ones) exist.
      if (random.chance(0.7)) requests.push({ method: 'POST', path: `${base}/environments/${environment}/on` });
      else if (random.chance(0.2)) requests.push({ method: 'POST', path: `${base}/environments/${environment}/off` });
    }
  }

  // Dependencies: a child gets at most one parent, from the same project; no chains.
  for (const child of flags) {
    if (!random.chance(0.25) || child.children > 0) continue;
    const candidates = flags.filter((parent) => parent !== child && parent.project === child.project && parent.parent === null);
    if (candidates.length === 0) continue;
    const parent = random.pick(candidates);
    const body: Record<string, unknown> = { feature: parent.name };
    if (random.chance(0.5)) body.enabled = true;
    if (random.chance(0.4)) {
      const names = [...parent.variantNames, 'disabled'];
      body.variants = random.some(names, random.int(1, Math.min(2, names.length)));
    }
    requests.push({ method: 'POST', path: `/api/admin/projects/${child.project}/features/${child.name}/dependencies`, body });
    child.parent = parent.name;
    parent.children++;
  }

  // Archivals (parents refuse with 403, which both servers must agree on); some revived.
  for (const flag of flags) {
    if (!random.chance(0.1)) continue;
    requests.push({ method: 'DELETE', path: `/api/admin/projects/${flag.project}/features/${flag.name}` });
    if (flag.children === 0) flag.archived = true;
    if (flag.children === 0 && random.chance(0.3)) {
      requests.push({ method: 'POST', path: `/api/admin/archive/revive/${flag.name}` });
      flag.archived = false;
    }
  }
  return requests;
}

/** Replaces `"$ref:NAME"` strings (whole values) and `{ref:NAME}` in paths by captured ids. */
export function resolveRefs(value: unknown, ids: ReadonlyMap<string, unknown>): unknown {
  if (typeof value === 'string' && value.startsWith('$ref:')) {
    const id = ids.get(value.slice(5));
    return id === undefined ? value : id;
  }
  if (Array.isArray(value)) return value.map((item) => resolveRefs(item, ids));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, resolveRefs(inner, ids)]));
  }
  return value;
}

export interface ApplyOptions {
  /**
   * Creates a project instead of `POST /api/admin/projects` (the open-source reference has no such
   * route; run.ts inserts the rows into its database). Returns the status to report.
   */
  createProject?: (id: string, name: string) => Promise<number>;
  /** Called after each request with its status and body (for logging differences). */
  onResponse?: (index: number, request: AdminRequest, status: number, body: string) => void;
}

/**
 * Sends the requests in order to `baseUrl` with an admin `token`; returns each status. Captured
 * ids (`capture`) are substituted into later bodies and paths.
 */
export async function applyConfiguration(
  baseUrl: string,
  token: string,
  requests: readonly AdminRequest[],
  options: ApplyOptions = {},
): Promise<number[]> {
  const ids = new Map<string, unknown>();
  const statuses: number[] = [];
  for (const [index, request] of requests.entries()) {
    if (options.createProject && request.method === 'POST' && request.path === '/api/admin/projects') {
      const body = request.body as { id: string; name: string };
      const status = await options.createProject(body.id, body.name);
      statuses.push(status);
      options.onResponse?.(index, request, status, '');
      continue;
    }
    const path = request.path.replace(/\{ref:([^}]+)\}/g, (_m, name: string) => String(ids.get(name) ?? name));
    const body = request.body === undefined ? undefined : JSON.stringify(resolveRefs(request.body, ids));
    const headers: Record<string, string> = { authorization: token };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(baseUrl + path, { method: request.method, headers, body });
    const text = await res.text();
    statuses.push(res.status);
    options.onResponse?.(index, request, res.status, text);
    if (request.capture !== undefined && res.ok) {
      try {
        const parsed = JSON.parse(text) as { id?: unknown };
        if (parsed.id !== undefined) ids.set(request.capture, parsed.id);
      } catch {
        // no id to capture
      }
    }
  }
  return statuses;
}
