import type { Piscina } from 'piscina';
import {
  cleanContext, combinationSpace, overlay, selectFlags, type CompiledSnapshot, type SnapshotChanges,
} from '../../evaluation/index.js';
import { serviceUnavailable, validationError } from '../../errors.js';
import { unpackChunk, type AdvancedChunkTask, type ChunkResult, type DeprecatedTask } from './protocol.js';
import type { CurrentSnapshot, SnapshotCache } from './snapshot.js';

export interface PlaygroundLimits {
  evaluationLimit: number;
  maxQueue: number;
  timeoutMs: number;
  threads: number;
}

export type ProjectsInput = string[] | '*' | undefined | null;

/** SPEC §3.1: absent or falsy, or "*", means every project; an array lists ids ("*" inside is just an id). */
export function projectFilter(projects: ProjectsInput): string[] | undefined {
  return Array.isArray(projects) ? projects : undefined;
}

const CANONICAL_INDEX = /^(?:0|[1-9][0-9]{0,9})$/;

/**
 * Environment keys of the advanced response: request order, duplicates merged, names that are
 * canonical array indices first in numeric order (a JavaScript object orders keys so, SPEC §3.12).
 */
export function environmentKeys(environments: readonly string[]): string[] {
  const unique = [...new Set(environments)];
  const isIndex = (name: string) => CANONICAL_INDEX.test(name) && Number(name) <= 4294967294;
  const numeric = unique.filter(isIndex).sort((a, b) => Number(a) - Number(b));
  return [...numeric, ...unique.filter((name) => !isIndex(name))];
}

/**
 * Splits `occurrences × combinations` evaluations into a few slices. One task per evaluation
 * would cost a round trip (~50 µs) each; one task per request would leave a core idle. Aim for
 * about two slices per thread, and at least ~1000 evaluations per slice so small requests stay
 * a single task.
 */
export function planSlices(occurrences: number, combinations: number, flagCount: number, threads: number): Array<{ occurrence: number; start: number; end: number }> {
  const total = occurrences * combinations * flagCount;
  const wanted = Math.max(1, Math.min(2 * threads, Math.ceil(total / 1000)));
  const perOccurrence = Math.max(1, Math.min(combinations, Math.ceil(wanted / occurrences)));
  const slices: Array<{ occurrence: number; start: number; end: number }> = [];
  for (let occurrence = 0; occurrence < occurrences; occurrence++) {
    for (let s = 0; s < perOccurrence; s++) {
      const start = Math.floor((s * combinations) / perOccurrence);
      const end = Math.floor(((s + 1) * combinations) / perOccurrence);
      if (end > start) slices.push({ occurrence, start, end });
    }
  }
  return slices;
}

export interface AdvancedRequest {
  environments: string[];
  projects: ProjectsInput;
  context: Record<string, unknown>;
  /** JSON of the `input` echo (the request body after coercion, or the CR's input). */
  inputJson: string;
  changes?: SnapshotChanges;
  changesKey?: string;
}

export class PlaygroundService {
  constructor(
    private readonly pool: Piscina,
    private readonly snapshots: SnapshotCache,
    private readonly limits: PlaygroundLimits,
  ) {}

