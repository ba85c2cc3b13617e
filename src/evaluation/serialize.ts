/**
 * Fast JSON for playground results: the same text `JSON.stringify` gives for the objects of
 * result-objects.ts, byte for byte (tests hold the two equal over generated configurations),
 * without building those objects.
 *
 * Performance: everything static in a result was rendered at compile time — a strategy's head
 * (name, id, title, disabled, parameters), its links, each constraint echo up to `"result":`,
 * segment heads, variant definition arrays and every picked-variant shape — so per evaluation only
 * booleans, the outcome and fragment choices are concatenated.
 *
 * Each `+` makes a rope piece, and copying a rope into bytes walks its pieces. The dynamic part
 * of a strategy report (outcome, picked variant, constraint results) and of a segment report is
 * therefore keyed by a number and its rendered text kept flat on the compiled strategy or segment:
 * a strategy sees few distinct outcomes, and each later hit is one piece instead of about four per
 * constraint. Bench (100 flags, 242 KiB of JSON, as UTF-8 chunks): 290 µs without the memos,
 * 250 µs with them. Memos are bounded per strategy/segment; past the bound, or with more
 * constraints than a key holds, the text is built again. (The larger cost of one huge string is
 * avoided by writing chunks: json-writer.ts.)
 */
import { Buffer } from 'node:buffer';
import type { CompiledConstraint } from './constraints.js';
import { EvaluationStatus, type FlagEvaluation, type SegmentEvaluation, type StrategyEvaluation } from './evaluate.js';
import { flat } from './json.js';
import type { JsonChunkWriter } from './json-writer.js';
import type { StrategyOutcome } from './types.js';
import type { CompiledFlag } from './compile.js';

const DISABLED_FLAG_OFF_JSON = '{"name":"disabled","enabled":false,"feature_enabled":false}';
const DISABLED_FLAG_ON_JSON = '{"feature_enabled":true,"featureEnabled":true,"name":"disabled","enabled":false}';
const UNEVALUATED_JSON = '{"enabled":"unknown","evaluationStatus":"unevaluated"}';
const INCOMPLETE_UNKNOWN_JSON = '{"enabled":"unknown","evaluationStatus":"incomplete"}';
const INCOMPLETE_FALSE_JSON = '{"enabled":false,"evaluationStatus":"incomplete"}';

/** Deprecated playground (E5; codes in docs/glossary.md) flag result, as JSON. */
export function playgroundFlagJson(evaluation: FlagEvaluation): string {
  const flag = evaluation.flag;
  return (
    flagHeadJson(evaluation) +
    ',"variants":' +
    evaluation.reportedVariants.definitionsJson +
    ',"name":' +
    flag.nameJson +
    ',"projectId":' +
    flag.projectJson +
    strategiesJson(evaluation)
  );
}

/**
 * Advanced playground (S1/E3) entry, as JSON. `contextJson` is the caller's JSON of the evaluated
 * combination (serialized once per combination, not once per flag).
 */
export function advancedEntryJson(evaluation: FlagEvaluation, contextJson: string): string {
  const flag = evaluation.flag;
  return (
    flagHeadJson(evaluation) +
    ',"context":' +
    contextJson +
    ',"variants":' +
    evaluation.reportedVariants.definitionsJson +
    ',"name":' +
    flag.nameJson +
    ',"environment":' +
    evaluation.environmentJson +
    ',"projectId":' +
    flag.projectJson +
    strategiesJson(evaluation)
  );
}

/** Distinct heads and tails remembered per flag; past it, further ones are encoded each time. */
const ENTRY_MEMO_LIMIT = 32;

interface RememberedTail {
  parts: string[];
  bytes: Buffer;
}

interface RememberedHead {
  bits: number;
  variantJson: string;
  bytes: Buffer;
}

interface EntryMemo {
  heads: RememberedHead[];
  tails: RememberedTail[];
}

