/**
 * Differential tester, part 7: the surfaces Unleash does not have, held to Vane's own answers on the
 * configuration run.ts applied (no reference server needed), context by context:
 * - `batch`: `POST /api/admin/playground/batch` against `POST /api/admin/playground/advanced` for each
 *   playground request of contexts.ts `generateCases`: the batch is given the contexts the advanced
 *   playground evaluated (its comma expansion) and, when there is one, the request's own context as
 *   given; every (context, environment, flag) `enabled` and variant name, and the flag order;
 * - `impact`: `POST /api/admin/playground/change-request/:id/impact` — NDJSON (one line per changed
 *   context and flag) and JSON (counts and examples per flag) — against the advanced playground
 *   (before) and the preview `POST /api/admin/playground/change-request/:id` (after) of each
 *   context, for change requests of random changes;
 * - `ofrep-bulk`, `ofrep-single`: `POST /ofrep/v1/evaluate/flags` and `…/flags/{key}` against the
 *   frontend API's `/api/frontend/all` for the same token and the context mapped by docs/rules.md
 *   §10 (ofrep.ts), for contexts.ts `generateSdkContexts` in both environments.
 * In `compareAnswers` the `peer` side is the reference answer (advanced playground, preview,
 * frontend API) and `vane` the surface under test; random answers are set apart as on the SDK surfaces.
 */
import {
  environmentVariants, generateConstraint, Random, resolveRefs, strategyBody, type AdminRequest, type FlagPlan, type SegmentPlan,
} from './config.js';
import { generateCases, generateSdkContexts } from './contexts.js';
import { expectedEvaluation, mappedContext, ofrepContext, sameEvaluation, type ClientFeature, type Toggle } from './ofrep.js';
import { compareAnswers, createToken, send, Tally, type Answers } from './surfaces.js';

export const VANE_SURFACES = ['batch', 'impact', 'ofrep-bulk', 'ofrep-single'] as const;
export type VaneSurface = (typeof VANE_SURFACES)[number];

export interface VaneRunOptions {
  seed: number;
  contexts: number;
  base: string;
  adminToken: string;
  /** The admin requests run.ts applied (config.ts `generateConfiguration`). */
  configuration: readonly AdminRequest[];
  surfaces: readonly VaneSurface[];
  /** Flags asked one by one per OFREP question (a sample; the bulk answer covers them all). */
  singleFlags: number;
}

const ENVIRONMENTS = ['development', 'production'] as const;
interface Decision { enabled: boolean; variant: string | null }
const ABSENT: Decision = { enabled: false, variant: null };
interface PlaygroundEntry { isEnabled: boolean; variant: { name: string }; context: Record<string, unknown> }
interface PlaygroundBody { features: Array<{ name: string; environments: Record<string, PlaygroundEntry[]> }> }

const failed = (what: string, status: number, text: string): Answers => new Map([['<status>', `${what} ${status} ${text.slice(0, 300)}`]]);
const decision = (entry: PlaygroundEntry): Decision => ({ enabled: entry.isEnabled, variant: entry.variant.name });

export function parseVaneSurfaces(wanted: readonly string[]): VaneSurface[] {
  return wanted.filter((s): s is VaneSurface => (VANE_SURFACES as readonly string[]).includes(s));
}

export async function compareVaneSurfaces(options: VaneRunOptions): Promise<Tally> {
  const tally = new Tally(options.surfaces);
  const projects = ['default', ...options.configuration.filter((r) => r.path === '/api/admin/projects').map((r) => (r.body as { id: string }).id)];
  const cases = generateCases(options.seed, options.contexts, projects);
  const wants = (surface: VaneSurface) => options.surfaces.includes(surface);
  if (wants('batch')) {
    for (const [index, playgroundCase] of cases.entries()) {
      const { context } = playgroundCase.advanced;
      tally.add({ case: index, environment: playgroundCase.advanced.environments.join(','), surface: 'batch', context }, await compareBatch(options, playgroundCase.advanced));
    }
  }
  if (wants('impact')) {
    const changeRequests = await randomChangeRequests(options, projects);
    for (const line of changeRequests.log) console.log(`  impact: ${line}`);
    for (const [index, playgroundCase] of cases.entries()) {
      const cr = changeRequests.ids[index % changeRequests.ids.length]!;
      const { context } = playgroundCase.advanced;
      tally.add({ case: index, environment: `${cr.environment} #${cr.id}`, surface: 'impact', context }, await compareImpact(options, cr, context));
    }
  }
  if (wants('ofrep-bulk') || wants('ofrep-single')) await compareOfrep(options, tally);
  return tally;
}

