import t from 'tap';
import { buildTestApp, send } from '../../helpers/app.js';
import { asPerson, roleCookies } from '../../helpers/sessions.js';
import { expectRecordedSteps, fixture, PEER_ENV } from '../../helpers/samples.js';
import { normaliseLinkUrl } from '../../../src/features/flags/link-url.js';
import type { RecordedSteps } from '../../../tools/difftest/recorded-steps.js';

const BASE = '/api/admin/projects/default/features';

t.test('flag links as Unleash 8.2 answers them: normalised URLs, the limit, a link moved by PUT (recorded)', async (t) => {
  const app = await buildTestApp(t, PEER_ENV);
  await expectRecordedSteps(t, app, (fixture('flag-links/reference.json') as RecordedSteps).steps);
});

t.test('URLs are normalised as normalize-url 9 does with https as the default protocol', async (t) => {
  const cases: Array<[string, string | null]> = [
    ['github.com/a/b?utm_source=x&b=2&a=1#frag', 'https://github.com/a/b?a=1&b=2#frag'],
    ['https://x.com/redirect/https://y.com//z', 'https://x.com/redirect/https://y.com/z'],
    ['https://x.com/%7Efoo/%E2%82%AC', 'https://x.com/~foo/%E2%82%AC'],
    ['https://x.com/?q=a b', 'https://x.com/?q=a+b'],
    ['localhost:3000/x', 'https://localhost:3000/x'],
    ['//cdn.com/x', 'https://cdn.com/x'],
    ['https://www.www.x.com', 'https://www.www.x.com'],
    ['https://X.com./a', 'https://x.com/a'],
    ['slack://channel?id=1', 'slack://channel?id=1'],
    ['data:text/plain;base64, aGk= ', 'data:text/plain;base64,aGk='],
    ['data:TEXT/plain;charset=US-ASCII,hello', 'data:,hello'],
    ['http://', null],
  ];
  for (const [input, expected] of cases) t.equal(normaliseLinkUrl(input), expected, input);
});

t.test('links: Viewers and tokens other than admin are refused; the flag page shows them in the order added', async (t) => {
  const app = await buildTestApp(t);
  const { viewer, editor } = await roleCookies(app);
  t.equal((await send(app, 'POST', BASE, { name: 'who.links' })).statusCode, 201);
  const url = `${BASE}/who.links/link`;
  const refused = await app.inject({ method: 'POST', url, headers: asPerson(viewer), payload: JSON.stringify({ url: 'a.com' }) });
  t.equal(refused.statusCode, 403);
  t.match(refused.json().message, /UPDATE_FEATURE/);
  t.equal((await app.inject({ method: 'POST', url, headers: asPerson(editor), payload: JSON.stringify({ url: 'b.com', title: 'B' }) })).statusCode, 204);
  t.equal((await send(app, 'POST', url, { url: 'a.com' })).statusCode, 204);
  const flag = (await send(app, 'GET', `${BASE}/who.links`)).json();
  t.same(flag.links.map((l: { url: string; title: string | null; feature: string }) => [l.url, l.title, l.feature]), [
    ['https://b.com', 'B', 'who.links'], ['https://a.com', null, 'who.links'],
  ]);
  t.match(flag.links[0].id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
  // Archiving and reviving keeps the links (they belong to the flag, as Unleash's rows do).
  t.equal((await send(app, 'DELETE', `${BASE}/who.links`)).statusCode, 202);
  t.equal((await send(app, 'POST', '/api/admin/archive/revive/who.links')).statusCode, 200);
  t.equal((await send(app, 'GET', `${BASE}/who.links`)).json().links.length, 2);
});
