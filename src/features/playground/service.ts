import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import {
  cleanContext, combinationSpace, selectFlags, type SnapshotChanges,
} from '../../evaluation/index.js';
import { serviceUnavailable, validationError } from '../../errors.js';
import type { PoolScheduler } from '../../plugins/pool-scheduler.js';
import { unpackChunk, type AdvancedChunkTask, type ChunkResult, type DeprecatedTask } from './protocol.js';
import { withChanges, type CurrentSnapshot, type SnapshotCache } from './snapshot.js';
import type { ResultOf } from '../../../workers/protocol.js';

export interface PlaygroundLimits {
  evaluationLimit: number;
  /** Requests with more evaluations than this are streamed (only reachable with a raised limit). */
  streamThreshold: number;
  timeoutMs: number;
  threads: number;
}

export type ProjectsInput = string[] | '*' | undefined | null;

/** docs/rules.md §3.1: absent or falsy, or "*", means every project; an array lists ids ("*" inside is just an id). */
export function projectFilter(projects: ProjectsInput): string[] | undefined {
  return Array.isArray(projects) ? projects : undefined;
}

const CANONICAL_INDEX = /^(?:0|[1-9][0-9]{0,9})$/;

/**
 * Environment keys of the advanced response: request order, duplicates merged, names that are
 * canonical array indices first in numeric order (a JavaScript object orders keys so, docs/rules.md §3.12).
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

const HEAD = Buffer.from('{"features":[');
const COMMA = Buffer.from(',');
const CLOSE_LIST = Buffer.from(']');
const CLOSE_FLAG = Buffer.from('}}');
type SelectedFlag = ReturnType<typeof selectFlags>['flags'][number];
/** Per compiled flag, so it lives as long as the snapshot that flag belongs to. */
const flagOpeners = new WeakMap<SelectedFlag, Buffer>();

/** `{"name":…,"projectId":…,"environments":{` of a buffered answer's flag. */
function flagOpener(flag: SelectedFlag): Buffer {
  let bytes = flagOpeners.get(flag);
  if (bytes === undefined) {
    bytes = Buffer.from(`{"name":${flag.nameJson},"projectId":${flag.projectJson},"environments":{`);
    flagOpeners.set(flag, bytes);
  }
  return bytes;
}

/** An advanced slice's chunk: the buffer it came back in, or its first `result` bytes in the memory it was lent. */
function chunkOf(result: Uint8Array | number, output: SharedArrayBuffer | undefined): ChunkResult {
  if (typeof result !== 'number') return unpackChunk(result);
  if (output === undefined) throw new Error('a chunk came back as a length without lent memory');
  return unpackChunk(new Uint8Array(output, 0, result));
}

/** Entries per streamed piece: ~2.5 MB of JSON, a few ms of one worker's time. */
const STREAM_SLICE = 2000;

interface AdvancedPlan {
  request: AdvancedRequest;
  snapshot: CurrentSnapshot;
  projects: string[] | undefined;
  selection: ReturnType<typeof selectFlags>;
  flagCount: number;
  cleaned: ReturnType<typeof cleanContext>;
  combinations: number;
  total: number;
  keys: string[];
  occurrencesByKey: Map<string, number[]>;
  /** The answer's glue around the workers' chunks: each environment key's opener (after the first, led by a comma), and the tail. */
  keyOpeners: Buffer[];
  tail: Buffer;
}

/**
 * A buffered answer kept as the workers' slices plus the small glue between them, sent with its
 * total length. Performance: bench:playground S2 (tester seed 3, 8.1 MB per answer, 8 connections)
 * spent 12 % of the main thread in Buffer.concat copying every answer once more and 20 % in GC of
 * those copies, while the workers idled half the time, so the pieces are sent as they are.
 * Measured on the loaded machine, alternating builds: 12.9 and 13.2 req/s with the copy, 14.1 and
 * 13.1 without (within noise).
 */
export class BufferedAnswer {
  constructor(
    readonly parts: readonly Buffer[],
    readonly byteLength: number,
    /** To call once the answer's bytes are no longer read (the response closed): frees lent memory. */
    readonly release: () => void = () => undefined,
  ) {}
}

/**
 * Memory lent to the workers to write advanced chunks into, reused from answer to answer.
 *
 * Performance: each bench:playground S2 answer (tester seed 3) brought ~8 MB of new transferred ArrayBuffers into
 * the main isolate; that external memory kept triggering major GCs, and V8's GC helper threads
 * used as much CPU as the two workers. A lent SharedArrayBuffer goes back to the free list only
 * when its answer's response has closed (every byte handed to the kernel, or the client gone); a
 * failed request abandons its buffers to the GC instead, since a slice may still be writing.
 * Past `max` buffers in use, tasks get none and the worker transfers a buffer of its own.
 */
export class OutputBuffers {
  private readonly free: SharedArrayBuffer[] = [];
  private lent = 0;

  constructor(
    readonly bytes: number,
    private readonly max: number,
  ) {}

