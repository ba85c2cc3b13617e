export { CONSTRAINT_LIMITS, CONSTRAINT_OPERATORS, REGEX_NOT_INVERTIBLE, SINGLE_VALUE_REQUIRED, assertSegmentValuesLimit, assertStrategyConstraintLimits, countConstraintValues, normaliseConstraint, normaliseConstraints, } from './normalise.js';
export { ConstraintInput, ConstraintOutput } from './schemas.js';
//# sourceMappingURL=index.js.map