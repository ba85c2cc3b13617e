/** Flag off for this context (docs/rules.md §3.10 step 5, first case). */
export const DISABLED_VARIANT_FLAG_OFF = Object.freeze({
    name: 'disabled',
    enabled: false,
    feature_enabled: false,
});
/** Flag on but no variant picked (last case). */
export const DISABLED_VARIANT_FLAG_ON = Object.freeze({
    feature_enabled: true,
    featureEnabled: true,
    name: 'disabled',
    enabled: false,
});
/** Deprecated playground (E5) flag result. */
export function playgroundFlagObject(evaluation) {
    return {
        isEnabled: evaluation.isEnabled,
        isEnabledInCurrentEnvironment: evaluation.environmentEnabled,
        hasUnsatisfiedDependency: evaluation.hasUnsatisfiedDependency,
        variant: flagVariantObject(evaluation),
        variants: evaluation.reportedVariants.definitions,
        name: evaluation.flag.name,
        projectId: evaluation.flag.project,
        strategies: { result: evaluation.result, data: evaluation.strategies.map(strategyObject) },
    };
}
/** Advanced playground (S1/E3) entry for one flag, environment and context combination. */
export function advancedEntryObject(evaluation, context) {
    return {
        isEnabled: evaluation.isEnabled,
        isEnabledInCurrentEnvironment: evaluation.environmentEnabled,
        hasUnsatisfiedDependency: evaluation.hasUnsatisfiedDependency,
        variant: flagVariantObject(evaluation),
        context,
        variants: evaluation.reportedVariants.definitions,
        name: evaluation.flag.name,
        environment: evaluation.environment,
        projectId: evaluation.flag.project,
        strategies: { result: evaluation.result, data: evaluation.strategies.map(strategyObject) },
    };
}
function flagVariantObject(evaluation) {
    if (!evaluation.isEnabled)
        return DISABLED_VARIANT_FLAG_OFF;
    return evaluation.variant?.flagVariant ?? DISABLED_VARIANT_FLAG_ON;
}
function strategyObject(evaluation) {
    const strategy = evaluation.strategy;
    return {
        ...strategy.reportHead,
        result: strategyStatusObject(evaluation),
        constraints: constraintObjects(strategy.constraints, evaluation.constraintResults),
        segments: evaluation.segments.map(segmentObject),
        links: strategy.links,
    };
}
function strategyStatusObject(evaluation) {
    switch (evaluation.status) {
        case 2 /* EvaluationStatus.Unevaluated */:
            return { enabled: 'unknown', evaluationStatus: 'unevaluated' };
        case 1 /* EvaluationStatus.Incomplete */:
            return { enabled: evaluation.enabled, evaluationStatus: 'incomplete' };
        default: {
            const enabled = evaluation.enabled;
            const variant = evaluation.variant;
            if (variant === null || evaluation.strategy.variants === null)
                return { enabled, evaluationStatus: 'complete' };
            return {
                enabled,
                evaluationStatus: 'complete',
                variant: variant.strategyResult,
                variants: evaluation.strategy.variants.definitions,
            };
        }
    }
}
function segmentObject(evaluation) {
    const segment = evaluation.segment;
    return {
        name: segment.name,
        id: segment.id,
        result: evaluation.result,
        constraints: constraintObjects(segment.constraints, evaluation.constraintResults),
    };
}
function constraintObjects(constraints, results) {
    return constraints.map((constraint, i) => ({ ...constraint.echo, result: results[i] }));
}
//# sourceMappingURL=result-objects.js.map