  take(): SharedArrayBuffer | undefined {
    const buffer = this.free.pop() ?? (this.lent + this.free.length < this.max ? new SharedArrayBuffer(this.bytes) : undefined);
    if (buffer) this.lent++;
    return buffer;
  }

  giveBack(buffers: ReadonlyArray<SharedArrayBuffer | undefined>): void {
    for (const buffer of buffers) {
      if (buffer === undefined) continue;
      this.lent--;
      this.free.push(buffer);
    }
  }

  abandon(buffers: ReadonlyArray<SharedArrayBuffer | undefined>): void {
    for (const buffer of buffers) if (buffer !== undefined) this.lent--;
  }
}

/** 4 MiB: a bench:playground S2 slice's chunk is ~2.4 MB; 64 of them cover 8 connections × 4 slices twice. */
const OUTPUT_BYTES = 4 * 1024 * 1024;
const MAX_OUTPUTS = 64;

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
  private readonly outputs = new OutputBuffers(OUTPUT_BYTES, MAX_OUTPUTS);

  constructor(
    private readonly pool: PoolScheduler,
    private readonly snapshots: SnapshotCache,
    private readonly limits: PlaygroundLimits,
  ) {}

  /** E5 (docs/glossary.md): one environment, the context as given (no cleaning, no expansion). */
  async deprecated(body: { environment: string; projects?: ProjectsInput; context: Record<string, unknown> }, inputJson: string, signal: AbortSignal): Promise<Buffer> {
    const snapshot = await this.snapshots.get();
    const projects = projectFilter(body.projects);
    // No flag selected: the answer is fixed text, the same bytes the worker writes. Answered here
    // because the hand-off to a worker and back is most of such a request's cost (measured with
    // the tester's seed-3 configuration, one connection, rotating contexts: 3 575 req/s through
    // the pool; a CPU profile of the main thread put the largest self time in piscina's postTask).
    if (projects !== undefined && selectFlags(snapshot.compiled, projects).flags.length === 0) {
      return Buffer.from(`{"input":${inputJson},"features":[]}`);
    }
    const task: DeprecatedTask = {
      kind: 'deprecated',
      snapshot: snapshot.ref,
      environment: body.environment,
      projects,
      context: body.context,
      inputJson,
    };
    this.ensureRoom(1);
    const bytes = await this.run(task, signal);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /**
   * S1 and E3: several environments, cleaned context, every combination (docs/rules.md §3.2). Up to
   * `streamThreshold` evaluations the answer is assembled in memory and sent with a length;
   * beyond, it is streamed flag by flag as the workers produce it, with a bounded number of
   * slices in flight, so memory stays flat whatever the size.
   */
  async advanced(request: AdvancedRequest, signal: AbortSignal): Promise<BufferedAnswer | Readable> {
    const plan = await this.prepare(request);
    return plan.total > this.limits.streamThreshold ? this.streamed(plan, signal) : await this.buffered(plan, signal);
  }

  private async prepare(request: AdvancedRequest): Promise<AdvancedPlan> {
    const snapshot = await this.snapshots.get();
    const compiled = withChanges(snapshot, request.changes, request.changesKey);
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
    const keys = environmentKeys(request.environments);
    const occurrencesByKey = new Map<string, number[]>(keys.map((key) => [key, []]));
    request.environments.forEach((environment, i) => occurrencesByKey.get(environment)!.push(i));
    // The glue is encoded once per request (flag openers once per snapshot), not once per piece: an S2
    // answer has ~1 500 pieces, and allocating each anew was the main thread's young garbage.
    const keyOpeners = keys.map((key, k) => Buffer.from(`${k > 0 ? ',' : ''}${JSON.stringify(key)}:[`));
    const warnings = cleaned.removedProperties.length > 0
      ? `,"warnings":{"invalidContextProperties":${JSON.stringify(cleaned.removedProperties)}}`
      : '';
    const tail = Buffer.from(`],"input":${request.inputJson}${warnings}}`);
    return { request, snapshot, projects, selection, flagCount, cleaned, combinations, total, keys, occurrencesByKey, keyOpeners, tail };
  }

  private task(plan: AdvancedPlan, occurrence: number, comboStart: number, comboEnd: number, flagStart: number, flagEnd: number): AdvancedChunkTask {
    return {
      kind: 'advanced-chunk',
      snapshot: plan.snapshot.ref,
      changes: plan.request.changes,
      changesKey: plan.request.changesKey,
      environment: plan.request.environments[occurrence]!,
      projects: plan.projects,
      context: plan.cleaned.context,
      comboStart,
      comboEnd,
      flagStart,
      flagEnd,
    };
  }

  private async buffered(plan: AdvancedPlan, signal: AbortSignal): Promise<BufferedAnswer> {
    const { flagCount, request, combinations } = plan;
    const slices = flagCount === 0 ? [] : planSlices(request.environments.length, combinations, flagCount, this.limits.threads);
    this.ensureRoom(slices.length);
    const outputs = slices.map(() => this.outputs.take());
    let results: Array<{ slice: (typeof slices)[number]; chunk: ChunkResult }>;
    try {
      results = await Promise.all(slices.map(async (slice, i) => {
        const task = { ...this.task(plan, slice.occurrence, slice.start, slice.end, 0, flagCount), output: outputs[i] };
        const result = await this.run(task, signal);
        return { slice, chunk: chunkOf(result, outputs[i]) };
      }));
    } catch (err) {
      this.outputs.abandon(outputs);
      throw err;
    }
    const byOccurrence = new Map<number, ChunkResult[]>();
    for (const { slice, chunk } of results) {
      const list = byOccurrence.get(slice.occurrence) ?? [];
      list.push(chunk);
      byOccurrence.set(slice.occurrence, list);
    }
    const keyOpeners = plan.keyOpeners;
    const chunksByKey = plan.keys.map((key) => plan.occurrencesByKey.get(key)!.flatMap((occurrence) => byOccurrence.get(occurrence) ?? []));
    const parts: Buffer[] = [HEAD];
    for (let f = 0; f < flagCount; f++) {
      if (f > 0) parts.push(COMMA);
      parts.push(flagOpener(plan.selection.flags[f]!));
      for (let k = 0; k < keyOpeners.length; k++) {
        parts.push(keyOpeners[k]!);
        const chunks = chunksByKey[k]!;
        for (let c = 0; c < chunks.length; c++) {
          if (c > 0) parts.push(COMMA);
          const chunk = chunks[c]!;
          parts.push(chunk.bytes.subarray(f === 0 ? 0 : chunk.ends[f - 1], chunk.ends[f]));
        }
        parts.push(CLOSE_LIST);
      }
      parts.push(CLOSE_FLAG);
    }
    parts.push(plan.tail);
    let byteLength = 0;
    for (const part of parts) byteLength += part.length;
    return new BufferedAnswer(parts, byteLength, () => this.outputs.giveBack(outputs));
  }

  /**
   * Flag-major pieces (one flag, one environment occurrence, a slice of combinations), dispatched
   * with a sliding window of `2 × threads` and written strictly in response order. Memory: the
   * window's pieces (~STREAM_SLICE entries each), whatever the request size.
   */
  private streamed(plan: AdvancedPlan, signal: AbortSignal): Readable {
    const out = new PassThrough();
    const window = 2 * this.limits.threads;
    const perSlice = STREAM_SLICE;
    interface Piece { before: Buffer[]; occurrence: number; start: number; end: number; f: number; after: Buffer[] }
    const pieces: Piece[] = [];
    for (let f = 0; f < plan.flagCount; f++) {
      const opener = flagOpener(plan.selection.flags[f]!);
      let before = f > 0 ? [COMMA, opener] : [opener];
      plan.keys.forEach((key, k) => {
        before.push(plan.keyOpeners[k]!);
        let first = true;
        for (const occurrence of plan.occurrencesByKey.get(key)!) {
          for (let start = 0; start < plan.combinations; start += perSlice) {
            pieces.push({ before: first ? before : [COMMA], occurrence, start, end: Math.min(plan.combinations, start + perSlice), f, after: [] });
            before = [];
            first = false;
          }
        }
        pieces[pieces.length - 1]!.after.push(CLOSE_LIST);
      });
      pieces[pieces.length - 1]!.after.push(CLOSE_FLAG);
    }
    const write = async (chunk: Buffer | string) => {
      if (!out.write(chunk)) await once(out, 'drain');
    };
    void (async () => {
      try {
        this.ensureRoom(Math.min(window, pieces.length));
        await write(HEAD);
        const inFlight: Array<Promise<Uint8Array | number>> = [];
        let next = 0;
        const launch = () => {
          const piece = pieces[next++]!;
          const result = this.run(this.task(plan, piece.occurrence, piece.start, piece.end, piece.f, piece.f + 1), signal);
          // Awaited in order below; a later slice failing first must not be an unhandled rejection.
          result.catch(() => undefined);
          inFlight.push(result);
        };
        while (next < pieces.length && inFlight.length < window) launch();
        for (let i = 0; i < pieces.length; i++) {
          const bytes = await inFlight.shift()!;
          if (next < pieces.length) launch();
          const piece = pieces[i]!;
          for (const glue of piece.before) await write(glue);
          await write(chunkOf(bytes, undefined).bytes);
          for (const glue of piece.after) await write(glue);
        }
        await write(plan.tail);
        out.end();
      } catch (err) {
        out.destroy(err as Error);
      }
    })();
    return out;
  }

  /** Refuses at once (503) work that would not start in time (PoolScheduler.admit). */
  private ensureRoom(tasks: number): void {
    this.pool.admit('interactive', tasks);
  }

  private async run<T extends DeprecatedTask | AdvancedChunkTask>(task: T, signal: AbortSignal): Promise<ResultOf<T>> {
    try {
      return await this.pool.run(task, signal);
    } catch (err) {
      if (signal.aborted) {
        throw serviceUnavailable(`The evaluation did not finish within the time budget of ${this.limits.timeoutMs} ms.`, 1);
      }
      // A crashed worker has been replaced already; only this request fails (500, logged).
      throw err;
    }
  }
}
