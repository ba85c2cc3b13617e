export { compile, compileFlag, compileSegment, compareFlagOrder, overlay, } from './compile.js';
export { CompiledSnapshotCache } from './compiled-cache.js';
export { fromSharedJson, toSharedJson } from './shared-json.js';
export { ContextReader } from './context-reader.js';
export { cleanContext, combinationAt, combinationSpace, countCombinations, expandCombinations, } from './context.js';
export { decide, evaluateRange, evaluateSelection, getVariant, isEnabled, selectFlags, FlagEvaluation, } from './evaluate.js';
export { evaluate, evaluateToJson, evaluateToJsonChunks } from './playground.js';
export { advancedEntryObject, DISABLED_VARIANT_FLAG_OFF, DISABLED_VARIANT_FLAG_ON, playgroundFlagObject, } from './result-objects.js';
export { AdvancedEntryWriter, advancedEntryJson, appendAdvancedEntry, appendPlaygroundFlag, playgroundFeaturesJson, playgroundFlagJson, writePlaygroundFeatures, } from './serialize.js';
export { JsonChunkWriter } from './json-writer.js';
export { finishHash, mixBlock, normalizedHash, ROLLOUT_SEED, VARIANT_SEED } from './hash.js';
//# sourceMappingURL=index.js.map