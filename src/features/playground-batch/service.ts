/**
 * Playground at scale: explicit context lists (batch) and the impact of a change
 * request on a population, evaluated on the playground's worker pool.
 *
 * Both produce their answer as an ordered sequence of byte pieces (an async generator): tasks are
 * dispatched with a sliding window of 2 × threads and their results written strictly in order,
 * and the generator only runs ahead when its consumer pulls (the HTTP response, through
 * `Readable.from`, pulls when the socket drains). Memory is the window's results, whatever the
 * number of contexts: measured ~25 MB of results in flight for the 100-flag batch bench.
 */
import { serviceUnavailable, validationError } from '../../errors.js';
import type { PoolScheduler } from '../../plugins/pool-scheduler.js';
import type { ResultOf } from '../../../workers/protocol.js';
import { cleanContext } from '../../evaluation/index.js';
import type { ChangeRequestService } from '../change-requests/service.js';
import { withChanges, type CurrentSnapshot, type SnapshotCache } from '../playground/snapshot.js';
import { sourceCount, type ContextSource, type PopulationSpec } from './contexts.js';
import { affectedFlags, COUNTERS, projectView, type ImpactExample } from './evaluate.js';
import type { BatchTask, ImpactTask, SharedSnapshot } from './protocol.js';

export interface BatchLimits {
  /** PLAYGROUND_BATCH_LIMIT: contexts × flags × environments per request. */
  evaluationLimit: number;
  threads: number;
}

/**
 * Records per batch task: ~1000 records of 100 flags are ~5.7 MB of NDJSON and ~25 ms of one
 * thread — large enough that the ~50 µs task round trip vanishes, small enough that the window
 * (2 × threads tasks) stays a few tens of MB.
 */
export const BATCH_RECORDS_PER_TASK = 1000;
/** Contexts per impact task: bounded so its NDJSON lines stay a few MB; ≥ 4 tasks per thread otherwise. */
const IMPACT_CONTEXTS_PER_TASK = 5000;
export const MAX_EXAMPLES = 5;

export type Format = 'json' | 'ndjson';

export interface BatchRequest {
  environments: string[];
  projects?: string[] | '*' | null;
  /** All contexts (JSON body), or chunks of them as they are read (NDJSON body). */
  contexts: Array<Record<string, unknown>> | AsyncIterable<Array<Record<string, unknown>>>;
}

export type ImpactInput =
  | { contexts: Array<Record<string, unknown>> }
  | { context: Record<string, unknown> }
  | { population: PopulationSpec };

interface FlagImpact {
  name: string;
  before: { enabled: number };
  after: { enabled: number };
  turnedOn: number;
  turnedOff: number;
  variantChanged: number;
  examples: ImpactExample[];
}

export interface ImpactAnswer {
  changeRequest: { id: number; environment: string; project: string; state: string };
  contexts: number;
  flags: FlagImpact[];
}

function projectsOf(projects: BatchRequest['projects']): string[] | undefined {
  return Array.isArray(projects) ? projects : undefined;
}

export function limitError(total: number, contexts: number | string, flags: number, environments: number, limit: number) {
  return validationError(
    `Rejecting evaluation as it would generate ${total} evaluations (${contexts} contexts × ${flags} flags × ${environments} environments) ` +
    `exceeding the limit of ${limit} (PLAYGROUND_BATCH_LIMIT). Send fewer contexts, environments or projects.`,
  );
}

export class PlaygroundBatchService {
  constructor(
    private readonly pool: PoolScheduler,
    private readonly snapshots: SnapshotCache,
    private readonly changeRequests: ChangeRequestService,
    private readonly limits: BatchLimits,
  ) {}

