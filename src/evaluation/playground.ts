/**
 * One-call entry points for the deprecated playground (E5, docs/glossary.md): objects for callers that want data,
 * JSON for callers that stream it.
 */
import type { CompiledSnapshot } from './compile.js';
import { evaluateSelection, selectFlags } from './evaluate.js';
import { playgroundFlagObject } from './result-objects.js';
import { JsonChunkWriter } from './json-writer.js';
import { playgroundFeaturesJson, writePlaygroundFeatures } from './serialize.js';
import type { PlaygroundFlagResult } from './types.js';

/**
 * Every selected flag (projects undefined = all) evaluated in `environment` for `context`, as
 * result objects in response order (docs/rules.md §3.10–§3.11).
 */
export function evaluate(
  compiled: CompiledSnapshot,
  environment: string,
  context: unknown,
  projects?: readonly string[],
): PlaygroundFlagResult[] {
  return evaluateSelection(compiled, selectFlags(compiled, projects), environment, context).map(playgroundFlagObject);
}

/** The same as `evaluate`, as the UTF-8 JSON of the `features` array, in chunks. */
export function evaluateToJsonChunks(
  compiled: CompiledSnapshot,
  environment: string,
  context: unknown,
  projects?: readonly string[],
): Buffer[] {
  const writer = new JsonChunkWriter();
  writePlaygroundFeatures(writer, evaluateSelection(compiled, selectFlags(compiled, projects), environment, context));
  return writer.chunksView();
}

/** The same as `evaluate`, as the JSON text of the `features` array. */
export function evaluateToJson(
  compiled: CompiledSnapshot,
  environment: string,
  context: unknown,
  projects?: readonly string[],
): string {
  return playgroundFeaturesJson(evaluateSelection(compiled, selectFlags(compiled, projects), environment, context));
}
