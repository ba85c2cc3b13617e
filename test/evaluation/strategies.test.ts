/** Strategy activation and reporting (docs/rules.md §3.8), through the playground and SDK paths. */
import t from 'tap';
import { compile, isEnabled, normalizedHash } from '../../src/evaluation/index.js';
import { constraint, ENV, flag, strategy } from './fixtures/builders.js';
import { flagResult } from './fixtures/single.js';

const single = (name: string, parameters: Record<string, string>, context: unknown) =>
  flagResult([strategy(name, { parameters })], context).strategies.data[0]!.result;

const sdk = (name: string, parameters: Record<string, string>, context: unknown) =>
  isEnabled(compile({ flags: [flag({ name: 'f', strategies: [strategy(name, { parameters })] })], segments: [] }), ENV, 'f', context);

t.test('flexibleRollout', async (t) => {
  const rollout = (parameters: Record<string, string>, context: unknown) => single('flexibleRollout', parameters, context).enabled;
  t.equal(rollout({ rollout: '0', stickiness: 'default', groupId: 'g' }, { userId: '1' }), false, 'rollout 0');
  t.equal(rollout({ rollout: '100', stickiness: 'default', groupId: 'g' }, {}), true, '100 % without ids');
  t.equal(rollout({ rollout: 'abc', stickiness: 'default', groupId: 'g' }, { userId: '1' }), false, 'NaN rollout');
  // groupA:user1 hashes to 62 (docs/rules.md §3.9).
  t.equal(rollout({ rollout: '62', stickiness: 'userId', groupId: 'groupA' }, { userId: 'user1' }), true);
  t.equal(rollout({ rollout: '61', stickiness: 'userId', groupId: 'groupA' }, { userId: 'user1' }), false);
  t.equal(rollout({ rollout: '62', stickiness: 'default', groupId: 'groupA' }, { sessionId: 'user1' }), true, 'default: sessionId');
  t.equal(rollout({ rollout: '100', stickiness: 'tenant', groupId: 'g' }, {}), false, 'custom stickiness missing');
  t.equal(rollout({ rollout: '62', stickiness: 'tenant', groupId: 'groupA' }, { properties: { tenant: 'user1' } }), true, 'custom stickiness resolved');
  t.equal(rollout({ rollout: '62', stickiness: 'userId', groupId: '' }, { userId: 'user1', featureToggle: 'groupA' }), true, 'featureToggle fallback');
  const bucket = normalizedHash('user1', '', 100, 0);
  t.equal(rollout({ rollout: String(bucket), stickiness: 'userId' }, { userId: 'user1' }), true, 'no groupId: ""');
  t.equal(rollout({ rollout: String(bucket - 1), stickiness: 'userId' }, { userId: 'user1' }), false);
  t.equal(sdk('flexibleRollout', { rollout: '100', stickiness: 'tenant' }, {}), false, 'SDK agrees');
});

t.test('gradual rollouts and userWithId', async (t) => {
  const user1 = normalizedHash('user1', 'groupA', 100, 0);
  t.equal(single('gradualRolloutUserId', { percentage: String(user1), groupId: 'groupA' }, { userId: 'user1' }).enabled, true);
  t.equal(single('gradualRolloutUserId', { percentage: String(user1 - 1), groupId: 'groupA' }, { userId: 'user1' }).enabled, false);
  t.equal(single('gradualRolloutUserId', { percentage: '100', groupId: 'groupA' }, {}).enabled, false, 'needs userId');
  t.equal(single('gradualRolloutUserId', { percentage: '100', groupId: 'g' }, { properties: { userId: 'u' } }).enabled, false, 'top-level userId only');
  t.equal(single('gradualRolloutSessionId', { percentage: String(user1), groupId: 'groupA' }, { sessionId: 'user1' }).enabled, true);
  t.equal(single('gradualRolloutRandom', { percentage: '100' }, {}).enabled, true);
  t.equal(single('gradualRolloutRandom', { percentage: '0' }, {}).enabled, false);
  t.equal(single('userWithId', { userIds: 'a, b ,c' }, { userId: 'b' }).enabled, true, 'userWithId implemented (D2), entries trimmed');
  t.equal(single('userWithId', { userIds: 'a, b ,c' }, { userId: 'd' }).enabled, false);
  t.equal(sdk('userWithId', { userIds: 'a,b' }, { userId: 'a' }), true);
});

t.test('remoteAddress', async (t) => {
  const remote = (IPs: string, remoteAddress?: string) =>
    single('remoteAddress', { IPs }, remoteAddress === undefined ? {} : { remoteAddress }).enabled;
  t.equal(remote('10.0.0.1, 10.0.0.2', '10.0.0.2'), true, 'exact entry, spaces ignored');
  t.equal(remote('192.168.0.0/16', '192.168.4.4'), true, 'IPv4 CIDR');
  t.equal(remote('192.168.0.0/16', '192.169.4.4'), false);
  t.equal(remote('bad, 10.0.0.1', '10.0.0.1'), true, 'invalid entries harmless');
  t.equal(remote('2001:db8::1', '2001:db8::1'), true, 'IPv6 by exact string');
  t.equal(remote('2001:db8::/32', '2001:db8::1'), false, 'IPv6 ranges are not matched by this strategy');
  t.equal(remote('10.0.0.1'), false, 'missing address');
  t.equal(single('remoteAddress', {}, { remoteAddress: '10.0.0.1' }).enabled, false, 'missing IPs');
});