  /** E5: one environment, the context as given (no cleaning, no expansion). */
  async deprecated(body: { environment: string; projects?: ProjectsInput; context: Record<string, unknown> }, inputJson: string, signal: AbortSignal): Promise<Buffer> {
    const snapshot = await this.snapshots.get();
    const task: DeprecatedTask = {
      kind: 'deprecated',
      snapshot: snapshot.ref,
      environment: body.environment,
      projects: projectFilter(body.projects),
      context: body.context,
      inputJson,
    };
    this.ensureRoom(1);
    const bytes = await this.run<Uint8Array>(task, signal);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** S1 and E3: several environments, cleaned context, every combination (SPEC §3.2). */
  async advanced(request: AdvancedRequest, signal: AbortSignal): Promise<Buffer> {
    const snapshot = await this.snapshots.get();
    const compiled = this.compiledFor(snapshot, request);
    const projects = projectFilter(request.projects);
    const selection = selectFlags(compiled, projects);
    const flagCount = selection.flags.length;
    const cleaned = cleanContext(request.context);
    const combinations = combinationSpace(cleaned.context).count;
    const total = request.environments.length * flagCount * combinations;
    const limit = this.limits.evaluationLimit;
    if (total > limit) {
      throw validationError(
        `Rejecting evaluation as it would generate ${total} combinations exceeding ${limit} limit. Please reduce the number of selected environments (${request.environments.length}), features (${flagCount}), context field combinations (${combinations}).`,
      );
    }
    const slices = flagCount === 0 ? [] : planSlices(request.environments.length, combinations, flagCount, this.limits.threads);
    this.ensureRoom(slices.length);
    const results = await Promise.all(slices.map(async (slice) => {
      const task: AdvancedChunkTask = {
        kind: 'advanced-chunk',
        snapshot: snapshot.ref,
        changes: request.changes,
        changesKey: request.changesKey,
        environment: request.environments[slice.occurrence]!,
        projects,
        context: cleaned.context,
        comboStart: slice.start,
        comboEnd: slice.end,
        flagStart: 0,
        flagEnd: flagCount,
      };
      return { slice, chunk: unpackChunk(await this.run<Uint8Array>(task, signal)) };
    }));

    const parts: Buffer[] = [Buffer.from('{"features":[')];
    const keys = environmentKeys(request.environments);
    const byEnvironment = new Map<string, ChunkResult[]>(keys.map((key) => [key, []]));
    for (const { slice, chunk } of results) byEnvironment.get(request.environments[slice.occurrence]!)!.push(chunk);
    const comma = Buffer.from(',');
    for (let f = 0; f < flagCount; f++) {
      const flag = selection.flags[f]!;
      parts.push(Buffer.from(`${f > 0 ? ',' : ''}{"name":${flag.nameJson},"projectId":${flag.projectJson},"environments":{`));
      keys.forEach((key, k) => {
        parts.push(Buffer.from(`${k > 0 ? ',' : ''}${JSON.stringify(key)}:[`));
        byEnvironment.get(key)!.forEach((chunk, c) => {
          if (c > 0) parts.push(comma);
          parts.push(chunk.bytes.subarray(f === 0 ? 0 : chunk.ends[f - 1], chunk.ends[f]));
        });
        parts.push(Buffer.from(']'));
      });
      parts.push(Buffer.from('}}'));
    }
    parts.push(Buffer.from(`],"input":${request.inputJson}`));
    if (cleaned.removedProperties.length > 0) {
      parts.push(Buffer.from(`,"warnings":{"invalidContextProperties":${JSON.stringify(cleaned.removedProperties)}}`));
    }
    parts.push(Buffer.from('}'));
    return Buffer.concat(parts);
  }

  private compiledFor(snapshot: CurrentSnapshot, request: AdvancedRequest): CompiledSnapshot {
    return request.changes ? overlay(snapshot.compiled, request.changes) : snapshot.compiled;
  }

  /** Bounded queue: refuse at once rather than queue without bound (the pool's maxQueue is the backstop). */
  private ensureRoom(tasks: number): void {
    if (this.pool.queueSize + tasks > this.limits.maxQueue) {
      throw serviceUnavailable('The playground is at capacity right now. Retry shortly.', 1);
    }
  }

  private async run<T>(task: unknown, signal: AbortSignal): Promise<T> {
    try {
      return (await this.pool.run(task, { signal })) as T;
    } catch (err) {
      if (signal.aborted) {
        throw serviceUnavailable(`The evaluation did not finish within the time budget of ${this.limits.timeoutMs} ms.`, 1);
      }
      if (err instanceof Error && /queue is at limit/i.test(err.message)) {
        throw serviceUnavailable('The playground is at capacity right now. Retry shortly.', 1);
      }
      // A crashed worker has been replaced already; only this request fails (500, logged).
      throw err;
    }
  }
}
