/**
 * The pure work of batch and impact evaluation, run inside the pool threads (workers/playground-batch.ts)
 * and testable without them.
 *
 * Only a flag's `isEnabled` and variant name are wanted here, so each flag is decided the SDK way
 * (`getVariant`: first passing strategy, short-circuited) instead of the playground's full
 * report of every strategy, constraint and segment. By D2 (docs/glossary.md) both paths apply the same rules;
 * the property test (test/features/playground/impact-property.test.ts) holds this path to the
 * advanced playground's and the change-request preview's answers. Measured on the 100-flag bench
 * configuration: ~0.35 µs per flag decision against ~0.7 µs for the playground evaluation alone.
 */
import { ContextReader, getVariant, selectFlags, type CompiledFlag, type CompiledSnapshot } from '../../evaluation/index.js';
import { ContextCursor, type ContextSource } from './contexts.js';

export interface Decision {
  enabled: boolean;
  /** The advanced playground's `variant.name` ("disabled" when none); null when the flag does not exist. */
  variant: string | null;
}

const ABSENT: Decision = Object.freeze({ enabled: false, variant: null });

/**
 * The snapshot as the playground sees it for a project selection: only selected flags exist, so
 * a dependency on an unselected parent is unsatisfied exactly as in the playground (docs/rules.md §3.11
 * rule 1). Undefined projects = all.
 */
export function projectView(compiled: CompiledSnapshot, projects: readonly string[] | undefined): CompiledSnapshot {
  if (projects === undefined) return compiled;
  const ordered = selectFlags(compiled, projects).flags;
  return { flags: new Map(ordered.map((flag) => [flag.name, flag])), ordered, segments: compiled.segments };
}

/** `context` as a ContextReader shares its parsed fields (versions, dates, addresses) across flags. */
export function decide(view: CompiledSnapshot, environment: string, name: string, context: Record<string, unknown> | ContextReader): Decision {
  if (!view.flags.has(name)) return ABSENT;
  const variant = getVariant(view, environment, name, context);
  return { enabled: variant.feature_enabled === true, variant: variant.name };
}

// ---------------------------------------------------------------------------------------------
// batch

const recordHeads = new WeakMap<CompiledFlag, string>();

/** `"<name>":{"enabled":` — the static head of a flag's entry, built once per compiled flag. */
function recordHead(flag: CompiledFlag, first: boolean): string {
  let head = recordHeads.get(flag);
  if (head === undefined) {
    head = `${flag.nameJson}:{"enabled":`;
    recordHeads.set(flag, head);
  }
  return first ? head : ',' + head;
}

const variantTails = new Map<string, string>();

function variantTail(name: string): string {
  let tail = variantTails.get(name);
  if (tail === undefined) {
    tail = `,"variant":${JSON.stringify(name)}}`;
    if (variantTails.size < 10_000) variantTails.set(name, tail);
  }
  return tail;
}

/**
 * Records for contexts [start, end) of `source`, each environment in turn per context:
 * `{"context":i,"environment":"…","flags":{"<name>":{"enabled":…,"variant":"…"},…}}`, each
 * followed by `separator` ("\n" for NDJSON, "," inside a JSON array; the caller drops the last
 * comma). One string per record (a few kB, well under V8's large-string threshold).
 */
