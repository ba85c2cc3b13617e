/**
 * The evaluation engine: pure functions from stored configuration and a context to playground
 * results and SDK decisions. No I/O; plain data in, plain data (or JSON text) out.
 */
export type * from './types.js';
export {
  compile,
  compileFlag,
  compileSegment,
  compareFlagOrder,
  mergeChanges,
  overlay,
  type CompiledFlag,
  type CompiledFlagEnvironment,
  type CompiledSegment,
  type CompiledSnapshot,
  type SnapshotChanges,
} from './compile.js';
export { fromSharedJson, sharedText, toSharedJson } from './shared-json.js';
export { catchUp, RevisionChain, type Caught, type ShippedRevision, type Step } from './revision-chain.js';
export { ContextReader, type SdkRules } from './context-reader.js';
export {
  cleanContext,
  combinationAt,
  combinationSpace,
  type CleanedContext,
  type CombinationSpace,
} from './context.js';
export {
  constantDecision,
  decide,
  type SdkDecision,
  evaluateRange,
  evaluateSelection,
  getVariant,
  isEnabled,
  selectFlags,
  FlagEvaluation,
  type FlagSelection,
  type SegmentEvaluation,
  type StrategyEvaluation,
} from './evaluate.js';
export { evaluate, evaluateToJson, evaluateToJsonChunks } from './playground.js';
export {
  advancedEntryObject,
  DISABLED_VARIANT_FLAG_OFF,
  DISABLED_VARIANT_FLAG_ON,
  playgroundFlagObject,
} from './result-objects.js';
export {
  AdvancedEntryWriter,
  advancedEntryJson,
  playgroundFeaturesJson,
  playgroundFlagJson,
  writePlaygroundFeatures,
} from './serialize.js';
export type { CompiledVariant, CompiledVariantSet } from './variants.js';
export { JsonChunkWriter } from './json-writer.js';
export { finishHash, mixBlock, normalizedHash, ROLLOUT_SEED, VARIANT_SEED } from './hash.js';
