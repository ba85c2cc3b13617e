/**
 * Differential tester, part 7: the `admin` surface — a random sequence of admin calls, valid and
 * invalid, sent in the same order to Vane and to the Unleash reference. Per call it compares the
 * status, the body (server-generated ids, times and the admin token's name normalised) and the
 * events the call recorded (read from `GET /api/admin/search/events` before and after; compared
 * on type, featureName, project, environment, data, preData and tags — not on who made them).
 *
 * Covered: context fields (list, get, create, update, delete, validate, legal values, strategies),
 * tag types with colours, a flag's tags (get, add, replace, remove; tags of a type), a flag's own
 * fields (PUT, PATCH, stale marks, name validation), the reads of the flags page and the project
 * pages (feature search with random filters, lifecycle counts, flag creators, feature types,
 * project environments, parent variants, project status), interleaved with the writes a
 * configuration is made of (flags, strategies, variants, on/off, segments, dependencies,
 * archive/revive). Everything happens in project `default`, so the reference needs no database
 * access; names carry the seed (`a<seed>`).
 *
 * Differences Vane makes on purpose are listed in ACCEPTED, each with its reason; they are counted
 * and printed apart, never silently dropped.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { differences, normaliseIds, type Difference } from './compare.js';
import { environmentVariants, generateConstraint, Random, resolveRefs } from './config.js';
import { send } from './surfaces.js';

export interface AdminCall {
  /** What the call exercises, e.g. `context.create`, `flag.patch`; used for the tallies and ACCEPTED. */
  op: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** `{ref:NAME}` is replaced by the id the side captured under NAME. */
  path: string;
  /** `"$ref:NAME"` values are replaced by the id the side captured under NAME. */
  body?: unknown;
  /** Names the response's `id` (each side keeps its own). */
  capture?: string;
  /**
   * A call about users: the users of other runs (a shared reference holds them) are left out of its
   * lists, which are compared ordered by e-mail, and the ids the run captured are compared as names.
   */
  usersOf?: string;
}

const PROJECT = 'default';
const FLAGS = `/api/admin/projects/${PROJECT}/features`;
const ENVIRONMENTS = ['development', 'production'] as const;
const FLAG_TYPES = ['release', 'experiment', 'operational', 'kill-switch', 'permission'] as const;
const COLORS = ['#FF0000', '#00ff00', '#1A2B3C', 'red', '#FFF', null];

interface FlagModel {
  name: string;
  archived: boolean;
  parent: string | null;
  children: number;
  /** Captured strategy refs per environment. */
  strategies: Record<string, string[]>;
  variantNames: Set<string>;
  tags: Set<string>;
}

/**
 * The admin sequence of `seed`: `count` calls after a short setup. The generator keeps a model of
 * what it created so that most calls are meaningful; the model need not be exact (the two servers'
 * answers are what is compared), and a share of calls is invalid on purpose.
 */
