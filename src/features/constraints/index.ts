export {
  CONSTRAINT_LIMITS, CONSTRAINT_OPERATORS, REGEX_NOT_INVERTIBLE, SINGLE_VALUE_REQUIRED,
  assertSegmentValuesLimit, assertStrategyConstraintLimits, countConstraintValues, normaliseConstraint,
  normaliseConstraints, type ConstraintOperator, type NormaliseOptions,
} from './normalise.js';
export { ConstraintInput, ConstraintOutput } from './schemas.js';
export { assertLegalValues } from './legal-values.js';
