/**
 * OFREP's bulk answer against its single-flag evaluation, without a database: flags no context
 * changes are spliced in as runs rendered once per state, and the list must still be each flag's
 * own evaluation, in order, with an ETag that follows the body.
 */
import t from 'tap';
import { compile, type FlagConfig, type StrategyConfig } from '../../../src/evaluation/index.js';
import { frontendContext, piece, type FrontendSource } from '../../../src/features/frontend-api/evaluate.js';
import { answerOfrep, evaluateOne } from '../../../src/features/ofrep/evaluate.js';
import { frontendInput, ofrepFrontendContext } from '../../../src/features/ofrep/mapping.js';
import { Random, randomOfrepContext } from './helpers.js';

const SCOPE = { projects: ['default'], environment: 'development' };
const everyone = (id: string): StrategyConfig => ({ id, name: 'default', parameters: {}, constraints: [] });
const half = (id: string, variants: StrategyConfig['variants'] = []): StrategyConfig => ({
  id, name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'default', groupId: id }, constraints: [], variants,
});
const twoVariants = [
  { name: 'x', weight: 500, weightType: 'variable' as const, stickiness: 'default' },
  { name: 'y', weight: 500, weightType: 'variable' as const, stickiness: 'default', payload: { type: 'string', value: 'why' } },
];

/** Every kind of flag side by side, so runs of constant flags start, end and sit between decided ones. */
const KINDS: Array<Pick<FlagConfig, 'environments'> & Partial<Pick<FlagConfig, 'dependencies'>>> = [
  { environments: { development: { enabled: false, strategies: [half('a')], variants: twoVariants } } },
  { environments: { development: { enabled: true, strategies: [everyone('b')], variants: [] } } },
  { environments: { development: { enabled: true, strategies: [], variants: [] } } },
  { environments: { development: { enabled: true, strategies: [half('c')], variants: [] } } },
  { environments: { development: { enabled: true, strategies: [{ ...half('d'), disabled: true }], variants: [] } } },
  { environments: { development: { enabled: true, strategies: [everyone('e')], variants: twoVariants } } },
  { environments: {} },
  { environments: { development: { enabled: true, strategies: [everyone('f')], variants: [] } }, dependencies: [{ feature: 'flag-3', enabled: true }] },
  { environments: { development: { enabled: true, strategies: [half('g', twoVariants), everyone('h')], variants: [] } } },
  { environments: { development: { enabled: true, strategies: [everyone('i')], variants: [{ ...twoVariants[0]!, weight: 0 }] } } },
];

function state(order: number[]): FrontendSource {
  const flags: FlagConfig[] = order.map((kind, i) => ({
    name: `flag-${i}`, project: 'default', createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    environments: KINDS[kind]!.environments, dependencies: KINDS[kind]!.dependencies ?? [],
  }));
  return { compiled: compile({ flags, segments: [] }), memo: new Map(), flags: flags.map(({ name, project }) => ({ name, project, impressionData: false })) };
}

const ORDERS = [
  KINDS.map((_, i) => i),
  [1, 1, 2, 0, 6, 3, 1, 2, 5, 9, 7, 4],
  [3, 0, 0, 0, 8, 1],
  [0, 1, 2],
];

t.test('the bulk list is each flag\'s single evaluation, in order', async (t) => {
  const streams = piece('[]');
  for (const order of ORDERS) {
    const source = state(order);
    for (let user = 0; user < 40; user++) {
      const context = frontendContext(frontendInput({ targetingKey: `u${user}`, sessionId: `s${user}` }), '10.0.0.1');
      const { body } = answerOfrep(source, { scope: SCOPE, context, streams });
      const singles = order.map((_, i) => evaluateOne(source, SCOPE, `flag-${i}`, context));
      t.equal(body.toString(), `{"flags":[${singles.join(',')}],"eventStreams":[]}`, `order ${order.join(' ')}, user ${user}`);
    }
  }
});

t.test('the ETag is the same for the same body on a fresh state, and differs with the body', async (t) => {
  const streams = piece('[]');
  const order = ORDERS[1]!;
  const first = state(order);
  const second = state(order);
  const etags = new Map<string, string>();
  for (let user = 0; user < 60; user++) {
    const context = frontendContext(frontendInput({ targetingKey: `u${user}`, sessionId: `s${user}` }), '10.0.0.1');
    const a = answerOfrep(first, { scope: SCOPE, context, streams });
    const b = answerOfrep(second, { scope: SCOPE, context, streams });
    t.equal(b.etag, a.etag);
    const body = a.body.toString();
    const known = etags.get(body);
    if (known !== undefined) t.equal(a.etag, known);
    etags.set(body, a.etag);
  }
  t.equal(new Set(etags.values()).size, etags.size, `${etags.size} different bodies, as many ETags`);
  t.ok(etags.size > 1);
});

t.test('the one-pass context is the frontend API\'s context of the mapped input', async (t) => {
  const random = new Random(4242);
  const contexts: Array<Record<string, unknown>> = [
    ...Array.from({ length: 300 }, () => randomOfrepContext(random)),
    {}, { targetingKey: 'tk' }, { targetingKey: 'tk', userId: '' }, { targetingKey: 'tk', userId: { a: 1 } }, { targetingKey: 7, userId: null },
    { userId: 42, sessionId: true, appName: '', environment: 1.5, remoteAddress: '10.1.1.1', targetingKey: 'tk' },
    { properties: 'text' }, { properties: ['a'] }, { properties: null }, { properties: { a: 1, b: null, c: { d: 1 }, e: [1], f: false, g: 'x' } },
    { 'properties[a]': 'top', properties: { a: 'inner', b: 'b' }, 'properties[b]': 5, a: 'moved', b: 'moved too' },
    { properties: { a: 'inner' }, 'properties[a]': 'later', currentTime: '2026-01-01T00:00:00Z', x: null, y: [1], z: { w: 1 } },
    JSON.parse('{"__proto__": "p", "properties": {"__proto__": "q", "r": "s"}, "constructor": "c"}') as Record<string, unknown>,
  ];
  for (const context of contexts) {
    const expected = frontendContext(frontendInput(context), '10.0.0.9');
    const actual = ofrepFrontendContext(context, '10.0.0.9');
    // A context without a sessionId gets a random one in both.
    if (frontendInput(context).sessionId === undefined || frontendInput(context).sessionId === '') actual.sessionId = expected.sessionId;
    t.same(Object.keys(actual), Object.keys(expected), JSON.stringify(context));
    t.same(Object.keys(actual.properties as object), Object.keys(expected.properties as object), JSON.stringify(context));
    t.strictSame(actual, expected, JSON.stringify(context));
  }
});
