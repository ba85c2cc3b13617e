/**
 * The SDK state as a pool thread holds it between tasks (the main thread's side, the shipped
 * form, is src/features/frontend-api/shipped-state.ts). A thread keeps the last state it was sent
 * and brings it up to a task's build with the changes of the builds since (compiling only the
 * changed flags and segments), or takes the task's full copy in when it holds none of them.
 */
import {
  catchUp, compile, mergeChanges, overlay, type Caught, type CompiledSnapshot, type FlagConfig, type Step,
} from '../src/evaluation/index.js';
import type { FrontendAnswer, FrontendSource, SourceStep } from '../src/features/frontend-api/evaluate.js';
import type { BatchTask, LiveFlagJson, ShippedChanges, ShippedFlag, ShippedJson, ShippedState } from '../src/features/frontend-api/shipped-state.js';
import { toFlagConfig } from '../src/features/flags/read-model.js';

/**
 * An entry point's handler: each question of a batch answered by `answer` from the state the batch
 * carries (the frontend API's and OFREP's entry points; each keeps its copy of the state).
 */
export function batchAnswerer<Q>(answer: (source: FrontendSource, question: Q) => FrontendAnswer): (task: BatchTask<Q>) => FrontendAnswer[] {
  const states = new WorkerStates();
  return (task) => {
    const source = states.source(task.state);
    return task.questions.map((question) => answer(source, question));
  };
}

/** A flag as shipped (dates as strings) as the engine's configuration. */
function flagConfigOf(flag: LiveFlagJson): FlagConfig {
  return toFlagConfig({ ...flag, createdAt: new Date(flag.createdAt) });
}

type Entry = FrontendSource['flags'][number];

interface Held extends FrontendSource {
  readonly flags: readonly Entry[];
  readonly byName: ReadonlyMap<string, Entry>;
  /** Cleared once the next state is made from this one: only the newest holds a step back. */
  step: SourceStep | undefined;
}

function entryOf([name, project, impressionData]: ShippedFlag): Entry {
  return { name, project, impressionData };
}

/** A full copy taken in: every flag and segment compiled. */
function wholeState(text: string): Held {
  const json = JSON.parse(text) as ShippedJson;
  const flags = json.flags.map(entryOf);
  return {
    flags,
    byName: new Map(flags.map((entry) => [entry.name, entry])),
    compiled: compile({
      flags: json.flags.map(([, , , flag]) => flagConfigOf(flag)),
      segments: json.segments.map(([, segment]) => segment),
    }),
    memo: new Map(),
    step: undefined,
  };
}

/**
 * `held` with the steps' changes applied, in order, without changing it: one overlay for all of
 * them, each changed flag's entry replaced in place, and the order of the last step that gives one.
 */
function applySteps(held: Held, steps: ReadonlyArray<Step<ShippedChanges>>): Held {
  const byName = new Map(held.byName);
  let order: readonly string[] | undefined;
  let removed = false;
  const changedNames = new Set<string>();
  for (const { changes } of steps) {
    for (const name of changes.removedFlags) byName.delete(name);
    for (const flag of changes.flags) {
      byName.set(flag[0], entryOf(flag));
      changedNames.add(flag[0]);
    }
    if (changes.order !== undefined) order = changes.order;
    if (changes.removedFlags.length > 0) removed = true;
  }
  const merged = mergeChanges(steps.map(({ changes }) => ({
    flags: changes.flags.map(([, , , flag]) => flagConfigOf(flag)),
    removedFlags: changes.removedFlags,
    segments: changes.segments.map(([, segment]) => segment),
    removedSegments: changes.removedSegments,
  })));
  const compiled: CompiledSnapshot = overlay(held.compiled, merged);
  const flags = order === undefined
    ? held.flags.map((entry) => byName.get(entry.name)!)
    : order.map((name) => byName.get(name)!);
  held.step = undefined;
  const changed = order === undefined && !removed ? [...changedNames].map((name) => byName.get(name)!) : undefined;
  return { flags, byName, compiled, memo: new Map(), step: { basis: held, changed } };
}

/** A thread's copy of the latest state it was sent. */
export class WorkerStates {
  private held: Caught<Held> | undefined;

  source(ref: ShippedState): FrontendSource {
    if (this.held?.revision !== ref.revision) this.held = catchUp(this.held, ref, wholeState, applySteps);
    return this.held.value;
  }
}