export function generateAdminSequence(seed: number, count = 300): AdminCall[] {
  const random = new Random(seed * 104729 + 3);
  const tag = `a${seed}`;
  const calls: AdminCall[] = [];
  const flags: FlagModel[] = [];
  const fields: string[] = [];
  const tagTypes: string[] = ['simple'];
  const segments: string[] = [];
  let flagCounter = 0;
  let fieldCounter = 0;
  let segmentCounter = 0;
  let strategyCounter = 0;
  /** API tokens created in the sequence: name and capture ref. */
  const tokens: Array<{ name: string; ref: string }> = [];
  /** Users created in the sequence (capture ref and e-mail; `deleted` once a delete was sent). */
  const people: Array<{ ref: string; email: string; deleted: boolean; linked: boolean }> = [];
  const USERS = '/api/admin/user-admin';
  const userCall = (call: Omit<AdminCall, 'usersOf'>) => calls.push({ ...call, usersOf: tag });
  const anyPerson = () => (people.length > 0 && random.chance(0.85) ? `{ref:${random.pick(people).ref}}` : '999999');
  const password = () => random.pick(['weak', '', 'Str0ng!Passw0rd', 'correct horse battery staple', 'aaaBBB111!!!', `Pass-${tag}-9x`]);

  const live = () => flags.filter((flag) => !flag.archived);
  const anyFlag = (): string => {
    if (flags.length === 0 || random.chance(0.08)) return `${tag}-missing-flag`;
    return random.pick(random.chance(0.8) && live().length > 0 ? live() : flags).name;
  };
  const anyField = (): string => {
    if (random.chance(0.15)) return random.pick(['userId', 'appName', 'environment', `${tag}-nofield`]);
    return fields.length === 0 ? `${tag}-nofield` : random.pick(fields);
  };
  /** One to three flag names (archived ones only, when `archived`), now and then one of no flag. */
  const someFlags = (archived = false): string[] => {
    const pool = archived && flags.some((flag) => flag.archived) && random.chance(0.8) ? flags.filter((flag) => flag.archived) : flags;
    const names = random.some(pool.map((flag) => flag.name), random.int(1, 3));
    if (random.chance(0.15)) names.push(`${tag}-missing-flag`);
    return names;
  };
  const tagValue = () => random.pick(['beta', 'team-a', 'team-b', 'q3', 'ü-tag', 'x'.repeat(random.int(2, 6))]);

  const createFlag = () => {
    const name = `${tag}.flag-${flagCounter++}`;
    const body: Record<string, unknown> = { name };
    if (random.chance(0.5)) body.type = random.pick(FLAG_TYPES);
    if (random.chance(0.4)) body.description = random.pick(['first', 'a flag', '', 'ü description']);
    if (random.chance(0.2)) body.impressionData = random.chance(0.5);
    calls.push({ op: 'flag.create', method: 'POST', path: FLAGS, body });
    flags.push({ name, archived: false, parent: null, children: 0, strategies: { development: [], production: [] }, variantNames: new Set(), tags: new Set() });
  };
  const createField = () => {
    const name = `${tag}-field-${fieldCounter++}`;
    const body: Record<string, unknown> = { name };
    if (random.chance(0.5)) body.description = random.pick(['where the user is', 'plan', '']);
    if (random.chance(0.4)) body.stickiness = random.chance(0.5);
    if (random.chance(0.5)) body.legalValues = random.some(['a', 'b', 'c', 'eu', 'us'], random.int(1, 3)).map((value) => (random.chance(0.3) ? { value, description: `means ${value}` } : { value }));
    if (random.chance(0.2)) body.sortOrder = random.int(0, 20);
    calls.push({ op: 'context.create', method: 'POST', path: '/api/admin/context', body });
    fields.push(name);
  };
  const constraintOn = (field: string) => (random.chance(0.5)
    ? { contextName: field, operator: random.pick(['IN', 'NOT_IN']), values: random.some(['a', 'b', 'c', 'eu', 'us'], random.int(1, 2)) }
    : generateConstraint(random));
  const strategyBody = (flag: FlagModel): Record<string, unknown> => {
    const body: Record<string, unknown> = random.chance(0.3)
      ? { name: 'default', parameters: {} }
      : { name: 'flexibleRollout', parameters: { rollout: String(random.pick([0, 25, 50, 100])), stickiness: 'default', groupId: flag.name } };
    if (random.chance(0.6)) body.constraints = [constraintOn(fields.length > 0 && random.chance(0.7) ? random.pick(fields) : anyField())];
    if (segments.length > 0 && random.chance(0.3)) body.segments = [`$ref:${random.pick(segments)}`];
    if (random.chance(0.2)) body.title = 'Rollout';
    if (random.chance(0.1)) body.disabled = true;
    return body;
  };

  // Setup: tag types with colours, context fields, flags.
  for (let i = 0; i < 2; i++) {
    const name = `${tag}-tt${i}`;
    calls.push({ op: 'tagtype.create', method: 'POST', path: '/api/admin/tag-types', body: { name, description: `type ${i}`, color: COLORS[i] } });
    tagTypes.push(name);
  }
  for (let i = 0; i < 3; i++) createField();
  for (let i = 0; i < 4; i++) createFlag();

  // Addon configurations (helper "addons"): webhooks to a public address literal, taking only event
  // types the sequence never records, so neither server delivers and the delivery logs stay empty.
  const addons: string[] = [];
  const addonBody = (): Record<string, unknown> => {
    const body: Record<string, unknown> = {
      provider: 'webhook', enabled: random.chance(0.5),
      parameters: { url: `http://93.184.216.34/${tag}-${addons.length}`, ...(random.chance(0.5) ? { authorization: 'Bearer x' } : {}) },
      events: random.some(['feature-potentially-stale-on', 'release-plan-progressions-paused', 'change-request-scheduled'], random.int(0, 2)),
    };
    if (random.chance(0.5)) body.description = random.pick([null, '', 'hook']);
    if (random.chance(0.4)) body.projects = random.pick([[], ['*'], [PROJECT]]);
    if (random.chance(0.4)) body.environments = random.pick([[], ['*'], [...ENVIRONMENTS]]);
    return body;
  };
  const invalidAddon = (): unknown => random.pick<unknown>([
    { provider: 'webhook', parameters: { url: 'http://93.184.216.34/' }, events: [] },
    { provider: 'nope', enabled: true, parameters: {}, events: [] },
    { provider: 'webhook', enabled: true, parameters: {}, events: [] },
    { provider: 'Bad Name', enabled: true, parameters: { url: 'http://93.184.216.34/' }, events: [] },
    { provider: 'webhook', enabled: true, parameters: { url: 'http://127.0.0.1/' }, events: [] },
    { provider: 'teams', enabled: true, parameters: { url: 'http://93.184.216.34/' }, events: [] },
  ]);
  const anyAddon = (): string => (addons.length > 0 && random.chance(0.85) ? `{ref:${random.pick(addons)}}` : '999999');

  const ops: Array<[number, () => void]> = [
    [2, () => {
      const ref = `${tag}-addon${addons.length}`;
      if (random.chance(0.75)) {
        calls.push({ op: 'addon.create', method: 'POST', path: '/api/admin/addons', body: addonBody(), capture: ref });
        addons.push(ref);
      } else calls.push({ op: 'addon.create-invalid', method: 'POST', path: '/api/admin/addons', body: invalidAddon() });
    }],
    [1, () => calls.push({ op: 'addon.list', method: 'GET', path: '/api/admin/addons' })],
    [1, () => calls.push({ op: 'addon.get', method: 'GET', path: `/api/admin/addons/${anyAddon()}` })],
    [2, () => {
      const body = random.chance(0.8) ? { ...addonBody(), parameters: { url: '*****' } } : invalidAddon();
      calls.push({ op: 'addon.update', method: 'PUT', path: `/api/admin/addons/${anyAddon()}`, body });
    }],
    [1, () => calls.push({ op: 'addon.events', method: 'GET', path: `/api/admin/addons/${anyAddon()}/events${random.pick(['', '?limit=5', '?limit=x&offset=2'])}` })],
    [1, () => {
      const target = anyAddon();
      calls.push({ op: 'addon.delete', method: 'DELETE', path: `/api/admin/addons/${target}` });
      const index = addons.findIndex((ref) => `{ref:${ref}}` === target);
      if (index >= 0) addons.splice(index, 1);
    }],
    // Applications, a flag's hourly metrics and the UI's housekeeping (helper D). Applications are
    // named by the run; no SDK reports in the sequence, so the metrics views are empty on both sides.
    [2, () => calls.push({ op: 'metrics.raw', method: 'GET', path: `/api/admin/client-metrics/features/${anyFlag()}/raw${random.pick(['', '?hoursBack=2', '?hoursBack=49', '?hoursBack=x'])}` })],
    [3, () => {
      const body = random.pick<unknown>([{}, { description: 'd', url: 'https://x.example.com', color: 'red', icon: 'bug' }, { description: 5 }, { strategies: ['default', 'nope'] }, { icon: { a: 1 } }, []]);
      calls.push({ op: 'application.save', method: 'POST', path: `/api/admin/metrics/applications/${tag}-app${random.int(1, 3)}`, body });
    }],
    [2, () => calls.push({ op: 'application.get', method: 'GET', path: `/api/admin/metrics/applications/${tag}-app${random.int(1, 4)}` })],
    [1, () => calls.push({ op: 'application.delete', method: 'DELETE', path: `/api/admin/metrics/applications/${tag}-app${random.int(1, 4)}` })],
    [1, () => calls.push({ op: 'application.overview', method: 'GET', path: `/api/admin/metrics/applications/${tag}-app${random.int(1, 3)}/overview` })],
    [1, () => calls.push({ op: 'application.instances', method: 'GET', path: `/api/admin/metrics/instances/${tag}-app${random.int(1, 3)}/environment/${random.pick(ENVIRONMENTS)}` })],
    [1, () => calls.push({ op: 'project.applications', method: 'GET', path: `/api/admin/projects/${random.pick([PROJECT, 'no-such-project'])}/applications?query=${tag}${random.pick(['', '&limit=1', '&offset=1&sortOrder=desc'])}` })],
    [1, () => calls.push({ op: 'project.sdks-outdated', method: 'GET', path: '/api/admin/projects/no-such-project/sdks/outdated' })],
    [1, () => calls.push({ op: 'telemetry.settings', method: 'GET', path: '/api/admin/telemetry/settings' })],
    [1, () => calls.push({ op: 'ui.error', method: 'POST', path: '/api/admin/record-ui-error', body: random.pick<unknown>([{ errorMessage: 'boom', errorStack: 'at x' }, {}, { errorStack: 's' }, []]) })],
    [1, () => calls.push({ op: 'ui.splash', method: 'POST', path: `/api/admin/splash/${tag}-splash` })],
    // Every list keeps `*`: the reference is shared, and its frontend API must keep answering every origin.
    [1, () => calls.push({ op: 'ui.cors', method: 'POST', path: '/api/admin/ui-config/cors', body: random.pick<unknown>([
      { frontendApiOrigins: ['*'] }, { frontendApiOrigins: ['https://d.example.com', '*'] }, { frontendApiOrigins: ['not a url', '*'] }, { other: 1 }, {},
    ]) })],
    // The configuration's writes.
    [6, createFlag],
    [2, () => calls.push({ op: 'flag.create-invalid', method: 'POST', path: FLAGS, body: random.pick([{ name: anyFlag() }, { name: 'bad name!' }, { name: `${tag}.x`, type: 'bogus' }, {}]) })],
    [8, () => {
      const flag = random.pick(flags.length > 0 ? flags : [{ name: anyFlag() } as FlagModel]);
      if (flag.strategies === undefined) return;
      const environment = random.pick(ENVIRONMENTS);
      const ref = `${tag}-strategy-${strategyCounter++}`;
      calls.push({ op: 'strategy.add', method: 'POST', path: `${FLAGS}/${flag.name}/environments/${environment}/strategies`, body: strategyBody(flag), capture: ref });
      flag.strategies[environment]!.push(ref);
    }],
    [3, () => {
      const flag = random.pick(flags);
      const environment = random.pick(ENVIRONMENTS);
      const list = flag.strategies[environment]!;
      if (list.length === 0) return;
      const ref = random.pick(list);
      if (random.chance(0.5)) {
        calls.push({ op: 'strategy.update', method: 'PUT', path: `${FLAGS}/${flag.name}/environments/${environment}/strategies/{ref:${ref}}`, body: strategyBody(flag) });
      } else {
        calls.push({ op: 'strategy.delete', method: 'DELETE', path: `${FLAGS}/${flag.name}/environments/${environment}/strategies/{ref:${ref}}` });
        list.splice(list.indexOf(ref), 1);
      }
    }],
    [3, () => {
      const flag = random.pick(flags);
      calls.push({ op: 'variants.put', method: 'PUT', path: `${FLAGS}/${flag.name}/environments/${random.pick(ENVIRONMENTS)}/variants`, body: environmentVariants(random, flag.variantNames) });
    }],
    [5, () => calls.push({ op: 'environment.toggle', method: 'POST', path: `${FLAGS}/${anyFlag()}/environments/${random.pick(ENVIRONMENTS)}/${random.chance(0.75) ? 'on' : 'off'}` })],
    [2, () => {
      const ref = `${tag}-seg${segmentCounter++}`;
      const field = anyField();
      calls.push({ op: 'segment.create', method: 'POST', path: '/api/admin/segments', body: { name: ref, constraints: [constraintOn(field)] }, capture: ref });
      segments.push(ref);
    }],
    [2, () => {
      const child = random.pick(flags);
      const candidates = flags.filter((flag) => flag !== child && flag.parent === null && !flag.archived);
      if (child.children > 0 || candidates.length === 0) return;
      const parent = random.pick(candidates);
      const body: Record<string, unknown> = { feature: parent.name };
      if (random.chance(0.4) && parent.variantNames.size > 0) body.variants = random.some([...parent.variantNames], 1);
      calls.push({ op: 'dependency.add', method: 'POST', path: `${FLAGS}/${child.name}/dependencies`, body });
      if (child.parent === null) {
        child.parent = parent.name;
        parent.children++;
      }
    }],
    [2, () => {
      const flag = random.pick(flags);
      calls.push({ op: 'flag.archive', method: 'DELETE', path: `${FLAGS}/${flag.name}` });
      if (flag.children === 0) flag.archived = true;
    }],
    [2, () => {
      const archived = flags.filter((flag) => flag.archived);
      const flag = archived.length > 0 && random.chance(0.85) ? random.pick(archived) : random.pick(flags);
      calls.push({ op: 'flag.revive', method: 'POST', path: `/api/admin/archive/revive/${flag.name}` });
      flag.archived = false;
    }],

    // Several flags at once (routes/bulk.ts).
    [2, () => calls.push({ op: 'flags.archive-validate', method: 'POST', path: `/api/admin/projects/${PROJECT}/archive/validate`, body: { features: someFlags() } })],
    [2, () => {
      const names = someFlags();
      calls.push({ op: 'flags.bulk-archive', method: 'POST', path: `/api/admin/projects/${random.chance(0.9) ? PROJECT : 'no-such-project'}/archive`, body: { features: names } });
      const listed = flags.filter((flag) => names.includes(flag.name));
      if (listed.some((parent) => flags.some((child) => child.parent === parent.name && !child.archived && !listed.includes(child)))) return;
      for (const flag of listed) {
        flag.archived = true;
        const parent = flags.find((other) => other.name === flag.parent);
        if (parent) parent.children--;
        flag.parent = null;
      }
    }],
    [2, () => {
      const names = someFlags(true);
      calls.push({ op: 'flags.bulk-revive', method: 'POST', path: `/api/admin/projects/${PROJECT}/revive`, body: { features: names } });
      for (const flag of flags) if (names.includes(flag.name)) flag.archived = false;
    }],
    [1, () => {
      const names = someFlags(true);
      calls.push({ op: 'flags.bulk-delete', method: 'POST', path: `/api/admin/projects/${PROJECT}/delete`, body: { features: names } });
      if (flags.some((parent) => names.includes(parent.name) && parent.children > 0)) return;
      for (const flag of flags.filter((f) => f.archived && names.includes(f.name))) flags.splice(flags.indexOf(flag), 1);
    }],
    [1, () => {
      const name = someFlags(true)[0] ?? anyFlag();
      calls.push({ op: 'flags.archive-delete', method: 'DELETE', path: `/api/admin/archive/${name}` });
      const flag = flags.find((f) => f.name === name);
      if (flag?.archived) flags.splice(flags.indexOf(flag), 1);
    }],
    [3, () => {
      const activate = random.chance(0.2) ? '?shouldActivateDisabledStrategies=true' : '';
      const path = `/api/admin/projects/${PROJECT}/bulk_features/environments/${random.chance(0.95) ? random.pick(ENVIRONMENTS) : 'no-such-env'}/${random.chance(0.7) ? 'on' : 'off'}${activate}`;
      calls.push({ op: 'flags.bulk-toggle', method: 'POST', path, body: { features: someFlags().filter((name, i, all) => all.indexOf(name) === i) } });
    }],
    [2, () => {
      const names = someFlags();
      const added = Array.from({ length: random.int(0, 2) }, () => ({ type: random.chance(0.9) ? random.pick(tagTypes) : `${tag}-no-type`, value: tagValue() }));
      const removed = Array.from({ length: random.int(0, 1) }, () => ({ type: 'simple', value: tagValue() }));
      calls.push({ op: 'flags.bulk-tags', method: 'PUT', path: `/api/admin/projects/${PROJECT}/tags`, body: { features: names.filter((name) => !name.endsWith('-missing-flag')), tags: { addedTags: added, removedTags: removed } } });
      for (const flag of flags) if (names.includes(flag.name)) for (const t of added) flag.tags.add(`${t.type}:${t.value}`);
    }],

    // Context fields.
    [3, createField],
    [2, () => {
      const bodies: unknown[] = [
        { name: random.pick(fields.length > 0 ? fields : ['userId']) },
        { name: 'bad name' },
        { name: '' },
        { name: `${tag}-long`, description: 'd'.repeat(251) },
        { name: `${tag}-dup-values-${fieldCounter}`, legalValues: [{ value: 'a' }, { value: 'a' }] },
        { name: `${tag}-empty-value-${fieldCounter}`, legalValues: [{ value: '' }] },
        { description: 'no name' },
      ];
      calls.push({ op: 'context.create-invalid', method: 'POST', path: '/api/admin/context', body: random.pick(bodies) });
    }],
    [3, () => calls.push({ op: 'context.list', method: 'GET', path: '/api/admin/context' })],
    [3, () => calls.push({ op: 'context.get', method: 'GET', path: `/api/admin/context/${anyField()}` })],
    [4, () => {
      const body: Record<string, unknown> = {};
      if (random.chance(0.6)) body.description = random.pick(['changed', '', 'ü']);
      if (random.chance(0.5)) body.stickiness = random.chance(0.5);
      if (random.chance(0.5)) body.legalValues = random.some(['a', 'b', 'c', 'eu', 'us', 'ap'], random.int(0, 3)).map((value) => ({ value }));
      if (random.chance(0.2)) body.sortOrder = random.int(0, 9);
      calls.push({ op: 'context.update', method: 'PUT', path: `/api/admin/context/${anyField()}`, body });
    }],
    [2, () => {
      const name = anyField();
      calls.push({ op: 'context.delete', method: 'DELETE', path: `/api/admin/context/${name}` });
    }],
    [3, () => {
      const name = random.pick([anyField(), `${tag}-fresh-${fieldCounter}`, 'bad name', '']);
      calls.push({ op: 'context.validate', method: 'POST', path: '/api/admin/context/validate', body: random.chance(0.1) ? { name, extra: 1 } : { name } });
    }],
    [3, () => {
      const body = random.chance(0.85)
        ? { value: random.pick(['a', 'b', 'zz', 'eu', 'new-value']), ...(random.chance(0.4) ? { description: 'legal' } : {}) }
        : { value: '' };
      calls.push({ op: 'context.legal-value.add', method: 'POST', path: `/api/admin/context/${anyField()}/legal-values`, body });
    }],
    [2, () => calls.push({ op: 'context.legal-value.delete', method: 'DELETE', path: `/api/admin/context/${anyField()}/legal-values/${random.pick(['a', 'b', 'zz', 'nope'])}` })],
    [2, () => calls.push({ op: 'context.strategies', method: 'GET', path: `/api/admin/context/${anyField()}/strategies` })],

    // Tags.
    [1, () => {
      const name = random.chance(0.8) ? `${tag}-tt${tagTypes.length}` : random.pick(tagTypes);
      const body: Record<string, unknown> = { name };
      if (random.chance(0.5)) body.description = 'a tag type';
      if (random.chance(0.7)) body.color = random.pick(COLORS);
      calls.push({ op: 'tagtype.create', method: 'POST', path: '/api/admin/tag-types', body });
      if (!tagTypes.includes(name)) tagTypes.push(name);
    }],
    [1, () => calls.push({ op: 'tagtype.list', method: 'GET', path: '/api/admin/tag-types' })],
    [1, () => calls.push({ op: 'maintenance.get', method: 'GET', path: '/api/admin/maintenance' })],
    // Only ever switched off: Unleash keeps the mode up to a minute after a switch (D19), so switching
    // it on would refuse the reference's next writes, or not, at random.
    [1, () => calls.push({ op: 'maintenance.toggle', method: 'POST', path: '/api/admin/maintenance', body: random.pick<unknown>([
      { enabled: false }, { note: tag, enabled: 'false' }, { enabled: null }, {}, { enabled: 'yes' }, [],
    ]) })],
    [1, () => calls.push({ op: 'edge.validate', method: 'POST', path: '/edge/validate', body: random.pick<unknown>([
      { tokens: [] }, { tokens: [`*:development.${tag}-unknown`, 'user:nope'] }, {}, { tokens: 'x' }, { tokens: [1, null] },
    ]) })],
    [1, () => calls.push({ op: 'edge.issue-token', method: 'POST', path: '/edge/issue-token', body: random.pick<unknown>([
      { tokens: [{ environment: 'development', projects: ['*'] }] }, { tokens: [{ environment: 'development' }] }, {}, [],
    ]) })],
    [4, () => calls.push({ op: 'flag.tags.get', method: 'GET', path: `/api/admin/features/${anyFlag()}/tags` })],
    [5, () => {
      const flag = anyFlag();
      const type = random.chance(0.9) ? random.pick(tagTypes) : `${tag}-no-type`;
      const value = random.chance(0.92) ? tagValue() : 'a';
      calls.push({ op: 'flag.tags.add', method: 'POST', path: `/api/admin/features/${flag}/tags`, body: { type, value } });
      flags.find((f) => f.name === flag)?.tags.add(`${type}:${value}`);
    }],
    [3, () => {
      const flag = flags.length > 0 ? random.pick(flags) : undefined;
      const name = flag?.name ?? anyFlag();
      const added = Array.from({ length: random.int(0, 2) }, () => ({ type: random.pick(tagTypes), value: tagValue() }));
      const existing = flag ? [...flag.tags] : [];
      const removed = random.some(existing, random.int(0, 2)).map((text) => ({ type: text.split(':')[0]!, value: text.slice(text.indexOf(':') + 1) }));
      if (random.chance(0.3)) removed.push({ type: 'simple', value: 'never-added' });
      calls.push({ op: 'flag.tags.put', method: 'PUT', path: `/api/admin/features/${name}/tags`, body: { addedTags: added, removedTags: removed } });
      for (const t of added) flag?.tags.add(`${t.type}:${t.value}`);
      for (const t of removed) flag?.tags.delete(`${t.type}:${t.value}`);
    }],
    [2, () => {
      const flag = random.pick(flags);
      const text = flag.tags.size > 0 && random.chance(0.8) ? random.pick([...flag.tags]) : `simple:${tagValue()}`;
      const type = text.split(':')[0]!;
      const value = text.slice(type.length + 1);
      calls.push({ op: 'flag.tags.delete', method: 'DELETE', path: `/api/admin/features/${flag.name}/tags/${type}/${encodeURIComponent(value)}` });
      flag.tags.delete(text);
    }],
    [2, () => calls.push({ op: 'tags.of-type', method: 'GET', path: `/api/admin/tags/${random.chance(0.9) ? random.pick(tagTypes) : 'unknown-type'}` })],

    // A flag's own fields.
    [4, () => {
      const body: Record<string, unknown> = {};
      if (random.chance(0.7)) body.description = random.pick(['put description', '', null, 'ü']);
      if (random.chance(0.6)) body.type = random.chance(0.9) ? random.pick(FLAG_TYPES) : 'bogus';
      if (random.chance(0.4)) body.impressionData = random.chance(0.5);
      if (random.chance(0.3)) body.stale = random.chance(0.5);
      const name = anyFlag();
      if (random.chance(0.1)) body.name = random.chance(0.5) ? name : 'other-name';
      calls.push({ op: 'flag.put', method: 'PUT', path: `${FLAGS}/${name}`, body });
    }],
    [4, () => {
      const operations = Array.from({ length: random.int(1, 2) }, () => {
        switch (random.int(0, 5)) {
          case 0: return { op: 'replace', path: '/description', value: random.pick(['patched', '', 'ü']) };
          case 1: return { op: 'replace', path: '/type', value: random.pick(FLAG_TYPES) };
          case 2: return { op: 'replace', path: '/impressionData', value: random.chance(0.5) };
          case 3: return { op: 'replace', path: '/stale', value: random.chance(0.5) };
          case 4: return { op: 'add', path: '/description', value: 'added' };
          default: return random.pick([{ op: 'replace', path: '/type', value: 'bogus' }, { op: 'remove', path: '/nothing' }, { op: 'test', path: '/stale', value: true }]);
        }
      });
      // An unknown type goes to no flag: Unleash stores it where Vane refuses the patch (D9, tested
      // in test/features/flags/metadata.test.ts), and the flag then differs in every later answer
      // that lists it (seed 3: its stale mark, the feature search by type, the type counts).
      const bogus = operations.some((operation) => operation.op === 'replace' && operation.path === '/type' && operation.value === 'bogus');
      const target = anyFlag();
      calls.push({ op: 'flag.patch', method: 'PATCH', path: `${FLAGS}/${bogus ? `${tag}-missing-flag` : target}`, body: operations });
    }],
    [3, () => {
      const names = random.some(flags.map((flag) => flag.name), random.int(1, 3));
      if (random.chance(0.2)) names.push(`${tag}-missing-flag`);
      calls.push({ op: 'flag.stale', method: 'POST', path: `/api/admin/projects/${PROJECT}/stale`, body: { features: names, stale: random.chance(0.6) } });
    }],
    [3, () => {
      const name = random.pick([anyFlag(), `${tag}.new-${flagCounter}`, 'bad name!', '', 'a'.repeat(101)]);
      calls.push({ op: 'flag.validate', method: 'POST', path: '/api/admin/features/validate', body: { name } });
    }],
    [2, () => calls.push({ op: 'flag.get', method: 'GET', path: `${FLAGS}/${anyFlag()}` })],

    // Reads.
    [8, () => calls.push({ op: 'search.features', method: 'GET', path: `/api/admin/search/features?${searchQuery(random, tag, tagTypes, segments)}` })],
    [2, () => calls.push({ op: 'lifecycle.count', method: 'GET', path: '/api/admin/lifecycle/count' })],
    [2, () => calls.push({ op: 'flag-creators', method: 'GET', path: `/api/admin/flag-creators${random.chance(0.4) ? `?q=${random.pick(['admin', 'Admin', 'zzz', 'a'])}` : ''}` })],
    [2, () => calls.push({ op: 'project.flag-creators', method: 'GET', path: `/api/admin/projects/${random.chance(0.85) ? PROJECT : 'no-such-project'}/flag-creators` })],
    [1, () => calls.push({ op: 'feature-types', method: 'GET', path: '/api/admin/feature-types' })],
    [1, () => calls.push({ op: 'environments.project', method: 'GET', path: `/api/admin/environments/project/${random.chance(0.85) ? PROJECT : 'no-such-project'}` })],
    [2, () => calls.push({ op: 'flag.parent-variants', method: 'GET', path: `${FLAGS}/${anyFlag()}/parent-variants` })],
    [2, () => calls.push({ op: 'flag.parents', method: 'GET', path: `${FLAGS}/${anyFlag()}/parents` })],
    [2, () => calls.push({
      op: 'flag.link', method: 'POST', path: `${FLAGS}/${anyFlag()}/link`,
      body: random.pick<Record<string, unknown>>([
        { url: random.pick(['github.com/o/r?utm_source=x&b=2&a=1', 'HTTP://www.Example.com:80/a//b/', 'mailto:x@y.z', 'x.com/?q=a%2Fb&z']) },
        { url: 'docs.example.com/page#s', title: random.pick(['Docs', '', null]) }, { url: 'not a url' }, { title: 'no url' },
      ]),
    })],
    [2, () => calls.push({ op: 'flag.lifecycle', method: 'GET', path: `${FLAGS}/${anyFlag()}/lifecycle` })],
    [2, () => calls.push({
      op: 'flag.lifecycle-complete', method: 'POST', path: `${FLAGS}/${anyFlag()}/lifecycle/complete`,
      body: random.pick<Record<string, unknown>>([{ status: 'kept', statusValue: 'v1' }, { status: 'discarded' }, { status: 'bogus' }, {}]),
    })],
    [1, () => calls.push({ op: 'flag.lifecycle-uncomplete', method: 'POST', path: `${FLAGS}/${anyFlag()}/lifecycle/uncomplete` })],
    // Connecting answers 409/400/404 here (every environment stays connected: disconnecting would change what every other op sees).
    [1, () => calls.push({
      op: 'project.environment-add', method: 'POST', path: `/api/admin/projects/${random.chance(0.85) ? PROJECT : 'no-such-project'}/environments`,
      body: random.pick<Record<string, unknown>>([{ environment: random.pick(ENVIRONMENTS) }, { environment: 'nope' }, { environment: random.pick(ENVIRONMENTS), x: 1 }, {}]),
    })],
    [1, () => calls.push({
      op: 'project.default-strategy', method: 'POST', path: `/api/admin/projects/${PROJECT}/environments/${random.pick(ENVIRONMENTS)}/default-strategy`,
      body: random.pick<Record<string, unknown>>([
        { name: 'flexibleRollout', parameters: { rollout: String(random.int(0, 100)), stickiness: 'default', groupId: random.pick(['', 'g']) } },
        { name: 'flexibleRollout', title: 't', constraints: [{ contextName: 'userId', operator: 'IN', values: ['1'] }] },
        { name: 'default' },
      ]),
    })],
    [2, () => calls.push({ op: 'flag.environment', method: 'GET', path: `${FLAGS}/${anyFlag()}/environments/${random.chance(0.9) ? random.pick(ENVIRONMENTS) : 'nope'}` })],
    [3, () => {
      const flag = random.pick(flags);
      const environment = random.pick(ENVIRONMENTS);
      const list = flag.strategies[environment]!;
      const ids = random.some(list, random.int(0, list.length));
      const body: unknown[] = ids.map((ref) => ({ id: `$ref:${ref}`, sortOrder: random.int(0, 9) }));
      if (random.chance(0.1)) body.push(random.pick([{ id: 'no-such-strategy', sortOrder: 1 }, { id: 'x' }, { id: 'x', sortOrder: 'first' }]));
      calls.push({ op: 'strategy.sort-order', method: 'POST', path: `${FLAGS}/${flag.name}/environments/${environment}/strategies/set-sort-order`, body });
    }],
    [3, () => {
      const flag = random.pick(flags);
      const environment = random.pick(ENVIRONMENTS);
      const list = flag.strategies[environment]!;
      if (list.length === 0) return;
      const operations = Array.from({ length: random.int(1, 2) }, () => random.pick<Record<string, unknown>>([
        { op: 'replace', path: '/title', value: random.pick(['patched', 'Rollout']) },
        { op: 'add', path: '/parameters/rollout', value: String(random.pick([0, 50, 100])) },
        { op: 'replace', path: '/disabled', value: random.chance(0.5) },
        { op: 'add', path: '/constraints/-', value: constraintOn(anyField()) },
        { op: 'remove', path: '/title' },
        { op: 'replace', path: '/sortOrder', value: 9 },
        { op: 'replace', path: '/name', value: random.pick(['default', 'no-such-type']) },
        { op: 'replace', path: '/disabled', value: 'yes' },
      ]));
      calls.push({ op: 'strategy.patch', method: 'PATCH', path: `${FLAGS}/${flag.name}/environments/${random.pick(ENVIRONMENTS)}/strategies/{ref:${random.pick(list)}}`, body: operations });
    }],
    [3, () => calls.push({ op: 'project.status', method: 'GET', path: `/api/admin/projects/${PROJECT}/status` })],
    [1, () => calls.push({ op: 'instance.stats', method: 'GET', path: '/api/admin/instance-admin/statistics' })],
    [1, () => calls.push({ op: 'instance.stats.csv', method: 'GET', path: '/api/admin/instance-admin/statistics/csv' })],

    // API tokens.
    [2, () => {
      const name = `${tag}-token-${tokens.length}`;
      const ref = `${name}-secret`;
      const body: Record<string, unknown> = { tokenName: name, type: random.pick(['client', 'frontend', 'Backend']) };
      if (random.chance(0.5)) body.environment = random.pick([...ENVIRONMENTS, ...(random.chance(0.2) ? ['*', 'nope'] : [])]);
      if (random.chance(0.2)) body.expiresAt = random.pick(['2031-01-01T00:00:00.000Z', 'nope']);
      if (random.chance(0.1)) body.type = random.pick(['admin', 'bogus']);
      if (random.chance(0.1)) body.projects = ['ignored'];
      const project = random.chance(0.9) ? PROJECT : 'no-such-project';
      calls.push({ op: 'project.tokens.create', method: 'POST', path: `/api/admin/projects/${project}/api-tokens`, body, capture: ref });
      tokens.push({ name, ref });
    }],
    [1, () => calls.push({ op: 'token.by-name', method: 'GET', path: `/api/admin/api-tokens/${tokens.length > 0 && random.chance(0.8) ? random.pick(tokens).name : `${tag}-no-token`}` })],
    [2, () => {
      if (tokens.length === 0) return;
      const body = random.chance(0.85) ? { expiresAt: random.pick(['2031-01-01T00:00:00.000Z', '2032-06-01T12:00:00.000Z']) } : random.pick([{}, { expiresAt: 'nope' }, { expiresAt: '2031-01-01' }]);
      calls.push({ op: 'token.update', method: 'PUT', path: `/api/admin/api-tokens/{ref:${random.pick(tokens).ref}}`, body });
    }],
    [1, () => {
      const secret = tokens.length > 0 && random.chance(0.85) ? `{ref:${random.pick(tokens).ref}}` : 'unknown-secret';
      calls.push({ op: 'project.tokens.delete', method: 'DELETE', path: `/api/admin/projects/${random.chance(0.9) ? PROJECT : 'no-such-project'}/api-tokens/${secret}` });
    }],

    [1, () => calls.push({ op: 'project.insights', method: 'GET', path: `/api/admin/projects/${random.chance(0.9) ? PROJECT : 'no-such-project'}/insights` })],
    [1, () => calls.push({ op: 'project.health-report', method: 'GET', path: `/api/admin/projects/${random.chance(0.9) ? PROJECT : 'no-such-project'}/health-report` })],
    [2, () => calls.push({ op: 'project.dora', method: 'GET', path: `/api/admin/projects/${random.chance(0.9) ? PROJECT : 'no-such-project'}/dora` })],

    // Users (the admin's user pages and password links, docs/rules.md §11). E-mails carry the run's tag.
    [3, () => {
      const ref = `user-${tag}-${people.length}`;
      const email = `${tag}.u${people.length}@example.com`;
      const body: Record<string, unknown> = random.chance(0.8) ? { email: random.chance(0.2) ? email.toUpperCase() : email } : { username: `${tag}-u${people.length}` };
      body.rootRole = random.pick<unknown>([1, 2, 3, 'Admin', 'Editor', 'Viewer', '3', 9, 'Owner']);
      if (random.chance(0.6)) body.name = random.pick([`Person ${people.length}`, '', 'ü name']);
      if (random.chance(0.3)) body.password = random.pick(['Str0ng!Passw0rd', `Pass-${tag}-9x`]);
      if (random.chance(0.3)) body.sendEmail = random.chance(0.5);
      if (random.chance(0.1)) Object.assign(body, random.pick<Record<string, unknown>>([{ email: 'not-an-email' }, { email: `${tag}@x` }, { extra: 1 }]));
      if (random.chance(0.03)) delete body.rootRole;
      userCall({ op: 'user.create', method: 'POST', path: USERS, body, capture: ref });
      people.push({ ref, email: email.toLowerCase(), deleted: false, linked: false });
    }],
    [1, () => {
      const taken = people.length > 0 ? random.pick(people).email : `${tag}.none@example.com`;
      // Captured: an e-mail whose create was refused is free, and this one then makes a user.
      const ref = `user-${tag}-again-${people.length}`;
      userCall({ op: 'user.create-invalid', method: 'POST', path: USERS, body: random.pick<unknown>([{ rootRole: 3 }, { email: taken, rootRole: 3 }, { email: '', username: '', rootRole: 3 }]), capture: ref });
    }],
    [2, () => userCall({ op: 'user.get', method: 'GET', path: `${USERS}/${anyPerson()}` })],
    [3, () => {
      const body: Record<string, unknown> = {};
      if (random.chance(0.5)) body.name = random.pick(['Renamed', '', 'ü']);
      if (random.chance(0.3)) body.email = random.pick([`${tag}.moved${people.length}@example.com`, 'bad', '']);
      if (random.chance(0.4)) body.rootRole = random.pick<unknown>([1, 2, 3, 'Editor', 9]);
      userCall({ op: 'user.update', method: 'PUT', path: `${USERS}/${anyPerson()}`, body });
    }],
    [1, () => {
      const live = people.filter((p) => !p.deleted);
      const person = live.length > 0 && random.chance(0.9) ? random.pick(live) : undefined;
      userCall({ op: 'user.delete', method: 'DELETE', path: `${USERS}/${person ? `{ref:${person.ref}}` : '999999'}` });
      if (person) person.deleted = true;
    }],
    [2, () => userCall({ op: 'user.search', method: 'GET', path: `${USERS}/search?q=${encodeURIComponent(random.pick([tag, `${tag}.u`, 'a', `%${tag}`, 'Person']))}` })],
    [2, () => userCall({ op: 'user.list', method: 'GET', path: USERS })],
    [1, () => userCall({ op: 'user.access', method: 'GET', path: `${USERS}/access` })],
    [1, () => userCall({ op: 'user.admin-count', method: 'GET', path: `${USERS}/admin-count` })],
    [1, () => userCall({ op: 'user.inactive', method: 'GET', path: `${USERS}/inactive` })],
    [2, () => userCall({ op: 'user.validate-password', method: 'POST', path: random.pick([`${USERS}/validate-password`, '/auth/reset/validate-password']), body: { password: password() } })],
    [2, () => userCall({ op: 'user.change-password', method: 'POST', path: `${USERS}/${anyPerson()}/change-password`, body: { password: password() } })],
    [1, () => {
      // One link per person: a second within a minute is a 429 on both sides, which the tester would wait out.
      const fresh = people.filter((p) => !p.deleted && !p.linked);
      const person = fresh.length > 0 ? random.pick(fresh) : undefined;
      userCall({ op: 'user.reset-password', method: 'POST', path: `${USERS}/reset-password`, body: { id: person?.email ?? `${tag}.none@example.com` } });
      if (person) person.linked = true;
    }],
    [1, () => userCall({ op: 'user.reset-validate', method: 'GET', path: `/auth/reset/validate?token=${random.pick(['nope', ''])}` })],
    [1, () => userCall({ op: 'user.reset-with-token', method: 'POST', path: '/auth/reset/password', body: { token: 'nope', password: password() } })],
    [1, () => userCall({ op: 'user.inactive-delete', method: 'POST', path: `${USERS}/inactive/delete`, body: random.pick<unknown>([{ ids: [] }, { ids: [999999] }, {}]) })],
    [1, () => userCall({ op: 'user.scim-delete', method: 'DELETE', path: `${USERS}/scim-users` })],

    // Segments' strategies.
    [2, () => calls.push({ op: 'segment.strategies', method: 'GET', path: `/api/admin/segments/${segments.length > 0 && random.chance(0.85) ? `{ref:${random.pick(segments)}}` : '999999'}/strategies` })],
    [2, () => {
      const refs = flags.flatMap((flag) => ENVIRONMENTS.flatMap((environment) => flag.strategies[environment] ?? []));
      const ref = refs.length > 0 && random.chance(0.9) ? `{ref:${random.pick(refs)}}` : 'no-such-strategy';
      calls.push({ op: 'strategy.segments', method: 'GET', path: `/api/admin/segments/strategies/${ref}` });
    }],
    [3, () => {
      const owners = flags.flatMap((flag) => ENVIRONMENTS.flatMap((environment) => (flag.strategies[environment] ?? []).map((ref) => ({ ref, environment }))));
      if (owners.length === 0 || segments.length === 0) return;
      const { ref, environment } = random.pick(owners);
      // Only segments and strategies that exist: Unleash answers the others with a foreign-key 500 (D10).
      const segmentIds = random.chance(0.1) ? random.pick([[-1], 'x', Array(6).fill(`$ref:${segments[0]}`)])
        : random.some(segments, random.int(0, Math.min(3, segments.length))).map((s) => `$ref:${s}`);
      const body: Record<string, unknown> = { projectId: PROJECT, strategyId: `$ref:${ref}`, environmentId: environment, segmentIds };
      if (random.chance(0.1)) delete body[random.pick(['projectId', 'environmentId', 'segmentIds'])];
      calls.push({ op: 'strategy.segments.set', method: 'POST', path: '/api/admin/segments/strategies', body });
    }],
  ];
  const total = ops.reduce((sum, [weight]) => sum + weight, 0);
  while (calls.length < count + 9) {
    // Most calls are about a flag: a sequence that deleted every one (seed 18) makes another first.
    if (flags.length === 0) createFlag();
    let roll = random.next() * total;
    for (const [weight, op] of ops) {
      roll -= weight;
      if (roll < 0) {
        op();
        break;
      }
    }
  }
  return calls;
}

