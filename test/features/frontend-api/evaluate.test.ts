import t from 'tap';
import { compile, type FlagConfig } from '../../../src/evaluation/index.js';
import { frontendContext, frontendToggles, type FrontendSource } from '../../../src/features/frontend-api/evaluate.js';
import { seededRandom } from '../../../bench/random.js';

const SCOPE = { projects: ['default'], environment: 'development' };

function flag(name: string, rollout: number, payload: string | undefined): FlagConfig {
  return {
    name, project: 'default', createdAt: '2026-01-01T00:00:00.000Z', dependencies: [],
    environments: {
      development: {
        enabled: true,
        strategies: [{
          id: `${name}-s`, name: 'flexibleRollout', parameters: { rollout: String(rollout), stickiness: 'default', groupId: name }, constraints: [],
          variants: payload === undefined ? [] : [
            { name: 'one', weight: 1000, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: payload } },
          ],
        }],
        variants: [],
      },
    },
  };
}

function source(flags: FlagConfig[], impressionData = false): FrontendSource {
  return { compiled: compile({ flags, segments: [] }), memo: new Map(), flags: flags.map((f) => ({ name: f.name, project: f.project, impressionData })) };
}

const answer = (state: FrontendSource, userId: string, all = false) =>
  frontendToggles(state, SCOPE, frontendContext({ userId }, '127.0.0.1'), all);

t.test('the ETag is equal exactly when the body is, across many contexts', async (t) => {
  const random = seededRandom(7);
  const flags = Array.from({ length: 12 }, (_, i) => flag(`f${i}`, 10 + Math.floor(random() * 80), i % 3 === 0 ? `p${i}` : undefined));
  const state = source(flags);
  const byBody = new Map<string, string>();
  const byEtag = new Map<string, string>();
  for (let user = 0; user < 600; user++) {
    for (const all of [false, true]) {
      const answered = answer(state, String(user), all);
      const body = answered.body.toString();
      const etag = answered.etag;
      t.equal(byBody.get(body) ?? etag, etag, 'the same body, the same ETag');
      t.equal(byEtag.get(etag) ?? body, body, 'the same ETag, the same body');
      byBody.set(body, etag);
      byEtag.set(etag, body);
    }
  }
  t.ok(byBody.size > 50, `many different bodies seen (${byBody.size})`);
  // Another state with the same content (another instance, a rebuild) gives the same ETags.
  const again = source(flags);
  t.equal(answer(again, '42').etag, answer(state, '42').etag);
});

t.test('the ETag changes with what only the constant parts carry', async (t) => {
  const base = answer(source([flag('a', 100, 'x')]), '1');
  const impression = answer(source([flag('a', 100, 'x')], true), '1');
  t.not(impression.body.toString(), base.body.toString());
  t.not(impression.etag, base.etag, 'impressionData');
  // Payloads differing only in the high byte of a UTF-16 unit (U+4E2D 中 and U+0E2D ญ).
  const one = answer(source([flag('a', 100, '中')]), '1');
  const other = answer(source([flag('a', 100, 'ญ')]), '1');
  t.not(one.body.toString(), other.body.toString());
  t.not(one.etag, other.etag, 'a payload differing in one character');
  t.match(base.etag, /^"[0-9a-z]+-[0-9a-f]{16}"$/, 'a strong ETag: length and 64 bits of content');
});