  /**
   * The batch answer as ordered pieces: JSON `{"flags":[…],"results":[…]}` or NDJSON records.
   * Every check that can fail before the first result (limit, bad context in the first window of
   * an NDJSON body) fails the first `next()`, so the route can still answer 400.
   */
  async *batch(request: BatchRequest, format: Format, signal: AbortSignal): AsyncGenerator<Buffer> {
    const snapshot = await this.snapshots.get();
    const projects = projectsOf(request.projects);
    const flags = projectView(snapshot.compiled, projects).ordered;
    const environments = request.environments;
    const perRecord = flags.length * environments.length;
    const limit = this.limits.evaluationLimit;
    const contextsPerTask = Math.max(1, Math.floor(BATCH_RECORDS_PER_TASK / environments.length));
    if (Array.isArray(request.contexts) && request.contexts.length * perRecord > limit) {
      throw limitError(request.contexts.length * perRecord, request.contexts.length, flags.length, environments.length, limit);
    }
    const separator = format === 'ndjson' ? '\n' : ',';
    const head = format === 'json' ? `{"flags":${JSON.stringify(flags.map((f) => f.name))},"results":[` : '';
    const ref = sharedRef(snapshot);
    async function* tasks(): AsyncGenerator<BatchTask> {
      let next = 0;
      for await (const chunk of chunksOf(request.contexts, contextsPerTask)) {
        const offset = next;
        for (let start = 0; start < chunk.length; start += contextsPerTask) {
          const contexts = chunk.slice(start, start + contextsPerTask);
          next += contexts.length;
          if (next * perRecord > limit) throw limitError(next * perRecord, `at least ${next}`, flags.length, environments.length, limit);
          yield {
            kind: 'batch', snapshot: ref, source: { kind: 'list', contexts }, offset: offset + start,
            start: offset + start, end: offset + start + contexts.length, environments, separator,
            ...(projects ? { projects } : {}),
          };
        }
      }
    }
    let pending = head;
    let any = false;
    for await (const bytes of this.ordered(tasks(), signal)) {
      if (bytes.byteLength === 0) continue;
      // JSON: each task's records end with ','; the comma goes before the next task's instead.
      const body = Buffer.from(bytes.buffer, bytes.byteOffset, format === 'json' ? bytes.byteLength - 1 : bytes.byteLength);
      const lead = format === 'json' && any ? ',' : '';
      any = true;
      yield pending || lead ? Buffer.concat([Buffer.from(pending + lead), body]) : body;
      pending = '';
    }
    yield Buffer.from(pending + (format === 'json' ? ']}' : ''));
  }

