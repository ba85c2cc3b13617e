/**
 * Piscina entry point for batch and impact evaluation, run in the playground pool's threads (the
 * service names this module per task: WORKER in service.ts). Pure CPU work: no I/O.
 *
 * Each thread keeps, per snapshot revision, the compiled snapshot, its project views, and the
 * overlay of the last change request it was given — so a 100 000-context impact split in 20 tasks
 * compiles once per thread, not once per task.
 */
import { move } from 'piscina';
import { CompiledSnapshotCache, JsonChunkWriter } from '../../evaluation/index.js';
import { batchRecords, impactOfRange, projectView } from './evaluate.js';
const views = new Map();
const snapshots = new CompiledSnapshotCache(() => views.clear());
function snapshotFor(ref) {
    return snapshots.compiled(ref);
}
function viewOf(ref, projects) {
    const compiled = snapshotFor(ref);
    const key = projects === undefined ? '*' : JSON.stringify(projects);
    let view = views.get(key);
    if (!view) {
        view = projectView(compiled, projects);
        if (views.size > 64)
            views.clear();
        views.set(key, view);
    }
    return view;
}
function afterOf(task) {
    return snapshots.withChanges(task.snapshot, task.changes, task.changesKey);
}
function runBatch(task) {
    const view = viewOf(task.snapshot, task.projects);
    const writer = new JsonChunkWriter();
    batchRecords(view, task.environments, task.source, task.offset, task.start, task.end, task.separator, (text) => writer.write(text));
    return writer.toTransferable();
}
function runImpact(task) {
    const before = viewOf(task.snapshot, [task.project]);
    const after = projectView(afterOf(task), [task.project]);
    const writer = task.lines ? new JsonChunkWriter() : undefined;
    const flagJsons = task.flags.map((name) => JSON.stringify(name));
    const chunk = impactOfRange(before, after, task.environment, task.flags, task.source, task.offset, task.start, task.end, task.maxExamples, writer && ((f, example) => {
        writer.write(`{"index":${example.index},"context":${JSON.stringify(example.context)},"flag":${flagJsons[f]},` +
            `"before":${JSON.stringify(example.before)},"after":${JSON.stringify(example.after)}}\n`);
    }));
    // Counts and ≤ 5 examples per flag are small: cloned. The lines (a few MB at most per task) too.
    return writer ? { ...chunk, lines: writer.toTransferable() } : chunk;
}
export default function evaluateBatch(task) {
    switch (task.kind) {
        case 'batch':
            return move(runBatch(task));
        case 'impact':
            return runImpact(task);
    }
    return undefined;
}
//# sourceMappingURL=worker.js.map