// --- batch -----------------------------------------------------------------------------------

type AdvancedRequest = { environments: string[]; projects?: string[] | '*'; context: Record<string, unknown> };

async function compareBatch(options: VaneRunOptions, request: AdvancedRequest) {
  const { base, adminToken } = options;
  const advanced = () => send(base, adminToken, 'POST', '/api/admin/playground/advanced', request);
  // The contexts the advanced playground evaluated (its comma expansion), then the request's own when it is the only one.
  const first = await advanced();
  const evaluated = first.status === 200 ? Object.values((JSON.parse(first.text) as PlaygroundBody).features[0]?.environments ?? {})[0]?.map((e) => e.context) : undefined;
  const contexts = evaluated ?? [request.context];
  const asGiven = contexts.length === 1;
  const batch = {
    environments: request.environments, ...(request.projects === undefined ? {} : { projects: request.projects }),
    contexts: asGiven ? [...contexts, request.context] : contexts,
  };
  return await compareAnswers(async (side) => {
    if (side === 'peer') {
      const { status, text } = await advanced();
      if (status !== 200) return failed('status', status, '');
      const body = JSON.parse(text) as PlaygroundBody;
      const answers: Answers = new Map([['<flags>', JSON.stringify(body.features.map((f) => f.name))]]);
      for (const feature of body.features) {
        for (const [environment, entries] of Object.entries(feature.environments)) {
          entries.forEach((entry, i) => answers.set(`${environment} #${i} ${feature.name}`, JSON.stringify(decision(entry))));
          if (asGiven && entries[0]) answers.set(`${environment} as given ${feature.name}`, JSON.stringify(decision(entries[0])));
        }
      }
      return answers;
    }
    const { status, text } = await send(base, adminToken, 'POST', '/api/admin/playground/batch', batch);
    if (status !== 200) return failed('status', status, '');
    const body = JSON.parse(text) as { flags: string[]; results: Array<{ context: number; environment: string; flags: Record<string, Decision> }> };
    const answers: Answers = new Map([['<flags>', JSON.stringify(body.flags)]]);
    for (const record of body.results) {
      const at = record.context < contexts.length ? `#${record.context}` : 'as given';
      for (const [flag, d] of Object.entries(record.flags)) answers.set(`${record.environment} ${at} ${flag}`, JSON.stringify({ enabled: d.enabled, variant: d.variant }));
    }
    return answers;
  }, []);
}

// --- change-request impact ---------------------------------------------------------------------

interface ChangeRequestRef { id: number; project: string; environment: string }

/** Segment plans and flag plans of the configuration, as config.ts's generators take them. */
function plans(configuration: readonly AdminRequest[]): { segments: SegmentPlan[]; flags: FlagPlan[] } {
  const segments = configuration.filter((r) => r.path === '/api/admin/segments').map((r) => ({ ref: r.capture!, project: (r.body as { project?: string }).project ?? null }));
  const flags = configuration.flatMap((r) => {
    const project = /^\/api\/admin\/projects\/([^/]+)\/features$/.exec(r.path)?.[1];
    return r.method === 'POST' && project !== undefined
      ? [{ name: (r.body as { name: string }).name, project, archived: false, parent: null, children: 0, variantNames: new Set<string>() }]
      : [];
  });
  return { segments, flags };
}

/** Admin JSON of `path`, or undefined unless 200. */
async function getJson<T>(options: VaneRunOptions, path: string): Promise<T | undefined> {
  const { status, text } = await send(options.base, options.adminToken, 'GET', path);
  return status === 200 ? (JSON.parse(text) as T) : undefined;
}