/** A random query string for the feature search: a few filters, sorting and paging. */
function searchQuery(random: Random, tag: string, tagTypes: string[], segments: string[]): string {
  const query = new URLSearchParams();
  if (random.chance(0.3)) query.set('query', random.pick([tag, 'flag-1', 'description', 'ü', 'nothing-like-it']));
  if (random.chance(0.2)) query.set('type', random.pick(['IS:release', 'IS_NOT:release', 'IS_ANY_OF:experiment,operational', 'IS_NONE_OF:kill-switch']));
  if (random.chance(0.2)) query.set('state', random.pick(['IS:stale', 'IS:active', 'IS_NOT:stale']));
  if (random.chance(0.2)) query.set('tag', `${random.pick(['INCLUDE', 'DO_NOT_INCLUDE', 'INCLUDE_ANY_OF'])}:${random.pick(tagTypes)}:${random.pick(['beta', 'team-a', 'q3'])}`);
  if (random.chance(0.15)) query.set('lifecycle', random.pick(['IS:initial', 'IS:pre-live', 'IS_ANY_OF:initial,live', 'IS:archived']));
  if (random.chance(0.1)) query.set('archived', random.pick(['IS:true', 'IS:false']));
  if (random.chance(0.1) && segments.length > 0) query.set('segment', `INCLUDE:${random.pick(segments)}`);
  if (random.chance(0.1)) query.set('createdBy', 'IS:-42');
  if (random.chance(0.15)) query.append('status', random.pick(['development:enabled', 'production:disabled']));
  if (random.chance(0.1)) query.set('project', random.pick([`IS:${PROJECT}`, 'IS_NOT:default']));
  if (random.chance(0.4)) query.set('sortBy', random.pick(['name', 'createdAt', 'type', 'stale', 'environment:development']));
  if (random.chance(0.3)) query.set('sortOrder', random.pick(['asc', 'desc']));
  if (random.chance(0.3)) query.set('limit', random.pick(['5', '50', '0', 'x']));
  if (random.chance(0.2)) query.set('offset', random.pick(['0', '3', '-1']));
  // Without a sort key, ties on createdAt (flags created within one millisecond) would order at random.
  if (!query.has('sortBy')) query.set('sortBy', 'name');
  return query.toString();
}

