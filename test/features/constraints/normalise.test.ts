import t from 'tap';
import { readFileSync } from 'node:fs';
import { ApiError } from '../../../src/errors.js';
import {
  assertSegmentValuesLimit, assertStrategyConstraintLimits, normaliseConstraint, normaliseConstraints,
} from '../../../src/features/constraints/index.js';

function failure(fn: () => unknown): { status: number; message: string; details: unknown } {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return { status: err.statusCode, message: err.message, details: err.details };
    throw err;
  }
  throw new Error('expected a failure');
}

const SCHEMA_MESSAGE =
  'Request validation failed: your request body or params contain invalid data. Refer to the `details` list for more information.';
const HANDLER_PREFIX = 'Request validation failed: your request body or params contain invalid data: ';

t.test('normalised form: JSONB key order, values defaulted, optional keys only when sent', async (t) => {
  const out = normaliseConstraint({ caseInsensitive: false, contextName: 'region', inverted: false, operator: 'IN', values: ['eu'] });
  t.same(Object.keys(out), ['values', 'inverted', 'operator', 'contextName', 'caseInsensitive']);
  t.same(out, { values: ['eu'], inverted: false, operator: 'IN', contextName: 'region', caseInsensitive: false });
  const num = normaliseConstraint({ contextName: 'n', operator: 'NUM_GT', value: '5' });
  t.same(Object.keys(num), ['value', 'values', 'operator', 'contextName']);
  t.same(num.values, []);
  t.same(normaliseConstraints(undefined), []);
  t.same(normaliseConstraints([]), []);
});

t.test('single-value operators need a non-empty value', async (t) => {
  for (const operator of ['NUM_EQ', 'DATE_AFTER', 'SEMVER_EQ']) {
    for (const value of [undefined, '']) {
      const f = failure(() => normaliseConstraint({ contextName: 'x', operator, value }));
      t.equal(f.status, 400);
      t.equal(f.message, `${HANDLER_PREFIX}Single-value constraint operators require a non-empty value.`);
      t.same(f.details, [{ message: 'Single-value constraint operators require a non-empty value.' }]);
    }
  }
});

t.test('numbers, dates, semver, strings, regex', async (t) => {
  t.ok(normaliseConstraint({ contextName: 'x', operator: 'NUM_LT', value: '1e3' }));
  t.ok(normaliseConstraint({ contextName: 'x', operator: 'NUM_LT', value: '-1.5' }));
  const nan = failure(() => normaliseConstraint({ contextName: 'x', operator: 'NUM_LT', value: 'abc' }));
  t.equal(nan.message, SCHEMA_MESSAGE);
  t.same(nan.details, [{ message: '"value" must be a number. You provided "abc".' }]);
  t.ok(normaliseConstraint({ contextName: 'currentTime', operator: 'DATE_AFTER', value: '2024-01-01T00:00:00.000Z' }));
  t.same(failure(() => normaliseConstraint({ contextName: 'x', operator: 'DATE_BEFORE', value: 'not a date' })).details, [
    { message: '"value" must be a valid date. You provided "not a date".' },
  ]);
  t.ok(normaliseConstraint({ contextName: 'v', operator: 'SEMVER_GTE', value: '1.2.3-beta.1' }));
  for (const bad of ['v1.2.3', ' 1.2.3', '1.2', '=1.2.3']) {
    t.equal(
      failure(() => normaliseConstraint({ contextName: 'v', operator: 'SEMVER_EQ', value: bad })).message,
      `${HANDLER_PREFIX}the provided value is not a valid semver format. The value provided was: ${bad}`,
    );
  }
  const empty = failure(() => normaliseConstraint({ contextName: 'x', operator: 'IN', values: [] }));
  t.same(empty.details, [{ message: '"value" must contain at least 1 items. You provided [].' }]);
  t.same(failure(() => normaliseConstraint({ contextName: 'x', operator: 'STR_CONTAINS' })).details, [
    { message: '"value" must contain at least 1 items. You provided [].' },
  ]);
  t.same(failure(() => normaliseConstraint({ contextName: 'x', operator: 'IN', values: ['a', ''] })).details, [
    { message: '"values[1]" is not allowed to be empty.' },
  ]);
  const long = 'x'.repeat(101);
  t.same(failure(() => normaliseConstraint({ contextName: 'x', operator: 'IN', values: [long] })).details, [
    { message: `"values[0]" length must be less than or equal to 100 characters long. You provided "${long}".` },
  ]);
  t.ok(normaliseConstraint({ contextName: 'x', operator: 'IN', values: ['x'.repeat(100)] }));
  t.ok(normaliseConstraint({ contextName: 'x', operator: 'REGEX', value: '^a+b?$' }));
  t.match(failure(() => normaliseConstraint({ contextName: 'x', operator: 'REGEX', value: '(a' })).message, /not a valid regular expression/);
  t.match(failure(() => normaliseConstraint({ contextName: 'x', operator: 'REGEX', value: 'a', inverted: true })).message, /cannot be inverted/);
  // Lookahead is not RE2 syntax.
  t.equal(failure(() => normaliseConstraint({ contextName: 'x', operator: 'REGEX', value: 'a(?=b)' })).status, 400);
});

