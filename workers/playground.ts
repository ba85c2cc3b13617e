/**
 * Entry point of the playground's tasks (the pool's default module, workers/protocol.ts), sent by
 * src/features/playground/service.ts. Pure CPU work on the engine: no I/O.
 *
 * The compiled snapshot is cached per revision in each worker: the snapshot reaches a worker as
 * SharedArrayBuffer references (no copy: a full copy of a recent revision and the changes since)
 * and the worker's copy is brought up to each revision once (compiled-cache.ts) instead of once
 * per request.
 *
 * Output is written as UTF-8 straight into the engine's JsonChunkWriter (64 KiB buffers) and
 * handed back in one transferred buffer: V8 pays ~130–230 µs to create any string over ~128 KiB,
 * more than evaluating 100 flags, so no response-sized string is ever built.
 */
import './thread-priority.js';
import { move } from 'piscina';
import {
  AdvancedEntryWriter, combinationAt, combinationSpace, ContextReader, evaluateRange, evaluateSelection,
  JsonChunkWriter, selectFlags, writePlaygroundFeatures, type CompiledSnapshot,
} from '../src/evaluation/index.js';
import { ChunkWriter, type AdvancedChunkTask, type DeprecatedTask, type SnapshotRef } from '../src/features/playground/protocol.js';
import { CompiledSnapshotCache } from './compiled-cache.js';
import type { EntryPoint } from './protocol.js';

const snapshots = new CompiledSnapshotCache();

function snapshotFor(ref: SnapshotRef): CompiledSnapshot {
  return snapshots.compiled(ref);
}

function compiledFor(task: AdvancedChunkTask): CompiledSnapshot {
  return snapshots.withChanges(task.snapshot, task.changes, task.changesKey);
}

function runDeprecated(task: DeprecatedTask): Uint8Array {
  const compiled = snapshotFor(task.snapshot);
  const selection = selectFlags(compiled, task.projects);
  const writer = new JsonChunkWriter();
  writer.write(`{"input":${task.inputJson},"features":`);
  writePlaygroundFeatures(writer, evaluateSelection(compiled, selection, task.environment, task.context));
  writer.write('}');
  return writer.toTransferable();
}

/**
 * Flag-major: each flag's entries for every combination of the slice are written together, so
 * the main thread can splice flags from several slices into response order. Combinations are
 * decoded and serialised once per slice and their parsed fields shared through one ContextReader
 * each; a flag's parent is evaluated alongside it when it has a dependency.
 * The result's layout is protocol.ts's (ChunkWriter writes it, unpackChunk reads it).
 */
/**
 * Output bytes per advanced entry in this worker's last chunk: the next chunk's writer is sized
 * from it, so the text usually lands in one buffer, which is transferred as it is, header in
 * front. Performance: copying each ~2 MB chunk into a buffer of its own (`collect`) was ~5 % of a
 * worker's CPU profile in bench:playground S2 (tester seed 3); it remains the fallback when the estimate is short.
 */
let bytesPerEntry = 2048;

function runAdvancedChunk(task: AdvancedChunkTask): Uint8Array | number {
  const compiled = compiledFor(task);
  const selection = selectFlags(compiled, task.projects);
  const space = combinationSpace(task.context);
  const count = task.comboEnd - task.comboStart;
  const readers = new Array<ContextReader>(count);
  const contexts = new Array<Buffer>(count);
  for (let i = 0; i < count; i++) {
    const context = combinationAt(space, task.comboStart + i);
    readers[i] = new ContextReader(context);
    contexts[i] = Buffer.from(',"context":' + JSON.stringify(context));
  }
  const flagCount = task.flagEnd - task.flagStart;
  const entries = flagCount * count;
  const chunk = new ChunkWriter(flagCount, Math.ceil(entries * bytesPerEntry * 1.25), task.output);
  const entryWriter = new AdvancedEntryWriter(chunk.text);
  for (let f = 0; f < flagCount; f++) {
    const index = task.flagStart + f;
    for (let i = 0; i < count; i++) {
      const evaluation = evaluateRange(compiled, selection, task.environment, readers[i]!, index, index + 1)[0]!;
      entryWriter.write(evaluation, contexts[i]!, i === 0);
    }
    chunk.endFlag();
  }
  if (entries > 0) bytesPerEntry = Math.max(64, Math.ceil(chunk.text.byteLength / entries));
  return chunk.finish();
}

const evaluatePlayground: EntryPoint<'deprecated' | 'advanced-chunk'> = (task) => {
  if (task.kind === 'deprecated') return move(runDeprecated(task));
  const result = runAdvancedChunk(task);
  return typeof result === 'number' ? result : move(result);
};
export default evaluatePlayground;