// ---------------------------------------------------------------------------------------------
// Comparing.

type Side = 'vane' | 'peer';

/** One difference of one call: where (`<status>`, `body…`, `events…`) and what. */
export interface AdminFinding {
  index: number;
  call: AdminCall;
  difference: Difference;
  /** The reason from ACCEPTED, when the difference is a deliberate one. */
  accepted?: string;
  status: Record<Side, number>;
  body: Record<Side, string>;
}

/**
 * Deliberate differences, each naming why (docs and code comments say so). A rule matches a call's
 * op and a difference's path; `when` narrows it further.
 */
export const ACCEPTED: ReadonlyArray<{ why: string; op: RegExp; path: RegExp; when?: (finding: AdminFinding) => boolean }> = [
  {
    why: 'addon configurations are numbered by each server\'s own serial (the shared reference holds other runs\' configurations)',
    op: /^addon\./, path: /^(body\.id|body\.integrationEvents\[\d+\]\.integrationId|events\[\d+\]\.(data|preData)\.id)$/,
  },
  {
    why: 'the shared reference lists other runs\' addon configurations, and in its table\'s storage order (rules §11.1)',
    op: /^addon\.list$/, path: /^body\.addons/,
  },
  {
    why: 'D20: where Unleash\'s detail repeats its unnamed validation message, Vane\'s names the reason',
    op: /^addon\.(create-invalid|update)$/, path: /^body\.details\[0\]\.message$/,
    when: (f) => String(f.difference.expected).startsWith('A validation error occurred'),
  },
  {
    why: 'D16: the shared reference set its frontend origins before any run: its first change is setting-updated with the origins before, where a database that never had them records setting-created',
    op: /^ui\.cors$/, path: /^events\[0\]\.(type|preData)$/, when: (f) => f.difference.actual === 'setting-created' || f.difference.actual === null,
  },
  {
    why: 'D16: the overview of an application on a server without any application is 404 (Unleash 8.2 too); the shared reference always holds other runs\' applications',
    op: /^application\.overview$/, path: /./, when: (f) => f.status.vane === 404 && f.status.peer === 200,
  },
  {
    why: 'D1 (docs/rules.md §0): every error body starts with a fresh `id`, where Unleash often omits it',
    op: /./, path: /^body\.id$/, when: (f) => f.status.peer >= 400 && f.status.vane >= 400 && f.difference.what === 'extra',
  },
  {
    why: 'D1: Edge\'s signature refusals carry a name, message and details (Unleash answers only `{error}`, which Vane keeps)',
    op: /^edge\.issue-token$/, path: /^body\.(name|message|details)$/, when: (f) => f.status.peer === 401 && f.difference.what === 'extra',
  },
  {
    why: 'D1: a 400 for invalid data is named ValidationError (Unleash: BadDataError)',
    op: /./, path: /^body\.name$/, when: (f) => f.difference.expected === 'BadDataError' && f.difference.actual === 'ValidationError',
  },
  {
    why: 'D6: flag creation answers with the whole flag (its first eight keys are Unleash\'s)',
    op: /^flag\.create(-invalid)?$/, path: /^body\.(environments|createdBy|dependencies|children|lifecycle|links|collaborators)$/,
    when: (f) => f.status.peer === 201 && f.status.vane === 201 && f.difference.what === 'extra',
  },
  {
    why: 'D8: the lifecycle summary\'s averageDays are null (Vane keeps a flag\'s current stage, not its history)',
    op: /^project\.status$/, path: /^body\.lifecycleSummary\.\w+\.averageDays$/, when: (f) => f.difference.actual === null,
  },
  {
    why: 'D9: a PATCHed unknown flag type is refused (400), where Unleash stores it',
    op: /^flag\.patch$/, path: /./, when: (f) => JSON.stringify(f.call.body).includes('"value":"bogus"') && f.status.vane === 400,
  },
  {
    why: 'API tokens: Vane keeps only a secret\'s hash, so it lists a masked secret (rules §1.4 S11)',
    op: /^token\./, path: /^body\.tokens\[\d+\]\.secret$/,
  },
  {
    why: 'A health report lists the flags in Unleash\'s database row order (no ORDER BY; a row moves when it is updated); Vane lists them by creation',
    op: /^project\.health-report$/, path: /^body\.features\[\d+\]/,
  },
  {
    why: 'D8: a health report\'s health and window counts are current (Unleash stores them from a scheduled job)',
    op: /^project\.(health-report|insights)$/, path: /^body\.(health|technicalDebt|updatedAt|stats\.\w+|(health|technicalDebt)\.rating)$/,
  },
  {
    why: 'The strategy id echoed by POST /api/admin/segments/strategies is each server\'s own (ids are compared nowhere else either)',
    op: /^strategy\.segments\.set$/, path: /^body\.strategyId$/,
  },
  {
    why: 'API tokens: a new secret\'s random part differs on each server (its scope before the dot is compared)',
    op: /^project\.tokens\.create$/, path: /^body\.secret$/,
    when: (f) => String(f.difference.expected).split('.')[0] === String(f.difference.actual).split('.')[0],
  },
  {
    why: 'API tokens: Vane does not record when a token was last used, so its `seenAt` is null (rules §1.4 S11)',
    op: /^token\.|^project\.tokens\./, path: /(^body\.tokens\[\d+\]|^events\[\d+\]\.(data|preData))\.seenAt$/, when: (f) => f.difference.actual === null,
  },
  {
    why: 'A flag\'s possible parents are every flag of its project: on the shared reference, project default holds other runs\' flags too (test/fixtures/flag-environments compares the list of one run\'s names)',
    op: /^flag\.parents$/, path: /^body/, when: (f) => f.status.peer === 200 && f.status.vane === 200,
  },
  {
    why: 'Instance statistics count the whole installation, and the shared reference holds every other run\'s users, flags, tokens, applications and events: their values are compared by type only (keys, their order and types still are; test/features/instance-stats checks the counts)',
    op: /^instance\.stats$/, path: /^body\./,
    when: (f) => (f.difference.what === 'value' && typeof f.difference.expected === typeof f.difference.actual)
      || (/^body\.apiTokens\.\w+$/.test(f.difference.path) && (f.difference.what === 'missing' || f.difference.what === 'extra')),
  },
  {
    why: 'The instance statistics\' CSV: the same header row; its values row counts the whole installation, as the JSON does',
    op: /^instance\.stats\.csv$/, path: /^body$/,
    when: (f) => String(f.difference.expected).split('\n')[0] === String(f.difference.actual).split('\n')[0],
  },
  {
    why: 'D10: changing the password of a user id that never existed is a 404, where Unleash fails on a foreign key (500)',
    op: /^user\.change-password$/, path: /./, when: (f) => f.status.vane === 404 && f.status.peer === 500,
  },
  {
    why: 'The admin count covers the whole installation (the shared reference holds other runs\' admins): compared by type',
    op: /^user\.admin-count$/, path: /^body\.\w+$/, when: (f) => f.difference.what === 'value' && typeof f.difference.expected === typeof f.difference.actual,
  },
  {
    why: 'D9, afterwards: the flag type "bogus" Unleash stored from a PATCH shows in its later answers and events',
    op: /./, path: /(^|\.)type$/, when: (f) => f.difference.expected === 'bogus',
  },
];