/**
 * One change request per (project, environment) pair, up to four, each of 3–8 random changes of
 * every action a change request takes (config.ts's strategies, variants and constraints, so the
 * D2 cases stay out); a change the server refuses is left out. Some are sent to review; the fourth
 * is cancelled half the time (a final state: the preview then shows the current state).
 */
async function randomChangeRequests(options: VaneRunOptions, projects: string[]): Promise<{ ids: ChangeRequestRef[]; log: string[] }> {
  const random = new Random(options.seed * 2654435 + 7);
  const { segments, flags } = plans(options.configuration);
  const stored = (await getJson<{ segments: Array<{ id: number; name: string; project?: string }> }>(options, '/api/admin/segments'))?.segments ?? [];
  const segmentIds = new Map(stored.map((s) => [s.name, s.id]));
  const pairs = projects.flatMap((project) => ENVIRONMENTS.map((environment) => ({ project, environment })));
  const chosen = random.some(pairs, Math.min(4, pairs.length));
  const ids: ChangeRequestRef[] = [];
  const log: string[] = [];
  for (const { project, environment } of chosen) {
    const candidates = flags.filter((f) => f.project === project);
    if (candidates.length === 0) continue;
    let id: number | undefined;
    const actions: string[] = [];
    for (let c = random.int(4, 10); c > 0; c--) {
      const flag = random.pick(candidates);
      const change = await randomChange(options, random, flag, candidates, environment, segments, segmentIds, stored);
      if (change === undefined) continue;
      const res = await send(options.base, options.adminToken, 'POST', `/api/admin/projects/${project}/environments/${environment}/change-requests`, change);
      actions.push(`${change.action}${res.status === 200 ? '' : ` (${res.status})`}`);
      if (res.status === 200) id = (JSON.parse(res.text) as { id: number }).id;
    }
    if (id === undefined) continue;
    const state = ids.length === 3 && random.chance(0.5) ? 'Cancelled' : random.pick(['Draft', 'In review']);
    if (state !== 'Draft') await send(options.base, options.adminToken, 'PUT', `/api/admin/projects/${project}/change-requests/${id}/state`, { state });
    ids.push({ id, project, environment });
    log.push(`change request #${id} (${project}, ${environment}, ${state}): ${actions.join(', ')}`);
  }
  if (ids.length === 0) throw new Error('no change request could be built');
  return { ids, log };
}

type Change = { feature?: string; action: string; payload: unknown };

async function randomChange(
  options: VaneRunOptions, random: Random, flag: FlagPlan, candidates: FlagPlan[], environment: string,
  segments: SegmentPlan[], segmentIds: Map<string, number>, stored: Array<{ id: number; name: string; project?: string }>,
): Promise<Change | undefined> {
  const current = await getJson<{ environments: Array<{ name: string; strategies: Array<{ id: string }> }>; dependencies?: Array<{ feature: string }> }>(
    options, `/api/admin/projects/${flag.project}/features/${encodeURIComponent(flag.name)}`);
  const strategies = current?.environments.find((e) => e.name === environment)?.strategies.map((s) => s.id) ?? [];
  const strategy = () => resolveRefs(strategyBody(random, flag, segments), segmentIds) as Record<string, unknown>;
  const feature = flag.name;
  switch (random.int(0, 10)) {
    case 0:
    case 1:
      return { feature, action: 'updateEnabled', payload: { enabled: random.chance(0.6) } };
    case 2:
    case 3:
      return { feature, action: 'addStrategy', payload: strategy() };
    case 4:
      return strategies.length === 0 ? undefined : { feature, action: 'updateStrategy', payload: { id: random.pick(strategies), ...strategy() } };
    case 5:
      return strategies.length === 0 ? undefined : { feature, action: 'deleteStrategy', payload: { id: random.pick(strategies) } };
    case 6:
      return { feature, action: 'patchVariant', payload: { variants: environmentVariants(random, new Set()) } };
    case 7:
      return strategies.length < 2 ? undefined : {
        feature, action: 'reorderStrategy',
        payload: strategies.map((id) => ({ id, sortOrder: random.int(0, 9) })),
      };
    case 8: {
      if (random.chance(0.5)) return { feature, action: 'archiveFeature', payload: {} };
      const parent = current?.dependencies?.[0]?.feature;
      if (parent !== undefined) return { feature, action: 'deleteDependency', payload: { feature: parent } };
      const other = random.pick(candidates);
      return other === flag ? undefined : { feature, action: 'addDependency', payload: { feature: other.name, ...(random.chance(0.5) ? { enabled: true } : {}) } };
    }
    default: {
      const usable = stored.filter((s) => s.project === undefined || s.project === flag.project);
      if (usable.length === 0) return undefined;
      const segment = random.pick(usable);
      if (random.chance(0.15)) return { action: 'deleteSegment', payload: { id: segment.id } };
      const constraints = Array.from({ length: random.int(0, 3) }, () => generateConstraint(random));
      return { action: 'updateSegment', payload: { id: segment.id, name: segment.name, constraints, ...(segment.project ? { project: segment.project } : {}) } };
    }
  }
}

