import { validationError } from '../../errors.js';

/** Operators that compare one value (`value`); the others list theirs (`values`). */
const SINGLE_VALUE = /^(NUM_|DATE_|SEMVER_)/;

/**
 * A constraint on a context field that has legal values must use only those (Unleash 8.2, measured:
 * strategies and `POST /api/admin/constraints/validate`); a field without legal values, or that
 * does not exist, takes any.
 */
export function assertLegalValues(
  constraint: { operator: string; value?: string | null; values?: readonly string[] | null }, legal: readonly string[],
): void {
  if (legal.length === 0) return;
  const allowed = new Set(legal);
  if (SINGLE_VALUE.test(constraint.operator)) {
    const value = constraint.value ?? '';
    if (!allowed.has(value)) throw validationError(`${value} is not specified as a legal value on this context field`);
  } else if ((constraint.values ?? []).some((v) => !allowed.has(v))) {
    throw validationError('input values are not specified as a legal value on this context field');
  }
}