/**
 * Ops whose events are compared flag by flag, each event's tags as a set (docs/rules.md D13):
 * Unleash records a bulk's flags in its table's row order (the order of the rows' last writes) or
 * as its concurrent per-flag writes finish (on/off, tag creation), and a flag's tags in their rows'
 * order (seed 8232: [tt0:ü-tag, simple:beta] where beta came first; seed 8233 the order added); Vane
 * in creation or name order, tags in the order added. One flag's own events keep their order.
 */
const UNORDERED_EVENTS = new Set(['flags.bulk-archive', 'flags.bulk-delete', 'flags.bulk-toggle', 'flags.bulk-tags', 'flag.stale']);

/**
 * Ops whose answers list each flag's tags in Unleash's join order (its feature search aggregates
 * the rows of a join without ordering them; seed 3 gave [tt0:beta, simple:team-a, tt4:team-b,
 * tt3:q3] for tags added q3, team-b, team-a, beta): each flag's tags compared as a set (D13).
 */
const UNORDERED_TAGS = new Set(['search.features']);

/** A list compared as a set: its items in the order of their JSON. */
function asSet(items: readonly unknown[]): unknown[] {
  return items.map((item) => JSON.stringify(item)).sort().map((json) => JSON.parse(json) as unknown);
}

function tagsAsSets(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(tagsAsSets);
  if (body === null || typeof body !== 'object') return body;
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, k === 'tags' && Array.isArray(v) ? asSet(v) : tagsAsSets(v)]));
}

