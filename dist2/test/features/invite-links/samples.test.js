/**
 * Replays the requests recorded from a real Unleash 8.2 (samples 52–58, copied into
 * test/fixtures/invite-links) and compares statuses and body shapes. Ids, secrets and times are
 * ignored; error names follow D1 (BadDataError → ValidationError), and the token-type 403, a bare
 * `{message}` in Unleash, is `{id, name: 'NoAccessError', message, …}` in Vane.
 */
import t from 'tap';
import { readFileSync, readdirSync } from 'node:fs';
import { ADMIN_TOKEN, JSON_ADMIN, buildTestApp } from '../../helpers/app.js';
import { oneMonthAfter } from '../../../src/features/invite-links/service.js';
const FIXTURES = new URL('../../../../test/fixtures/invite-links/', import.meta.url);
const samples = readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(new URL(f, FIXTURES), 'utf8')));
const PEER_ADMIN = '*:*.peer-admin-token';
const D1_NAMES = { BadDataError: 'ValidationError', PermissionError: 'NoAccessError' };
/** The shape of a JSON value: keys in order, value types, recursively (arrays by their first item). */
function shape(value) {
    if (Array.isArray(value))
        return value.length ? [shape(value[0])] : [];
    if (value && typeof value === 'object')
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v)]));
    return value === null ? 'null' : typeof value;
}
t.test('samples 52–58 replayed against Vane', async (t) => {
    t.equal(samples.length, 7);
    const app = await buildTestApp(t);
    const client = await app.inject({
        method: 'POST', url: '/api/admin/api-tokens', headers: JSON_ADMIN,
        payload: { tokenName: 'peer-client', type: 'client', environment: 'development' },
    });
    const clientSecret = client.json().secret;
    let createdSecret = '';
    for (const sample of samples) {
        await t.test(sample.name, async (t) => {
            const headers = {};
            for (const [key, value] of Object.entries(sample.request.headers)) {
                if (key.toLowerCase() !== 'authorization')
                    headers[key.toLowerCase()] = value;
                else
                    headers.authorization = value === PEER_ADMIN ? ADMIN_TOKEN : clientSecret;
            }
            const res = await app.inject({
                method: sample.request.method,
                url: sample.request.path,
                headers,
                ...(sample.request.body === null ? {} : { payload: sample.request.body }),
            });
            const expected = sample.response;
            t.equal(res.statusCode, expected.status, 'status');
            t.match(res.headers['content-type'], /^application\/json; charset=utf-8$/);
            const body = res.json();
            const want = expected.body;
            if (expected.status >= 400) {
                t.match(body.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'every error has a UUID v4 id');
                if (want.name === undefined) {
                    // The token-type refusal: Unleash sends only {message}.
                    t.same(Object.keys(body).slice(0, 3), ['id', 'name', 'message']);
                    t.equal(body.name, 'NoAccessError');
                    t.equal(body.message, want.message);
                    return;
                }
                t.same(Object.keys(body), Object.keys(want), 'error keys in order');
                t.equal(body.name, D1_NAMES[want.name] ?? want.name);
                t.equal(body.message, want.message);
                // Detail objects: same entries (their key order is covered, as a todo, in routes.test.ts).
                t.strictSame(body.details.map((d) => Object.fromEntries(Object.entries(d).sort())), want.details.map((d) => Object.fromEntries(Object.entries(d).sort())), 'details');
                for (const extra of ['path', 'type', 'defaultHidden']) {
                    if (extra in want)
                        t.equal(body[extra], want[extra], extra);
                }
                return;
            }
            t.same(shape(body), shape(want), 'body shape, keys in order');
            if (sample.request.method === 'POST') {
                createdSecret = body.secret;
                t.equal(res.headers.location, `tokens/${body.secret}`);
                t.equal(body.name, sample.request.body.name);
                t.equal(body.url, `http://localhost:4242/new-user?invite=${body.secret}`);
                t.equal(body.createdBy, 'admin', 'Unleash shows its admin token name (peer-admin); ours is admin');
                t.same(body.role, want.role);
                t.same(body.users, []);
                t.equal(body.enabled, true);
                const recorded = want;
                t.equal(Date.parse(recorded.expiresAt), oneMonthAfter(new Date(recorded.createdAt)).getTime(), 'the recording is capped at one month');
                t.equal(body.expiresAt, oneMonthAfter(new Date(body.createdAt)).toISOString(), 'and so are we');
            }
            else {
                t.same(body.tokens.map((tk) => tk.secret), [createdSecret], 'only the created token is listed');
                t.same(body.tokens[0].role, { id: 3, name: 'Viewer', type: 'root' });
            }
        });
    }
});
//# sourceMappingURL=samples.test.js.map