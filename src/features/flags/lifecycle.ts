/**
 * A flag's lifecycle as Unleash 8.2 keeps it (its feature_lifecycles rows): each stage entered at
 * most once, with the time it was entered; the stage a flag is in is the first of
 * archived, completed, live, pre-live, initial that it entered (its `getCurrentStage`), whatever
 * the times. Pure: the writes are FlagLifecycleService's.
 */
import type { FlagData, FlagLifecycle, LifecycleEntry, LifecycleStage } from './read-model.js';

const PREFERRED: readonly LifecycleStage[] = ['archived', 'completed', 'live', 'pre-live', 'initial'];

function entryOf({ stages: _stages, ...entry }: FlagLifecycle): LifecycleEntry {
  return entry;
}

/** Every stage entered, oldest first (a flag stored before the history was kept has only its current one). */
export function stagesOf(lifecycle: FlagLifecycle): LifecycleEntry[] {
  return lifecycle.stages ?? [entryOf(lifecycle)];
}

function lifecycleOf(stages: LifecycleEntry[]): FlagLifecycle {
  const current = PREFERRED.map((stage) => stages.find((entry) => entry.stage === stage)).find((entry) => entry !== undefined);
  return { ...(current ?? stages[0]!), stages };
}

/** The lifecycle with `entry` entered; the same object when that stage was entered already (Unleash ignores the insert). */
export function withStage(lifecycle: FlagLifecycle, entry: LifecycleEntry): FlagLifecycle {
  const stages = stagesOf(lifecycle);
  if (stages.some((known) => known.stage === entry.stage)) return lifecycle;
  return lifecycleOf([...stages, entry]);
}

/** The lifecycle without `stage`; the same object when it was not entered. One stage is always kept. */
export function withoutStage(lifecycle: FlagLifecycle, stage: LifecycleStage): FlagLifecycle {
  const stages = stagesOf(lifecycle);
  const kept = stages.filter((entry) => entry.stage !== stage);
  if (kept.length === stages.length || kept.length === 0) return lifecycle;
  return lifecycleOf(kept);
}

/** A new flag, and a revived one (Unleash deletes its stages and enters `initial` again). */
export function initialLifecycle(now: Date): FlagLifecycle {
  const entry: LifecycleEntry = { stage: 'initial', enteredStageAt: now };
  return { ...entry, stages: [entry] };
}

/**
 * After an SDK reported evaluating the flag in an environment: `pre-live`, and `live` too in a
 * production environment where the flag is on, each entered unless it was before (archived and
 * completed flags too; their stage stays first). Unleash stamps a batch's rows 1 ms apart so
 * that `live` follows `pre-live`.
 */
export function lifecycleAfterMetrics(flag: FlagData, environment: string, production: boolean, now: Date): FlagLifecycle {
  let lifecycle = withStage(flag.lifecycle, { stage: 'pre-live', enteredStageAt: now });
  if (production && flag.environments[environment]?.enabled === true) {
    lifecycle = withStage(lifecycle, { stage: 'live', enteredStageAt: new Date(now.getTime() + 1) });
  }
  return lifecycle;
}

/** `GET …/lifecycle`: the stages entered, oldest first, `status` on a completed one. */
export function lifecycleView(lifecycle: FlagLifecycle): Array<ReturnType<typeof stageView>> {
  return [...stagesOf(lifecycle)]
    .sort((a, b) => a.enteredStageAt.getTime() - b.enteredStageAt.getTime())
    .map((entry) => stageView(entry));
}

/** One stage as the flag's GET and the lifecycle list show it. */
export function stageView(entry: LifecycleEntry): { stage: LifecycleStage; status?: 'kept' | 'discarded'; enteredStageAt: string } {
  return { stage: entry.stage, ...(entry.status ? { status: entry.status } : {}), enteredStageAt: entry.enteredStageAt.toISOString() };
}