function byFlag(events: EventView[]): EventView[] {
  const key = (event: EventView) => `${String(event.featureName ?? '')}\u0000${event.featureName ? '' : JSON.stringify(event.data)}`;
  const tagSet = (event: EventView) => (Array.isArray(event.tags) ? { ...event, tags: asSet(event.tags) } : event);
  const byKey = (a: { event: EventView; i: number }, b: { event: EventView; i: number }) =>
    (key(a.event) < key(b.event) ? -1 : key(a.event) > key(b.event) ? 1 : a.i - b.i);
  return events.map((event, i) => ({ event, i })).sort(byKey).map(({ event }) => tagSet(event));
}

/**
 * Events a timed job records on both servers (`application-created`: every 5 minutes, the first
 * within 30 s of the start, src/features/metrics/announcer.ts), so beside whichever call runs then
 * on each: compared by test/features/metrics/announcer.test.ts, not call by call.
 */
const notTimed = (event: EventView) => event.type !== 'application-created';

/**
 * Ops after which the reference updates a flag's lifecycle stage asynchronously (an event handler):
 * the tester waits this long before the next call, so that its reads do not race the update.
 */
const LIFECYCLE_SETTLE_MS = 1500;
const SETTLING_OPS = new Set(['flag.create', 'flag.archive', 'flag.revive', 'flags.bulk-archive', 'flags.bulk-revive']);