export function batchRecords(
  view: CompiledSnapshot,
  environments: readonly string[],
  source: ContextSource,
  offset: number,
  start: number,
  end: number,
  separator: string,
  write: (text: string) => void,
): void {
  const cursor = new ContextCursor(source, offset);
  const flags = view.ordered;
  const environmentJsons = environments.map((environment) => JSON.stringify(environment));
  for (let i = start; i < end; i++) {
    const context = new ContextReader(cursor.at(i));
    for (let e = 0; e < environments.length; e++) {
      const environment = environments[e]!;
      let record = `{"context":${i},"environment":${environmentJsons[e]},"flags":{`;
      for (let f = 0; f < flags.length; f++) {
        const flag = flags[f]!;
        const variant = getVariant(view, environment, flag.name, context);
        record += recordHead(flag, f === 0) + (variant.feature_enabled === true ? 'true' : 'false') + variantTail(variant.name);
      }
      write(record + '}}' + separator);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// impact

/** Per flag: enabled before, enabled after, turned on, turned off, variant changed (both on). */
export const COUNTERS = 5;

export interface ImpactExample {
  index: number;
  context: Record<string, unknown>;
  before: Decision;
  after: Decision;
}

export interface ImpactChunk {
  /** COUNTERS numbers per flag, flag after flag. */
  counts: number[];
  /** Up to `maxExamples` changed contexts per flag, in context order. */
  examples: ImpactExample[][];
}

/** A context changes for a flag when it turns on or off, or keeps it on with another variant. */
export function changed(before: Decision, after: Decision): boolean {
  return before.enabled !== after.enabled || (before.enabled && before.variant !== after.variant);
}

/**
 * Decides `flags` for contexts [start, end) twice — on `before` and on `after` (the change
 * request applied) — and counts. Each changed (context, flag) is also passed to `onChange`
 * (the NDJSON lines) when given.
 */
export function impactOfRange(
  before: CompiledSnapshot,
  after: CompiledSnapshot,
  environment: string,
  flags: readonly string[],
  source: ContextSource,
  offset: number,
  start: number,
  end: number,
  maxExamples: number,
  onChange?: (flag: number, example: ImpactExample) => void,
): ImpactChunk {
  const cursor = new ContextCursor(source, offset);
  const counts = new Array<number>(flags.length * COUNTERS).fill(0);
  const examples: ImpactExample[][] = flags.map(() => []);
  for (let i = start; i < end; i++) {
    const context = cursor.at(i);
    const reader = new ContextReader(context);
    for (let f = 0; f < flags.length; f++) {
      const name = flags[f]!;
      const was = decide(before, environment, name, reader);
      const now = decide(after, environment, name, reader);
      const at = f * COUNTERS;
      if (was.enabled) counts[at]!++;
      if (now.enabled) counts[at + 1]!++;
      if (!changed(was, now)) continue;
      if (!was.enabled && now.enabled) counts[at + 2]!++;
      else if (was.enabled && !now.enabled) counts[at + 3]!++;
      else counts[at + 4]!++;
      const example = { index: i, context, before: was, after: now };
      if (examples[f]!.length < maxExamples) examples[f]!.push(example);
      onChange?.(f, example);
    }
  }
  return { counts, examples };
}

/**
 * The flags whose answers the change request can change in `environment`: flags whose compiled
 * form differs (overlay shares unchanged ones by identity, so identity is the test), flags added
 * or removed, flags whose strategies there use a changed or removed segment, and — transitively —
 * flags depending on any of those. Every other flag answers the same before and after, so it is
 * not evaluated at all (for a 10-flag change on 100 flags: a tenth of the work).
 * In `after`'s response order, then flags only `before` has (archived by the request).
 */
export function affectedFlags(before: CompiledSnapshot, after: CompiledSnapshot, environment: string): string[] {
  const changedSegments = new Set<number>();
  for (const [id, segment] of before.segments) if (after.segments.get(id) !== segment) changedSegments.add(id);
  for (const [id, segment] of after.segments) if (before.segments.get(id) !== segment) changedSegments.add(id);
  const all = [...after.ordered, ...before.ordered.filter((flag) => !after.flags.has(flag.name))];
  const usesChangedSegment = (flag: CompiledFlag | undefined) =>
    flag !== undefined && changedSegments.size > 0 &&
    flag.environment(environment).strategies.some((strategy) => strategy.segmentIds.some((id) => changedSegments.has(id)));
  const affected = new Set<string>();
  for (const flag of all) {
    const was = before.flags.get(flag.name);
    const now = after.flags.get(flag.name);
    if (was !== now || usesChangedSegment(was) || usesChangedSegment(now)) affected.add(flag.name);
  }
  // Dependents, to a fixed point (a parent gaining a dependency of its own changes its children).
  let grew = affected.size > 0;
  while (grew) {
    grew = false;
    for (const flag of all) {
      if (affected.has(flag.name)) continue;
      const versions = [before.flags.get(flag.name), after.flags.get(flag.name)];
      if (versions.some((v) => v?.dependencies.some((d) => affected.has(d.feature)))) {
        affected.add(flag.name);
        grew = true;
      }
    }
  }
  return all.filter((flag) => affected.has(flag.name)).map((flag) => flag.name);
}
