/**
 * Entry point of batch and impact evaluation (src/features/playground-batch/service.ts), run in the
 * playground pool's threads. Pure CPU work: no I/O.
 *
 * Each thread keeps, per snapshot revision, the compiled snapshot, its project views, and the
 * overlay of the last change request it was given — so a 100 000-context impact split in 20 tasks
 * compiles once per thread, not once per task.
 */
import './thread-priority.js';
import { move } from 'piscina';
import { JsonChunkWriter, type CompiledSnapshot } from '../src/evaluation/index.js';
import { batchRecords, impactOfRange, projectView } from '../src/features/playground-batch/evaluate.js';
import type { BatchTask, ImpactTask, SharedSnapshot } from '../src/features/playground-batch/protocol.js';
import { CompiledSnapshotCache } from './compiled-cache.js';
import type { EntryPoint, TaskResult } from './protocol.js';

const views = new Map<string, CompiledSnapshot>();
const snapshots = new CompiledSnapshotCache(() => views.clear());

function snapshotFor(ref: SharedSnapshot): CompiledSnapshot {
  return snapshots.compiled(ref);
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
  return snapshots.withChanges(task.snapshot, task.changes, task.changesKey);
}

function runBatch(task: BatchTask): Uint8Array {
  const view = viewOf(task.snapshot, task.projects);
  const writer = new JsonChunkWriter();
  batchRecords(view, task.environments, task.source, task.offset, task.start, task.end, task.separator, (text) => writer.write(text));
  return writer.toTransferable();
}

function runImpact(task: ImpactTask): TaskResult<'impact'> {
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
  return writer ? { ...chunk, lines: writer.toTransferable() } : chunk;
}

const evaluateBatch: EntryPoint<'batch' | 'impact'> = (task) => task.kind === 'batch' ? move(runBatch(task)) : runImpact(task);
export default evaluateBatch;