t.test('shape failures and label prefixes', async (t) => {
  t.same(failure(() => normaliseConstraint({ contextName: 'x', operator: 'NOPE', values: ['a'] })).details, [
    { message: '"operator" must be one of [NOT_IN, IN, STR_ENDS_WITH, STR_STARTS_WITH, STR_CONTAINS, NUM_EQ, NUM_GT, NUM_GTE, NUM_LT, NUM_LTE, DATE_AFTER, DATE_BEFORE, SEMVER_EQ, SEMVER_GT, SEMVER_LT, SEMVER_GTE, SEMVER_LTE, REGEX]. You provided "NOPE".' },
  ]);
  t.same(
    failure(() => normaliseConstraints([{ contextName: 'a', operator: 'IN', values: ['a'] }, { contextName: 'b', operator: 'IN', values: [''] }], { labelPrefix: 'constraints' })).details,
    [{ message: '"constraints[1].values[0]" is not allowed to be empty.' }],
  );
});

t.test('limits', async (t) => {
  const many = Array.from({ length: 31 }, () => ({ values: ['a'], operator: 'IN', contextName: 'x' }));
  const f = failure(() => assertStrategyConstraintLimits(many));
  t.equal(f.message, "Failed to create constraints. You can't create more than the established limit of 30.");
  assertStrategyConstraintLimits(many.slice(0, 30));
  const wide = [{ values: Array.from({ length: 251 }, (_, i) => String(i)), operator: 'IN', contextName: 'userId' }];
  t.equal(failure(() => assertStrategyConstraintLimits(wide)).message,
    "Failed to create constraint values for userId. You can't create more than the established limit of 250.");
  const segment = Array.from({ length: 5 }, () => ({ values: Array.from({ length: 201 }, (_, i) => String(i)), operator: 'IN', contextName: 'x' }));
  t.equal(failure(() => assertSegmentValuesLimit(segment)).message, `${HANDLER_PREFIX}Segments may not have more than 1000 values`);
  assertSegmentValuesLimit(segment.slice(0, 4));
});

t.test('semver values: build metadata is accepted, prefixes and spaces are not [reference fixture]', async (t) => {
  const fixture = JSON.parse(readFileSync(new URL('../../../../test/fixtures/difftest/semver-constraint-values.json', import.meta.url), 'utf8')) as {
    accepted: string[]; refused: string[];
  };
  for (const value of fixture.accepted) {
    t.doesNotThrow(() => normaliseConstraint({ contextName: 'version', operator: 'SEMVER_EQ', value }), value);
  }
  for (const value of fixture.refused) {
    t.equal(failure(() => normaliseConstraint({ contextName: 'version', operator: 'SEMVER_EQ', value })).status, 400, JSON.stringify(value));
  }
});