/** A call answered 429 (the reference rate-limits the feature search: 15 a minute) is sent again. */
async function sendPatiently(base: string, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  for (let attempt = 0; ; attempt++) {
    const answer = await send(base, token, method, path, body);
    if (answer.status !== 429 || attempt >= 40) return answer;
    await sleep(3000);
  }
}

/**
 * A users answer made comparable across a shared reference: only this run's users (an e-mail or
 * username carrying `tag`) in its lists, ordered by e-mail (Unleash lists its row order, D21); the
 * ids of the users the run captured as `<ref:NAME>` (normaliseAdmin then makes every string id
 * `<id>`, so a user id differing from the other side's is a difference only when one side's user
 * was not created); a link's server address as `<base>`.
 */
function ofThisRun(value: unknown, tag: string, ids: ReadonlyMap<string, unknown>): unknown {
  const names = new Map([...ids].filter(([, id]) => typeof id === 'number').map(([name, id]) => [id as number, name]));
  const mine = (item: unknown) => {
    const user = item as { email?: unknown; username?: unknown };
    return [user.email, user.username].some((field) => typeof field === 'string' && field.includes(tag));
  };
  const order = (item: unknown) => String((item as { email?: unknown }).email ?? (item as { username?: unknown }).username ?? '');
  const users = (list: unknown[]) => list.filter(mine).sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
  const walk = (inner: unknown, key: string): unknown => {
    if (Array.isArray(inner)) return (key === 'users' || key === '' ? users(inner) : inner).map((item) => walk(item, ''));
    if (inner !== null && typeof inner === 'object') {
      // A user (or a user event's data) names its id; a role (`type`) keeps its own.
      const isUser = !('type' in inner) && ['accountType', 'email', 'username', 'rootRole'].some((k) => k in inner);
      return Object.fromEntries(Object.entries(inner).map(([k, v]) => [k, isUser && k === 'id' && typeof v === 'number' && names.has(v) ? `<ref:${names.get(v)}>` : walk(v, k)]));
    }
    if (typeof inner === 'string' && /^[a-z]+:\/\/[^/]+\/(new-user|reset-password)\?token=/.test(inner)) return inner.replace(/^[a-z]+:\/\/[^/]+/, '<base>');
    return inner;
  };
  return walk(value, '');
}