t.test('disabled strategy: unevaluated, constraints and segments still reported', async (t) => {
  const result = flagResult(
    [strategy('default', { disabled: true, constraints: [constraint('userId', 'IN', { values: ['1'] })], segments: [3] })],
    { userId: '1', region: 'eu' },
    [{ id: 3, name: 's', constraints: [constraint('region', 'IN', { values: ['eu'] })] }],
  );
  const data = result.strategies.data[0]!;
  t.strictSame(data.result, { enabled: 'unknown', evaluationStatus: 'unevaluated' });
  t.equal(data.disabled, true);
  t.equal(data.constraints[0]!.result, true);
  t.equal(data.segments[0]!.result, true);
  t.equal(result.strategies.result, 'unknown', 'only disabled strategies: unknown');
  t.equal(result.isEnabled, false);
  t.strictSame(result.variant, { name: 'disabled', enabled: false, feature_enabled: false });
});

t.test('unimplemented strategies: incomplete', async (t) => {
  const passing = [constraint('userId', 'IN', { values: ['1'] })];
  for (const name of ['applicationHostname', 'myCustomStrategy']) {
    const unknown = flagResult([strategy(name, { parameters: { hostNames: 'x' }, constraints: passing })], { userId: '1' });
    t.strictSame(unknown.strategies.data[0]!.result, { enabled: 'unknown', evaluationStatus: 'incomplete' }, `${name}, constraints pass`);
    t.equal(unknown.strategies.result, 'unknown');
    t.equal(unknown.isEnabled, false);
    const failing = flagResult([strategy(name, { constraints: passing })], { userId: '2' });
    t.strictSame(failing.strategies.data[0]!.result, { enabled: false, evaluationStatus: 'incomplete' }, `${name}, constraints fail`);
    t.equal(failing.strategies.result, false, 'a failing incomplete strategy never makes the flag unknown');
    t.equal(sdk(name, {}, { userId: '1' }), false, 'SDK path: never enabled');
  }
  const laterWins = flagResult([strategy('myCustomStrategy'), strategy('default')], {});
  t.equal(laterWins.strategies.result, true, 'a true strategy outranks unknown');
  t.equal(laterWins.isEnabled, true);
});

t.test('strategy report shape', async (t) => {
  const result = flagResult(
    [
      strategy('default', {
        id: 'abc',
        title: '',
        parameters: { n: 5, o: { a: 1 }, z: null, s: 'x' } as unknown as Record<string, string>,
      }),
      strategy('default', { id: 'def', title: 'Shown', disabled: null }),
    ],
    {},
  );
  const untitled = result.strategies.data[0]!;
  const titled = result.strategies.data[1]!;
  t.strictSame(Object.keys(untitled), ['name', 'id', 'disabled', 'parameters', 'result', 'constraints', 'segments', 'links'], 'title omitted when empty');
  t.strictSame(Object.keys(titled), ['name', 'id', 'title', 'disabled', 'parameters', 'result', 'constraints', 'segments', 'links']);
  t.equal(titled.disabled, false, 'disabled null → false');
  t.strictSame(untitled.parameters, { n: '5', o: '{"a":1}', z: '', s: 'x' }, 'parameters rendered as strings');
  t.strictSame(untitled.links, { edit: `/projects/default/features/f/strategies/edit?environmentId=${ENV}&strategyId=abc` });
});

t.test('strategy order: sortOrder, then id', async (t) => {
  const result = flagResult(
    [
      strategy('default', { id: 'b', sortOrder: 1 }),
      strategy('default', { id: 'c', sortOrder: 0 }),
      strategy('default', { id: 'a', sortOrder: 1 }),
    ],
    {},
  );
  t.strictSame(result.strategies.data.map((s) => s.id), ['c', 'a', 'b']);
});

t.test('constraint echo: strategy defaults vs segment stored keys', async (t) => {
  const stored = { contextName: 'userId', operator: 'NUM_EQ', value: 7 as unknown as string };
  const result = flagResult([strategy('default', { constraints: [stored], segments: [1] })], { userId: '7' }, [
    { id: 1, name: 'seg', constraints: [{ ...stored }] },
  ]);
  const data = result.strategies.data[0]!;
  t.strictSame(Object.entries(data.constraints[0]!), Object.entries({ inverted: false, values: [], contextName: 'userId', operator: 'NUM_EQ', value: '7', result: true }));
  t.strictSame(Object.entries(data.segments[0]!.constraints[0]!), Object.entries({ contextName: 'userId', operator: 'NUM_EQ', value: '7', result: true }));
  t.strictSame(Object.keys(data.segments[0]!), ['name', 'id', 'result', 'constraints']);
});

t.test('segments: missing ids are not reported but fail the strategy (D2)', async (t) => {
  const segments = [{ id: 1, name: 'eu', constraints: [constraint('region', 'IN', { values: ['eu'] })] }];
  const withMissing = flagResult([strategy('default', { segments: [404, 1] })], { region: 'eu' }, segments);
  t.strictSame(withMissing.strategies.data[0]!.segments.map((s) => s.id), [1], 'only existing segments reported');
  t.equal(withMissing.strategies.data[0]!.result.enabled, false, 'client specification 15: a missing segment fails');
  const existing = flagResult([strategy('default', { segments: [1] })], { region: 'eu' }, segments);
  t.equal(existing.strategies.data[0]!.result.enabled, true);
  const failing = flagResult([strategy('default', { segments: [1] })], { region: 'us' }, segments);
  t.equal(failing.strategies.data[0]!.result.enabled, false);
  t.equal(failing.strategies.data[0]!.segments[0]!.result, false);
});
