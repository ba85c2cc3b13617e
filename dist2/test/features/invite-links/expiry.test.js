import t from 'tap';
import { inviteUrl, isUsable, oneMonthAfter } from '../../../src/features/invite-links/service.js';
t.test('oneMonthAfter: same day next month, clamped to month end, time kept (UTC)', async (t) => {
    const cases = [
        ['2026-11-21T04:43:49.934Z', '2026-12-21T04:43:49.934Z'], // sample 52
        ['2026-12-15T23:59:59.999Z', '2027-01-15T23:59:59.999Z'], // year boundary
        ['2026-01-31T10:00:00.000Z', '2026-02-28T10:00:00.000Z'], // clamped
        ['2028-01-31T10:00:00.000Z', '2028-02-29T10:00:00.000Z'], // leap year
        ['2026-03-31T00:00:00.000Z', '2026-04-30T00:00:00.000Z'],
        ['2026-02-28T12:00:00.000Z', '2026-03-28T12:00:00.000Z'],
        ['2026-08-31T01:02:03.004Z', '2026-09-30T01:02:03.004Z'],
    ];
    for (const [from, to] of cases)
        t.equal(oneMonthAfter(new Date(from)).toISOString(), to, from);
});
t.test('isUsable: enabled and the UTC date of the expiry after now', async (t) => {
    const now = new Date('2026-05-10T12:00:00.000Z');
    t.ok(isUsable({ enabled: true, expiresAt: new Date('2026-05-11T00:00:00.000Z') }, now));
    t.ok(isUsable({ enabled: true, expiresAt: new Date('2026-06-01T00:00:00.000Z') }, now));
    t.notOk(isUsable({ enabled: true, expiresAt: new Date('2026-05-10T23:59:59.999Z') }, now), 'expiring later today');
    t.notOk(isUsable({ enabled: true, expiresAt: new Date('2026-05-10T12:00:01.000Z') }, now));
    t.notOk(isUsable({ enabled: true, expiresAt: new Date('2020-01-01T00:00:00.000Z') }, now));
    t.notOk(isUsable({ enabled: false, expiresAt: new Date('2026-06-01T00:00:00.000Z') }, now), 'disabled');
});
t.test('inviteUrl: WHATWG-normalised, base path kept', async (t) => {
    t.equal(inviteUrl('http://localhost:4242', 'ab'), 'http://localhost:4242/new-user?invite=ab');
    t.equal(inviteUrl('https://x.io/unleash', 'ab'), 'https://x.io/unleash/new-user?invite=ab');
    t.equal(inviteUrl('https://x.io/unleash/', 'ab'), 'https://x.io/unleash/new-user?invite=ab');
    t.equal(inviteUrl('HTTPS://X.IO:443/a/./b', 'ab'), 'https://x.io/a/b/new-user?invite=ab');
    t.equal(inviteUrl('http://x.io:80', 'ab'), 'http://x.io/new-user?invite=ab');
});
//# sourceMappingURL=expiry.test.js.map