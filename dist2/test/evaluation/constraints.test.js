/** Constraint operators (docs/rules.md §3.7, checklist §8), each through both evaluation paths. */
import t from 'tap';
import { constraint } from './fixtures/builders.js';
import { constraintResult } from './fixtures/single.js';
const holds = constraintResult;
t.test('IN / NOT_IN', async (t) => {
    t.equal(holds(constraint('userId', 'IN', { values: ['1', '2'] }), { userId: '2' }), true);
    t.equal(holds(constraint('userId', 'IN', { values: ['1', '2'] }), { userId: '3' }), false);
    t.equal(holds(constraint('userId', 'NOT_IN', { values: ['1', '2'] }), { userId: '3' }), true);
    t.equal(holds(constraint('userId', 'IN', { values: ['1'] }), {}), false, 'missing field: IN false');
    t.equal(holds(constraint('userId', 'NOT_IN', { values: ['1'] }), {}), true, 'missing field: NOT_IN true');
    t.equal(holds(constraint('userId', 'IN', { values: ['1'], inverted: true }), {}), true, 'missing + inverted IN');
    t.equal(holds(constraint('userId', 'IN', { values: [] }), { userId: '1' }), false, 'empty values: IN false');
    t.equal(holds(constraint('userId', 'NOT_IN', { values: [] }), { userId: '1' }), true, 'empty values: NOT_IN true');
    t.equal(holds(constraint('userId', 'IN', { values: ['  7 ', ''] }), { userId: '7' }), true, 'values trimmed');
    t.equal(holds(constraint('userId', 'IN', { values: ['Ab'] }), { userId: 'aB' }), false, 'case-sensitive');
    t.equal(holds(constraint('userId', 'IN', { values: ['Ab'], caseInsensitive: true }), { userId: 'aB' }), true);
    t.equal(holds(constraint('userId', 'NOT_IN', { values: ['Ab'], caseInsensitive: true }), { userId: 'AB' }), false);
});
t.test('field resolution (docs/rules.md §3.6)', async (t) => {
    const isEu = constraint('region', 'IN', { values: ['eu'] });
    t.equal(holds(isEu, { properties: { region: 'eu' } }), true, 'found in properties');
    t.equal(holds(isEu, { region: 'eu' }), true, 'custom field at top level');
    t.equal(holds(isEu, { region: 'us', properties: { region: 'eu' } }), false, 'top level shadows properties');
    t.equal(holds(isEu, { region: '', properties: { region: 'eu' } }), true, 'empty top level falls back');
    t.equal(holds(isEu, { region: 5, properties: { region: 'eu' } }), true, 'non-string top level is missing');
    t.equal(holds(isEu, { properties: { region: ['eu'] } }), false, 'non-string property is missing');
    t.equal(holds(isEu, { properties: 'region=eu' }), false, 'non-object properties ignored');
    const isDefaultEnv = constraint('environment', 'IN', { values: ['default'] });
    t.equal(holds(isDefaultEnv, {}), true, 'environment defaults to "default", not the evaluated environment');
    t.equal(holds(isDefaultEnv, { properties: { environment: 'prod' } }), true, 'the default shadows properties');
    t.equal(holds(isDefaultEnv, { environment: 'prod' }), false);
    const named = (name) => constraint(name, 'IN', { values: ['x'] });
    t.equal(holds(named('strategies'), { strategies: 'x' }), true, '"strategies" is an ordinary field');
    t.equal(holds(named('constructor'), {}), false, 'prototype names are not fields');
    t.equal(holds(named('__proto__'), JSON.parse('{"__proto__":"x"}')), true);
});
t.test('STR_STARTS_WITH / STR_ENDS_WITH / STR_CONTAINS', async (t) => {
    const ctx = { email: 'Someone@Example.com' };
    t.equal(holds(constraint('email', 'STR_STARTS_WITH', { values: ['x', 'Some'] }), ctx), true);
    t.equal(holds(constraint('email', 'STR_ENDS_WITH', { values: ['.com'] }), ctx), true);
    t.equal(holds(constraint('email', 'STR_CONTAINS', { values: ['@Ex'] }), ctx), true);
    t.equal(holds(constraint('email', 'STR_CONTAINS', { values: ['@ex'] }), ctx), false, 'case-sensitive');
    t.equal(holds(constraint('email', 'STR_CONTAINS', { values: ['@EX'], caseInsensitive: true }), ctx), true);
    t.equal(holds(constraint('email', 'STR_ENDS_WITH', { values: ['EXAMPLE.COM'], caseInsensitive: true }), ctx), true);
    t.equal(holds(constraint('email', 'STR_STARTS_WITH', { values: [] }), ctx), false, 'empty list: false');
    t.equal(holds(constraint('email', 'STR_STARTS_WITH', { values: ['S'] }), {}), false, 'missing: false');
    t.equal(holds(constraint('email', 'STR_STARTS_WITH', { values: ['S'], inverted: true }), {}), true, 'inverted missing');
    t.equal(holds(constraint('email', 'STR_CONTAINS', { values: ['  @Ex  '] }), ctx), true, 'values trimmed');
});
t.test('NUM_*', async (t) => {
    const num = (operator, value, field) => holds(constraint('n', operator, { value }), { properties: { n: field } });
    t.equal(num('NUM_EQ', '12', '12.0'), true);
    t.equal(num('NUM_EQ', '1000', '1e3'), true, 'Number() semantics: 1e3');
    t.equal(num('NUM_EQ', '5', ' 5 '), true, 'Number() semantics: whitespace');
    t.equal(num('NUM_GT', '12', '13'), true);
    t.equal(num('NUM_GT', '12', '12'), false);
    t.equal(num('NUM_GTE', '12', '12'), true);
    t.equal(num('NUM_LT', '12', '11.5'), true);
    t.equal(num('NUM_LTE', '12', '12'), true);
    t.equal(num('NUM_LTE', '12', '12.01'), false);
    t.equal(num('NUM_EQ', '12', 'twelve'), false, 'invalid context number');
    t.equal(num('NUM_EQ', 'twelve', '12'), false, 'invalid constraint number');
    t.equal(holds(constraint('n', 'NUM_EQ', { value: 'x', inverted: true }), { n: '1' }), true, 'inverted invalid');
    t.equal(holds(constraint('n', 'NUM_LT', { value: '1' }), {}), false, 'missing');
});
t.test('DATE_AFTER / DATE_BEFORE use currentTime whatever contextName says', async (t) => {
    const at = '2024-06-01T12:00:00.000Z';
    const date = (operator, value, context) => holds(constraint('userId', operator, { value }), context);
    t.equal(date('DATE_AFTER', '2024-01-01T00:00:00.000Z', { currentTime: at, userId: 'not a date' }), true);
    t.equal(date('DATE_AFTER', at, { currentTime: at }), false, 'strict');
    t.equal(date('DATE_BEFORE', at, { currentTime: at }), false, 'strict');
    t.equal(date('DATE_BEFORE', '2024-06-01T14:00:00.000+01:00', { currentTime: at }), true, 'offsets honoured');
    t.equal(date('DATE_AFTER', 'not a date', { currentTime: at }), false, 'unparseable value');
    t.equal(date('DATE_BEFORE', 'not a date', { currentTime: at }), false, 'unparseable value');
    t.equal(date('DATE_AFTER', '2000-01-01T00:00:00.000Z', {}), true, 'no currentTime: now');
    t.equal(date('DATE_BEFORE', '2999-01-01T00:00:00.000Z', {}), true, 'no currentTime: now');
    t.equal(date('DATE_AFTER', '2000-01-01T00:00:00.000Z', { properties: { currentTime: '1990-01-01T00:00:00Z' } }), true, 'only top-level currentTime');
});
t.test('SEMVER_*', async (t) => {
    const sv = (operator, value, version) => holds(constraint('version', operator, { value }), version === undefined ? {} : { version });
    t.equal(sv('SEMVER_EQ', '1.2.3', '1.2.3'), true);
    t.equal(sv('SEMVER_EQ', '1.2.3', '1.2.3+build.7'), true, 'build metadata ignored');
    t.equal(sv('SEMVER_GT', '1.2.3', '1.10.0'), true, 'numeric, not lexical');
    t.equal(sv('SEMVER_LT', '1.0.0', '1.0.0-beta'), true, 'pre-release sorts before release');
    t.equal(sv('SEMVER_LT', '1.0.0-beta.11', '1.0.0-beta.2'), true, 'numeric identifiers compare numerically');
    t.equal(sv('SEMVER_GTE', '2.0.0', '2.0.0'), true);
    t.equal(sv('SEMVER_LTE', '2.0.0', '2.0.1'), false);
    t.equal(sv('SEMVER_EQ', '2.0.0', ' 2.0.0 '), true, 'surrounding whitespace trimmed');
    // D2: client specification 14 treats a leading `v` as invalid (Unleash's playground accepts it).
    t.equal(sv('SEMVER_EQ', '2.0.0', 'v2.0.0'), false, 'v-prefixed context version invalid');
    t.equal(sv('SEMVER_EQ', 'v2.0.0', '2.0.0'), false, 'v-prefixed constraint version invalid');
    for (const invalid of ['=2.0.0', 'V2.0.0', '2.0', '01.0.0', 'not a version']) {
        t.equal(sv('SEMVER_EQ', '2.0.0', invalid), false, `${invalid} does not parse`);
        t.equal(sv('SEMVER_LTE', invalid, '2.0.0'), false, `${invalid} as constraint value`);
    }
    t.equal(sv('SEMVER_EQ', '1.0.0', undefined), false, 'missing');
    t.equal(holds(constraint('version', 'SEMVER_EQ', { value: '1.0.0', inverted: true }), {}), true, 'inverted missing');
});
t.test('REGEX: RE2 syntax, unanchored search', async (t) => {
    const rx = (value, userId, fields = {}) => holds(constraint('userId', 'REGEX', { value, ...fields }), { userId });
    t.equal(rx('cat', 'concatenate'), true, 'found anywhere');
    t.equal(rx('^cat$', 'concatenate'), false, 'anchors when asked');
    t.equal(rx('^CAT', 'cat'), false);
    t.equal(rx('^CAT', 'cat', { caseInsensitive: true }), true);
    t.equal(rx('(unclosed', 'anything'), false, 'invalid pattern');
    t.equal(rx('(?=a)', 'a'), false, 'lookahead is not RE2');
    t.equal(rx('(unclosed', 'anything', { inverted: true }), true, 'inversion applies to an invalid pattern');
    const started = process.hrtime.bigint();
    t.equal(rx('(a+)+$', 'a'.repeat(5000) + 'b'), false);
    t.ok(Number(process.hrtime.bigint() - started) / 1e6 < 1000, 'no catastrophic backtracking');
    t.equal(holds(constraint('userId', 'REGEX', { value: '.*' }), {}), false, 'missing field');
});
t.test('IN_CIDR: IPv4 and IPv6 (D2)', async (t) => {
    const cidr = (values, remoteAddress) => holds(constraint('remoteAddress', 'IN_CIDR', { values }), remoteAddress === undefined ? {} : { remoteAddress });
    t.equal(cidr(['10.0.0.0/8'], '10.1.2.3'), true);
    t.equal(cidr(['10.0.0.0/8'], '11.1.2.3'), false);
    t.equal(cidr(['10.1.2.3'], '10.1.2.3'), true, 'bare address');
    t.equal(cidr(['nonsense', '2001:db8::/32'], '2001:db8:1::5'), true, 'invalid entries skipped');
    t.equal(cidr(['2001:db8::/32'], '10.1.2.3'), false, 'families do not mix');
    t.equal(cidr(['10.0.0.0/8'], 'not an ip'), false);
    t.equal(cidr(['10.0.0.0/8'], '10.0.0.0/8'), false, 'a CIDR is not an address');
    t.equal(cidr(['10.0.0.0/8']), false, 'missing');
});
t.test('unknown operator: false, and inversion does not apply', async (t) => {
    t.equal(holds(constraint('userId', 'NOPE', { values: ['1'] }), { userId: '1' }), false);
    t.equal(holds(constraint('userId', 'NOPE', { values: ['1'], inverted: true }), { userId: '1' }), false);
    t.equal(holds(constraint('userId', 'constructor', { inverted: true }), { userId: '1' }), false);
});
//# sourceMappingURL=constraints.test.js.map