/** Per flag, the impact's JSON entry (counts and the first 5 examples) as docs describe it. */
interface FlagImpact { before: { enabled: number }; after: { enabled: number }; turnedOn: number; turnedOff: number; variantChanged: number; examples: unknown[] }

async function compareImpact(options: VaneRunOptions, cr: ChangeRequestRef, context: Record<string, unknown>) {
  const { base, adminToken } = options;
  const impactPath = `/api/admin/playground/change-request/${cr.id}/impact`;
  return await compareAnswers(async (side) => {
    if (side === 'peer') {
      const [before, after] = await Promise.all([
        send(base, adminToken, 'POST', '/api/admin/playground/advanced', { environments: [cr.environment], projects: [cr.project], context }),
        send(base, adminToken, 'POST', `/api/admin/playground/change-request/${cr.id}`, { context }),
      ]);
      if (before.status !== 200 || after.status !== 200) return failed('status', before.status * 1000 + after.status, '');
      const byName = (text: string) => new Map((JSON.parse(text) as PlaygroundBody).features.map((f) => [f.name, f.environments[cr.environment] ?? []]));
      const was = byName(before.text);
      const now = byName(after.text);
      const answers: Answers = new Map();
      for (const flag of new Set([...was.keys(), ...now.keys()])) {
        const counts: FlagImpact = { before: { enabled: 0 }, after: { enabled: 0 }, turnedOn: 0, turnedOff: 0, variantChanged: 0, examples: [] };
        const entries = Math.max(was.get(flag)?.length ?? 0, now.get(flag)?.length ?? 0);
        for (let index = 0; index < entries; index++) {
          const b = was.get(flag)?.[index];
          const a = now.get(flag)?.[index];
          const from = b ? decision(b) : ABSENT;
          const to = a ? decision(a) : ABSENT;
          if (from.enabled) counts.before.enabled++;
          if (to.enabled) counts.after.enabled++;
          const variantChanged = from.enabled && to.enabled && from.variant !== to.variant;
          if (!from.enabled && to.enabled) counts.turnedOn++;
          if (from.enabled && !to.enabled) counts.turnedOff++;
          if (variantChanged) counts.variantChanged++;
          if (from.enabled === to.enabled && !variantChanged) continue;
          const example = { index, context: (b ?? a)!.context, before: from, after: to };
          if (counts.examples.length < 5) counts.examples.push(example);
          answers.set(`line #${index} ${flag}`, JSON.stringify(example));
        }
        // Listed when something changes, and always when the change request archives (or adds) the flag.
        if (counts.examples.length > 0 || was.has(flag) !== now.has(flag)) answers.set(`flag ${flag}`, JSON.stringify(counts));
      }
      return answers;
    }
    const [lines, summary] = await Promise.all([
      send(base, adminToken, 'POST', impactPath, { context }, { accept: 'application/x-ndjson' }),
      send(base, adminToken, 'POST', impactPath, { context }),
    ]);
    if (lines.status !== 200 || summary.status !== 200) return failed('status', lines.status * 1000 + summary.status, '');
    const answers: Answers = new Map();
    for (const line of lines.text.split('\n').filter(Boolean)) {
      const { flag, ...example } = JSON.parse(line) as { flag: string; error?: unknown };
      answers.set(example.error === undefined ? `line #${(example as { index: number }).index} ${flag}` : '<error>', JSON.stringify(example));
    }
    for (const { name, ...counts } of (JSON.parse(summary.text) as { flags: Array<{ name: string } & FlagImpact> }).flags) {
      answers.set(`flag ${name}`, JSON.stringify(counts));
    }
    return answers;
  }, []);
}