  /**
   * The change request's impact: its affected flags decided for every context before and after,
   * from one snapshot revision. JSON: the summary object. NDJSON: each changed (context, flag).
   */
  async impact(id: string, input: ImpactInput, format: 'json', signal: AbortSignal): Promise<ImpactAnswer>;
  async impact(id: string, input: ImpactInput, format: 'ndjson', signal: AbortSignal): Promise<AsyncGenerator<Buffer>>;
  async impact(id: string, input: ImpactInput, format: Format, signal: AbortSignal): Promise<ImpactAnswer | AsyncGenerator<Buffer>> {
    const { cr, changes, changesKey } = await this.changeRequests.preview(id);
    const snapshot = await this.snapshots.get();
    const before = projectView(snapshot.compiled, [cr.project]);
    const after = changes ? projectView(withChanges(snapshot, changes, changesKey), [cr.project]) : before;
    const flags = changes ? affectedFlags(before, after, cr.environment) : [];
    const source = sourceOf(input);
    const count = sourceCount(source);
    const flagCount = Math.max(before.ordered.length, after.ordered.length);
    const limit = this.limits.evaluationLimit;
    if (count * flagCount > limit) throw limitError(count * flagCount, count, flagCount, 1, limit);

    const ref = sharedRef(snapshot);
    const perTask = Math.min(IMPACT_CONTEXTS_PER_TASK, Math.max(500, Math.ceil(count / (4 * this.limits.threads))));
    function* tasks(): Generator<ImpactTask> {
      if (flags.length === 0) return;
      for (let start = 0; start < count; start += perTask) {
        const end = Math.min(count, start + perTask);
        // An explicit list travels in slices; a spec is expanded by the worker itself.
        const slice: ContextSource = source.kind === 'list' ? { kind: 'list', contexts: source.contexts.slice(start, end) } : source;
        yield {
          kind: 'impact', snapshot: ref, source: slice, offset: source.kind === 'list' ? start : 0, start, end,
          project: cr.project, environment: cr.environment, flags, maxExamples: MAX_EXAMPLES, lines: format === 'ndjson',
          ...(changes ? { changes, changesKey } : {}),
        };
      }
    }
    const results = this.ordered(tasks(), signal);
    if (format === 'ndjson') {
      return (async function* lines() {
        for await (const chunk of results) if (chunk.lines && chunk.lines.byteLength > 0) yield Buffer.from(chunk.lines);
      })();
    }
    const totals = new Array<number>(flags.length * COUNTERS).fill(0);
    const examples: ImpactExample[][] = flags.map(() => []);
    for await (const chunk of results) {
      chunk.counts.forEach((n, i) => (totals[i]! += n));
      chunk.examples.forEach((list, f) => {
        for (const example of list) if (examples[f]!.length < MAX_EXAMPLES) examples[f]!.push(example);
      });
    }
    const existence = (name: string) => before.flags.has(name) !== after.flags.has(name);
    return {
      changeRequest: { id: cr._id, environment: cr.environment, project: cr.project, state: cr.state },
      contexts: count,
      flags: flags.flatMap((name, f) => {
        const [was, now, turnedOn, turnedOff, variantChanged] = totals.slice(f * COUNTERS, (f + 1) * COUNTERS) as [number, number, number, number, number];
        if (turnedOn + turnedOff + variantChanged === 0 && !existence(name)) return [];
        return [{ name, before: { enabled: was }, after: { enabled: now }, turnedOn, turnedOff, variantChanged, examples: examples[f]! }];
      }),
    };
  }

  /**
   * Runs tasks with at most 2 × threads in flight and yields their results in task order. A task
   * is only dispatched when the consumer has taken an earlier result, so a slow reader holds the
   * producer back (backpressure) instead of piling results up.
   */
  private async *ordered<T extends BatchTask | ImpactTask>(tasks: Iterable<T> | AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<ResultOf<T>> {
    const window = 2 * this.limits.threads;
    this.pool.admit('bulk', window);
    const inFlight: Array<Promise<ResultOf<T>>> = [];
    const controller = new AbortController();
    const abort = () => controller.abort(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    try {
      for await (const task of tasks) {
        const result = this.run(task, controller.signal);
        // Awaited in order below; a later task failing first must not be an unhandled rejection.
        result.catch(() => undefined);
        inFlight.push(result);
        if (inFlight.length >= window) yield await inFlight.shift()!;
      }
      while (inFlight.length > 0) yield await inFlight.shift()!;
    } finally {
      // Consumer gone or failed: the tasks still queued or running are not wanted any more.
      if (inFlight.length > 0) controller.abort(new Error('answer abandoned'));
      signal.removeEventListener('abort', abort);
    }
  }

  private async run<T extends BatchTask | ImpactTask>(task: T, signal: AbortSignal): Promise<ResultOf<T>> {
    try {
      return await this.pool.run(task, signal);
    } catch (err) {
      if (signal.aborted) throw serviceUnavailable('The evaluation was abandoned (time budget exceeded or client gone).', 1);
      throw err;
    }
  }
}

function sharedRef(snapshot: CurrentSnapshot): SharedSnapshot {
  return snapshot.ref;
}

function sourceOf(input: ImpactInput): ContextSource {
  if ('contexts' in input) return { kind: 'list', contexts: input.contexts };
  if ('context' in input) return { kind: 'combinations', context: cleanContext(input.context).context };
  return { kind: 'population', spec: input.population };
}

async function* chunksOf<T>(contexts: T[] | AsyncIterable<T[]>, size: number): AsyncGenerator<T[]> {
  if (Array.isArray(contexts)) {
    for (let start = 0; start < contexts.length; start += size) yield contexts.slice(start, start + size);
  } else {
    yield* contexts;
  }
}
