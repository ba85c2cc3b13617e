/**
 * Piscina entry point for batch and impact evaluation, run in the playground pool's threads (the
 * service names this module per task: WORKER in service.ts). Pure CPU work: no I/O.
 *
 * Each thread keeps, per snapshot revision, the compiled snapshot, its project views, and the
 * overlay of the last change request it was given — so a 100 000-context impact split in 20 tasks
 * compiles once per thread, not once per task.
 */
import { move } from 'piscina';
import { compile, JsonChunkWriter, overlay, type CompiledSnapshot, type Snapshot } from '../../evaluation/index.js';
import { batchRecords, impactOfRange, projectView } from './evaluate.js';
import type { BatchTask, BatchWorkerTask, ImpactTask, SharedSnapshot } from './protocol.js';

let revision = -1;
let base: CompiledSnapshot | undefined;
const views = new Map<string, CompiledSnapshot>();
let overlayKey: string | undefined;
let overlaid: CompiledSnapshot | undefined;

function snapshotFor(ref: SharedSnapshot): CompiledSnapshot {
  if (base && revision === ref.revision) return base;
  base = compile(JSON.parse(Buffer.from(ref.buffer).toString('utf8')) as Snapshot);
  revision = ref.revision;
  views.clear();
  overlayKey = undefined;
  overlaid = undefined;
  return base;
}

function viewOf(ref: SharedSnapshot, projects: string[] | undefined): CompiledSnapshot {
  const compiled = snapshotFor(ref);
  const key = projects === undefined ? '*' : JSON.stringify(projects);
  let view = views.get(key);
  if (!view) {
    view = projectView(compiled, projects);
    if (views.size > 64) views.clear();
    views.set(key, view);
  }
  return view;
}

function afterOf(task: ImpactTask): CompiledSnapshot {
  const compiled = snapshotFor(task.snapshot);
  if (!task.changes) return compiled;
  const key = `${task.snapshot.revision}:${task.changesKey ?? ''}`;
  if (!overlaid || overlayKey !== key || !task.changesKey) {
    overlaid = overlay(compiled, task.changes);
    overlayKey = key;
  }
  return overlaid;
}

/** One buffer of its own (not a view of Node's shared pool slab), so it can be transferred. */
function collect(writer: JsonChunkWriter): Uint8Array {
  const out = Buffer.allocUnsafeSlow(writer.byteLength);
  let offset = 0;
  for (const chunk of writer.chunksView()) offset += chunk.copy(out, offset);
  return out;
}

function runBatch(task: BatchTask): Uint8Array {
  const view = viewOf(task.snapshot, task.projects);
  const writer = new JsonChunkWriter();
  batchRecords(view, task.environments, task.source, task.offset, task.start, task.end, task.separator, (text) => writer.write(text));
  return collect(writer);
}

function runImpact(task: ImpactTask): unknown {
  const before = viewOf(task.snapshot, [task.project]);
  const after = projectView(afterOf(task), [task.project]);
  const writer = task.lines ? new JsonChunkWriter() : undefined;
  const flagJsons = task.flags.map((name) => JSON.stringify(name));
  const chunk = impactOfRange(before, after, task.environment, task.flags, task.source, task.offset, task.start, task.end, task.maxExamples,
    writer && ((f, example) => {
      writer.write(`{"index":${example.index},"context":${JSON.stringify(example.context)},"flag":${flagJsons[f]},` +
        `"before":${JSON.stringify(example.before)},"after":${JSON.stringify(example.after)}}\n`);
    }));
  // Counts and ≤ 5 examples per flag are small: cloned. The lines (a few MB at most per task) too.
  return writer ? { ...chunk, lines: collect(writer) } : chunk;
}

export default function evaluateBatch(task: BatchWorkerTask): unknown {
  switch (task.kind) {
    case 'batch':
      return move(runBatch(task));
    case 'impact':
      return runImpact(task);
  }
  return undefined;
}