/** Keys whose values are times: replaced by `<time>` (each server stamps its own). */
const TIME_KEY = /(At|Date|^date|^time)$/;

/** An answer made comparable: ids, times and the side's admin-token name replaced by placeholders. */
export function normaliseAdmin(value: unknown, actor: string | undefined): unknown {
  const walk = (inner: unknown, key: string): unknown => {
    if (Array.isArray(inner)) return inner.map((item) => walk(item, key));
    if (inner !== null && typeof inner === 'object') {
      return Object.fromEntries(Object.entries(inner).map(([k, v]) => [k, walk(v, k)]));
    }
    if (typeof inner === 'string') {
      if (TIME_KEY.test(key) && !Number.isNaN(Date.parse(inner))) return '<time>';
      if (actor !== undefined && inner === actor) return '<actor>';
      // A welcome or reset link's token is random on each server.
      if (inner.includes('token=')) return inner.replace(/([?&]token=)[^&#]+/g, '$1<token>');
    }
    return inner;
  };
  return walk(normaliseIds(value), '');
}

export interface EventView { id: number; createdBy?: unknown; [key: string]: unknown }

/** The compared part of an event. */
export function eventView(event: EventView, actor: string | undefined): unknown {
  const { type, featureName, project, environment, data, preData, tags } = event;
  return normaliseAdmin({ type, featureName, project, environment, data, preData, tags }, actor);
}

function parse(text: string): unknown {
  try {
    return text === '' ? '' : JSON.parse(text);
  } catch {
    return text;
  }
}

export interface AdminRunOptions {
  seed: number;
  calls?: number;
  base: Record<Side, string>;
  adminToken: Record<Side, string>;
}

export interface AdminRunResult {
  calls: number;
  /** Every call with both statuses, in order (for reading a finding in its context). */
  trace: string[];
  findings: AdminFinding[];
  unexplained: AdminFinding[];
}

/** Sends the sequence to both servers, one call at a time on each, and compares. */
export async function compareAdminSequence(options: AdminRunOptions): Promise<AdminRunResult> {
  const calls = generateAdminSequence(options.seed, options.calls);
  const ids: Record<Side, Map<string, unknown>> = { vane: new Map(), peer: new Map() };
  const actor: Record<Side, string | undefined> = { vane: undefined, peer: undefined };
  const lastEvent: Record<Side, number> = { vane: 0, peer: 0 };
  const sides: Side[] = ['vane', 'peer'];

  const newEvents = async (side: Side): Promise<EventView[]> => {
    const { status, text } = await send(options.base[side], options.adminToken[side], 'GET', '/api/admin/search/events?limit=50');
    if (status !== 200) throw new Error(`${side}: reading the events answered ${status} ${text.slice(0, 200)}`);
    const events = (JSON.parse(text) as { events: EventView[] }).events.filter((event) => event.id > lastEvent[side]).reverse();
    for (const event of events) lastEvent[side] = Math.max(lastEvent[side], event.id);
    return events;
  };
  await Promise.all(sides.map((side) => newEvents(side)));

  const findings: AdminFinding[] = [];
  const trace: string[] = [];
  for (const [index, call] of calls.entries()) {
    const answers = await Promise.all(sides.map(async (side) => {
      const path = call.path.replace(/\{ref:([^}]+)\}/g, (_m, name: string) => String(ids[side].get(name) ?? name));
      const body = call.body === undefined ? undefined : resolveRefs(call.body, ids[side]);
      const answer = await sendPatiently(options.base[side], options.adminToken[side], call.method, path, body);
      const events = await newEvents(side);
      if (actor[side] === undefined) {
        const made = events.find((event) => typeof event.createdBy === 'string');
        if (made) actor[side] = made.createdBy as string;
      }
      const json = parse(answer.text);
      if (call.capture !== undefined && answer.status < 300 && json !== null && typeof json === 'object' && ('id' in json || 'secret' in json)) {
        // An API token has no id: its secret names it in later paths.
        ids[side].set(call.capture, 'id' in json ? json.id : encodeURIComponent(String((json).secret)));
      }
      return { ...answer, json, events };
    }));
    if (SETTLING_OPS.has(call.op)) await sleep(LIFECYCLE_SETTLE_MS);
    const [vane, peer] = answers as [typeof answers[0], typeof answers[0]];
    trace.push(`#${index} peer ${peer.status} vane ${vane.status} ${call.op} ${call.method} ${call.path} ${JSON.stringify(call.body ?? null).slice(0, 160)}`);
    const found: Difference[] = [];
    if (vane.status !== peer.status) found.push({ path: '<status>', what: 'value', expected: peer.status, actual: vane.status });
    const people = (side: Side, value: unknown) => (call.usersOf === undefined ? value : ofThisRun(value, call.usersOf, ids[side]));
    const body = (side: Side, value: unknown) => {
      const normalised = normaliseAdmin(people(side, value), actor[side]);
      return UNORDERED_TAGS.has(call.op) ? tagsAsSets(normalised) : normalised;
    };
    found.push(...differences(body('peer', peer.json), body('vane', vane.json), 12, 'body'));
    const inOrder = UNORDERED_EVENTS.has(call.op) ? byFlag : (events: EventView[]) => events;
    const viewed = (side: Side, events: EventView[]) => inOrder(events.filter(notTimed)).map((e) => eventView(people(side, e) as EventView, actor[side]));
    found.push(...differences(viewed('peer', peer.events), viewed('vane', vane.events), 12, 'events'));
    for (const difference of found) {
      const finding: AdminFinding = {
        index, call, difference, status: { vane: vane.status, peer: peer.status }, body: { vane: vane.text.slice(0, 600), peer: peer.text.slice(0, 600) },
      };
      const rule = ACCEPTED.find((r) => r.op.test(call.op) && r.path.test(difference.path) && (r.when?.(finding) ?? true));
      if (rule) finding.accepted = rule.why;
      findings.push(finding);
    }
  }
  return { calls: calls.length, trace, findings, unexplained: findings.filter((finding) => finding.accepted === undefined) };
}

/** Prints the totals, the accepted differences by reason and every unexplained difference. */
export function printAdminResult(seed: number, result: AdminRunResult): void {
  console.log(`seed ${seed}: admin sequence, ${result.calls} calls, ${result.findings.length} differences (${result.unexplained.length} unexplained, ${result.findings.length - result.unexplained.length} accepted)`);
  const accepted = new Map<string, number>();
  for (const finding of result.findings) if (finding.accepted) accepted.set(finding.accepted, (accepted.get(finding.accepted) ?? 0) + 1);
  for (const [why, count] of accepted) console.log(`  accepted ${String(count).padStart(4)}: ${why}`);
  for (const finding of result.unexplained) {
    const { index, call, difference: d } = finding;
    console.log(`  #${index} ${call.op} ${call.method} ${call.path} ${JSON.stringify(call.body ?? null).slice(0, 200)}`);
    console.log(`     ${d.path} ${d.what}: peer ${JSON.stringify(d.expected)?.slice(0, 300)} vane ${JSON.stringify(d.actual)?.slice(0, 300)}`);
    if (d.path === '<status>') console.log(`     peer body ${finding.body.peer.slice(0, 300)}\n     vane body ${finding.body.vane.slice(0, 300)}`);
  }
}