/** Per compiled flag, so the memos live as long as the compiled snapshot (or preview) does. */
const entryMemos = new WeakMap<CompiledFlag, EntryMemo>();

/**
 * Writes advanced entries (the advanced playground worker): the same bytes as `advancedEntryJson`
 * (tests hold them equal).
 *
 * Performance: in bench:playground S2 (tester seed 3, 5 000 entries of ~1.6 KB per request) encoding each entry's
 * text was half of a worker's CPU — `Buffer.write` flattening the rope, then GC of the flat copy.
 * Yet across contexts a flag's entry differs mostly in its context: the part before it depends
 * on four values, and the part after it is a sequence of strings that are each remembered already
 * (compile-time fragments, the per-outcome memos below). So both parts are recognised by their
 * pieces — mostly the same string objects, so `===` is a pointer test, and equal text otherwise,
 * so a match is always right — and their UTF-8 bytes are reused; the caller encodes each
 * context once per combination. Measured on the worker's own work for bench:playground S2 (the tester's
 * seed-3 snapshot, one thread, 250 requests, alternating builds on the loaded machine): 11.2–12.8 ms of
 * CPU per request encoding every entry, 10.2–11.2 ms reusing the parts; in the server, with the
 * corked send and the single-buffer transfer (the playground's routes.ts and workers/playground.ts),
 * 30.6–36.4 ms of process CPU per bench:playground S2 request without them, 24.7–25.5 ms with them.
 */
export class AdvancedEntryWriter {
  private flag: CompiledFlag | undefined;
  private memo: EntryMemo = { heads: [], tails: [] };
  private readonly parts: string[] = [];

  constructor(private readonly writer: JsonChunkWriter) {}

  /** One entry; `context` is the UTF-8 of `,"context":` and the combination's JSON. */
  write(evaluation: FlagEvaluation, context: Uint8Array, first: boolean): void {
    if (evaluation.flag !== this.flag) {
      this.flag = evaluation.flag;
      let memo = entryMemos.get(this.flag);
      if (memo === undefined) {
        memo = { heads: [], tails: [] };
        entryMemos.set(this.flag, memo);
      }
      this.memo = memo;
    }
    if (!first) this.writer.writeBytes(COMMA);
    this.writer.writeBytes(this.head(evaluation));
    this.writer.writeBytes(context);
    this.writer.writeBytes(this.tail(evaluation));
  }

  private head(evaluation: FlagEvaluation): Buffer {
    const enabled = evaluation.isEnabled;
    const bits = (enabled ? 1 : 0) | (evaluation.environmentEnabled ? 2 : 0) | (evaluation.hasUnsatisfiedDependency ? 4 : 0);
    const variant = evaluation.variant;
    const variantJson = !enabled ? DISABLED_FLAG_OFF_JSON : variant !== null ? variant.flagVariantJson : DISABLED_FLAG_ON_JSON;
    const heads = this.memo.heads;
    for (let i = 0; i < heads.length; i++) {
      const head = heads[i]!;
      if (head.bits === bits && head.variantJson === variantJson) return head.bytes;
    }
    const bytes = Buffer.from(flagHeadJson(evaluation));
    if (heads.length < ENTRY_MEMO_LIMIT) heads.push({ bits, variantJson, bytes });
    return bytes;
  }

  private tail(evaluation: FlagEvaluation): Buffer {
    const parts = this.parts;
    parts.length = 0;
    advancedTailParts(evaluation, parts);
    const tails = this.memo.tails;
    for (let i = 0; i < tails.length; i++) {
      const tail = tails[i]!;
      if (samePieces(tail.parts, parts)) return tail.bytes;
    }
    let text = '';
    for (let i = 0; i < parts.length; i++) text += parts[i];
    const bytes = Buffer.from(text);
    if (tails.length < ENTRY_MEMO_LIMIT) tails.push({ parts: parts.slice(), bytes });
    return bytes;
  }
}