// --- OFREP -------------------------------------------------------------------------------------

async function compareOfrep(options: VaneRunOptions, tally: Tally): Promise<void> {
  const { base, adminToken } = options;
  const random = new Random(options.seed * 7368787 + 5);
  const names = options.configuration.filter((r) => r.method === 'POST' && /^\/api\/admin\/projects\/[^/]+\/features$/.test(r.path)).map((r) => (r.body as { name: string }).name);
  const setup = new Map<string, { token: string; features: Map<string, ClientFeature> }>();
  for (const environment of ENVIRONMENTS) {
    const token = await createToken(base, adminToken, 'frontend', environment, ['*']);
    const client = await createToken(base, adminToken, 'client', environment, ['*']);
    const { text } = await send(base, client, 'GET', '/api/client/features');
    setup.set(environment, { token, features: new Map((JSON.parse(text) as { features: ClientFeature[] }).features.map((f) => [f.name, f])) });
  }
  for (const [index, source] of generateSdkContexts(options.seed, options.contexts).entries()) {
    for (const environment of ENVIRONMENTS) {
      const { token, features } = setup.get(environment)!;
      const context = ofrepContext(random, source);
      const input = mappedContext(context);
      const sample = [...random.some(names, options.singleFlags), 'difftest-no-such-flag'];
      /** The frontend API's toggles for the mapped context, as OFREP evaluations (JSON text) by flag name. */
      const expected = async (): Promise<Answers | number> => {
        const { status, text } = await send(base, token, 'POST', '/api/frontend/all', { context: input });
        if (status !== 200) return status;
        const toggles = (JSON.parse(text) as { toggles: Toggle[] }).toggles;
        return new Map(toggles.map((t) => [t.name, JSON.stringify(expectedEvaluation(features.get(t.name)!, t, input))]));
      };
      const ofrep = (path: string) => send(base, `Bearer ${token}`, 'POST', path, { context });
      const same = { same: sameEvaluation };
      if (options.surfaces.includes('ofrep-bulk')) {
        tally.add({ case: index, environment, surface: 'ofrep-bulk', context }, await compareAnswers(async (side) => {
          if (side === 'peer') {
            const answers = await expected();
            return typeof answers === 'number' ? failed('status', answers, '') : new Map([['<order>', JSON.stringify([...answers.keys()])], ...answers]);
          }
          const { status, text } = await ofrep('/ofrep/v1/evaluate/flags');
          if (status !== 200) return failed('status', status, '');
          const flags = (JSON.parse(text) as { flags: Array<{ key: string }> }).flags;
          return new Map([['<order>', JSON.stringify(flags.map((f) => f.key))], ...flags.map((f): [string, string] => [f.key, JSON.stringify(f)])]);
        }, [], same));
      }
      if (options.surfaces.includes('ofrep-single')) {
        tally.add({ case: index, environment, surface: 'ofrep-single', context }, await compareAnswers(async (side) => {
          if (side === 'peer') {
            const answers = await expected();
            if (typeof answers === 'number') return failed('status', answers, '');
            return new Map(sample.map((name) => [name, answers.get(name) ?? `404 FLAG_NOT_FOUND ${name}`]));
          }
          return new Map(await Promise.all(sample.map(async (name): Promise<[string, string]> => {
            const { status, text } = await ofrep(`/ofrep/v1/evaluate/flags/${encodeURIComponent(name)}`);
            const body = JSON.parse(text) as { key?: string; errorCode?: string };
            return [name, status === 200 ? JSON.stringify(body) : `${status} ${body.errorCode} ${body.key}`];
          })));
        }, sample, same));
      }
    }
  }
}
