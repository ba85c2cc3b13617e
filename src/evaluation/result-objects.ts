/**
 * Result objects of the playground (docs/rules.md §3.8–§3.12), built from evaluations. Key order is
 * Unleash's; serialize.ts writes the same JSON without building these objects, and the tests hold
 * the two to byte equality. Static parts (parameters, echoes, variant definitions) are shared.
 */
import type { CompiledConstraint } from './constraints.js';
import { EvaluationStatus, type FlagEvaluation, type SegmentEvaluation, type StrategyEvaluation } from './evaluate.js';
import type {
  AdvancedPlaygroundEntry,
  PlaygroundConstraintResult,
  PlaygroundFlagResult,
  PlaygroundSegmentResult,
  PlaygroundStrategyResult,
  PlaygroundStrategyResultStatus,
  PlaygroundVariant,
} from './types.js';

/** Flag off for this context (docs/rules.md §3.10 step 5, first case). */
export const DISABLED_VARIANT_FLAG_OFF: Readonly<PlaygroundVariant> = Object.freeze({
  name: 'disabled',
  enabled: false,
  feature_enabled: false,
});

/** Flag on but no variant picked (last case). */
export const DISABLED_VARIANT_FLAG_ON: Readonly<PlaygroundVariant> = Object.freeze({
  feature_enabled: true,
  featureEnabled: true,
  name: 'disabled',
  enabled: false,
});

/** Deprecated playground (E5; codes in docs/glossary.md) flag result. */
export function playgroundFlagObject(evaluation: FlagEvaluation): PlaygroundFlagResult {
  return {
    isEnabled: evaluation.isEnabled,
    isEnabledInCurrentEnvironment: evaluation.environmentEnabled,
    hasUnsatisfiedDependency: evaluation.hasUnsatisfiedDependency,
    variant: flagVariantObject(evaluation),
    variants: evaluation.reportedVariants.definitions as unknown[],
    name: evaluation.flag.name,
    projectId: evaluation.flag.project,
    strategies: { result: evaluation.result, data: evaluation.strategies.map(strategyObject) },
  };
}

/** Advanced playground (S1/E3) entry for one flag, environment and context combination. */
export function advancedEntryObject(evaluation: FlagEvaluation, context: unknown): AdvancedPlaygroundEntry {
  return {
    isEnabled: evaluation.isEnabled,
    isEnabledInCurrentEnvironment: evaluation.environmentEnabled,
    hasUnsatisfiedDependency: evaluation.hasUnsatisfiedDependency,
    variant: flagVariantObject(evaluation),
    context,
    variants: evaluation.reportedVariants.definitions as unknown[],
    name: evaluation.flag.name,
    environment: evaluation.environment,
    projectId: evaluation.flag.project,
    strategies: { result: evaluation.result, data: evaluation.strategies.map(strategyObject) },
  };
}

function flagVariantObject(evaluation: FlagEvaluation): PlaygroundVariant {
  if (!evaluation.isEnabled) return DISABLED_VARIANT_FLAG_OFF;
  return evaluation.variant?.flagVariant ?? DISABLED_VARIANT_FLAG_ON;
}

function strategyObject(evaluation: StrategyEvaluation): PlaygroundStrategyResult {
  const strategy = evaluation.strategy;
  return {
    ...(strategy.reportHead as Omit<PlaygroundStrategyResult, 'result' | 'constraints' | 'segments' | 'links'>),
    result: strategyStatusObject(evaluation),
    constraints: constraintObjects(strategy.constraints, evaluation.constraintResults),
    segments: evaluation.segments.map(segmentObject),
    links: strategy.links,
  };
}

function strategyStatusObject(evaluation: StrategyEvaluation): PlaygroundStrategyResultStatus {
  switch (evaluation.status) {
    case EvaluationStatus.Unevaluated:
      return { enabled: 'unknown', evaluationStatus: 'unevaluated' };
    case EvaluationStatus.Incomplete:
      return { enabled: evaluation.enabled as 'unknown' | false, evaluationStatus: 'incomplete' };
    default: {
      const enabled = evaluation.enabled as boolean;
      const variant = evaluation.variant;
      if (variant === null || evaluation.strategy.variants === null) return { enabled, evaluationStatus: 'complete' };
      return {
        enabled,
        evaluationStatus: 'complete',
        variant: variant.strategyResult,
        variants: evaluation.strategy.variants.definitions as unknown[],
      };
    }
  }
}

function segmentObject(evaluation: SegmentEvaluation): PlaygroundSegmentResult {
  const segment = evaluation.segment;
  return {
    name: segment.name,
    id: segment.id,
    result: evaluation.result,
    constraints: constraintObjects(segment.constraints, evaluation.constraintResults),
  };
}

function constraintObjects(
  constraints: readonly CompiledConstraint[],
  results: readonly boolean[],
): PlaygroundConstraintResult[] {
  return constraints.map((constraint, i) => ({ ...constraint.echo, result: results[i]! }));
}