const COMMA = Buffer.from(',');

function samePieces(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The pieces of an advanced entry after its context — `,"variants":…` to the closing brace — in
 * order: what `advancedEntryJson` concatenates after `contextJson`, kept apart for comparison.
 */
function advancedTailParts(evaluation: FlagEvaluation, parts: string[]): void {
  const flag = evaluation.flag;
  parts.push(
    ',"variants":', evaluation.reportedVariants.definitionsJson, ',"name":', flag.nameJson,
    ',"environment":', evaluation.environmentJson, ',"projectId":', flag.projectJson,
    ',"strategies":{"result":', outcomeJson(evaluation.result), ',"data":[',
  );
  const strategies = evaluation.strategies;
  for (let i = 0; i < strategies.length; i++) {
    if (i > 0) parts.push(',');
    const strategy = strategies[i]!;
    parts.push(strategyBodyJson(strategy));
    const segments = strategy.segments;
    if (segments.length === 0) {
      parts.push(strategy.strategy.noSegmentsTailJson);
      continue;
    }
    parts.push(',"segments":[');
    for (let j = 0; j < segments.length; j++) {
      if (j > 0) parts.push(',');
      parts.push(segmentJson(segments[j]!));
    }
    parts.push(']', strategy.strategy.reportTailJson);
  }
  parts.push(']}}');
}

/** The E5 `features` array written as UTF-8 bytes (see json-writer.ts for why bytes). */
export function writePlaygroundFeatures(writer: JsonChunkWriter, evaluations: readonly FlagEvaluation[]): void {
  writer.write('[');
  for (let i = 0; i < evaluations.length; i++) {
    writer.write(i > 0 ? ',' + playgroundFlagJson(evaluations[i]!) : playgroundFlagJson(evaluations[i]!));
  }
  writer.write(']');
}

/** The E5 `features` array for a list of evaluations, as one string. */
export function playgroundFeaturesJson(evaluations: readonly FlagEvaluation[]): string {
  let json = '[';
  for (let i = 0; i < evaluations.length; i++) {
    if (i > 0) json += ',';
    json += playgroundFlagJson(evaluations[i]!);
  }
  return json + ']';
}

/** `{"isEnabled":…,"isEnabledInCurrentEnvironment":…,"hasUnsatisfiedDependency":…,"variant":…` */
function flagHeadJson(evaluation: FlagEvaluation): string {
  const enabled = evaluation.isEnabled;
  const variant = evaluation.variant;
  return (
    '{"isEnabled":' +
    enabled +
    ',"isEnabledInCurrentEnvironment":' +
    evaluation.environmentEnabled +
    ',"hasUnsatisfiedDependency":' +
    evaluation.hasUnsatisfiedDependency +
    ',"variant":' +
    (!enabled ? DISABLED_FLAG_OFF_JSON : variant !== null ? variant.flagVariantJson : DISABLED_FLAG_ON_JSON)
  );
}

/** `,"strategies":{"result":…,"data":[…]}}` — closes the flag object. */
function strategiesJson(evaluation: FlagEvaluation): string {
  let json = ',"strategies":{"result":' + outcomeJson(evaluation.result) + ',"data":[';
  const strategies = evaluation.strategies;
  for (let i = 0; i < strategies.length; i++) {
    if (i > 0) json += ',';
    json += strategyJson(strategies[i]!);
  }
  return json + ']}}';
}

/** Memo entries per strategy or segment; 32 outcome shapes cover nearly every real strategy. */
const REPORT_MEMO_LIMIT = 32;
/** Keys pack one bit per constraint result below the outcome code; 2^24 × 5 × variants < 2^53. */
const MAX_MEMO_CONSTRAINTS = 24;

function strategyJson(evaluation: StrategyEvaluation): string {
  const strategy = evaluation.strategy;
  const body = strategyBodyJson(evaluation);
  const segments = evaluation.segments;
  if (segments.length === 0) return body + strategy.noSegmentsTailJson;
  let json = body + ',"segments":[';
  for (let i = 0; i < segments.length; i++) {
    if (i > 0) json += ',';
    json += segmentJson(segments[i]!);
  }
  return json + ']' + strategy.reportTailJson;
}

/** `{"name":…,…,"result":{…},"constraints":[…]` — remembered per outcome shape. */
function strategyBodyJson(evaluation: StrategyEvaluation): string {
  const strategy = evaluation.strategy;
  const key = strategyMemoKey(evaluation);
  const memo = strategy.reportMemo;
  let body = key < 0 ? undefined : memo.get(key);
  if (body === undefined) {
    body =
      strategy.reportHeadJson +
      strategyStatusJson(evaluation) +
      ',"constraints":' +
      constraintsJson(strategy.constraints, evaluation.constraintResults);
    if (key >= 0 && memo.size < REPORT_MEMO_LIMIT) memo.set(key, flat(body));
  }
  return body;
}

/** Constraint result bits, then the status code, then the picked variant; -1 when too many constraints. */
function strategyMemoKey(evaluation: StrategyEvaluation): number {
  const results = evaluation.constraintResults;
  if (results.length > MAX_MEMO_CONSTRAINTS) return -1;
  const status =
    evaluation.status === EvaluationStatus.Unevaluated
      ? 0
      : evaluation.status === EvaluationStatus.Incomplete
        ? evaluation.enabled === 'unknown' ? 1 : 2
        : evaluation.enabled === true ? 3 : 4;
  const variant = evaluation.variant === null ? 0 : evaluation.variant.index + 1;
  return (variant * 5 + status) * 2 ** results.length + resultBits(results);
}

function resultBits(results: readonly boolean[]): number {
  let bits = 0;
  for (let i = 0; i < results.length; i++) if (results[i]) bits |= 1 << i;
  return bits;
}

function strategyStatusJson(evaluation: StrategyEvaluation): string {
  switch (evaluation.status) {
    case EvaluationStatus.Unevaluated:
      return UNEVALUATED_JSON;
    case EvaluationStatus.Incomplete:
      return evaluation.enabled === 'unknown' ? INCOMPLETE_UNKNOWN_JSON : INCOMPLETE_FALSE_JSON;
    default: {
      const head = '{"enabled":' + evaluation.enabled + ',"evaluationStatus":"complete"';
      const variant = evaluation.variant;
      const variants = evaluation.strategy.variants;
      if (variant === null || variants === null) return head + '}';
      return head + ',"variant":' + variant.strategyResultJson + ',"variants":' + variants.definitionsJson + '}';
    }
  }
}

/** A segment report is fully determined by its constraint results: remembered per result bits. */
function segmentJson(evaluation: SegmentEvaluation): string {
  const segment = evaluation.segment;
  const results = evaluation.constraintResults;
  const key = results.length > MAX_MEMO_CONSTRAINTS ? -1 : resultBits(results);
  const memo = segment.reportMemo;
  let json = key < 0 ? undefined : memo.get(key);
  if (json === undefined) {
    json =
      segment.reportHeadJson + evaluation.result + ',"constraints":' + constraintsJson(segment.constraints, results) + '}';
    if (key >= 0 && memo.size < REPORT_MEMO_LIMIT) memo.set(key, flat(json));
  }
  return json;
}

function constraintsJson(constraints: readonly CompiledConstraint[], results: readonly boolean[]): string {
  if (constraints.length === 0) return '[]';
  let json = '[';
  for (let i = 0; i < constraints.length; i++) {
    if (i > 0) json += ',';
    json += constraints[i]!.echoJsonPrefix + results[i] + '}';
  }
  return json + ']';
}

function outcomeJson(outcome: StrategyOutcome): string {
  return outcome === 'unknown' ? '"unknown"' : outcome ? 'true' : 'false';
}
