/** Typed-value parsers: the hand-written IPv4 parser agrees with ip-address; semver strictness. */
import t from 'tap';
import fc from 'fast-check';
import { Address4 } from 'ip-address';
import { parseDottedQuad, parseIpAddress, parseSemver } from '../../src/evaluation/parse.js';
t.test('parseDottedQuad accepts exactly what ip-address accepts as a single IPv4 address', async (t) => {
    const octet = fc.oneof(fc.integer({ min: 0, max: 300 }).map(String), fc.constantFrom('00', '01', '255', '256', '', 'a', ' 1'));
    const quadLike = fc.tuple(octet, octet, octet, octet).map((parts) => parts.join('.'));
    const anyText = fc.oneof(quadLike, fc.stringMatching(/^[0-9.]{0,16}$/), fc.string({ maxLength: 16 }));
    fc.assert(fc.property(anyText, (text) => {
        const mine = parseDottedQuad(text);
        const theirs = !text.includes('/') && Address4.isValid(text) ? Number(new Address4(text).bigInt()) : -1;
        return mine === theirs;
    }), { numRuns: 5000 });
    t.equal(parseDottedQuad('255.255.255.255'), 4294967295);
    t.equal(parseDottedQuad('0.0.0.0'), 0);
});
t.test('parseIpAddress', async (t) => {
    t.strictSame(parseIpAddress('10.0.0.1'), { v6: false, n: 167772161 });
    t.strictSame(parseIpAddress('::1'), { v6: true, n: 1n });
    t.equal(parseIpAddress('10.0.0.0/8'), null);
    t.equal(parseIpAddress('2001:db8::/32'), null);
    t.equal(parseIpAddress('localhost'), null);
});
t.test('parseSemver is strict SemVer 2.0 without a v prefix (D2)', async (t) => {
    t.equal(parseSemver('1.2.3-rc.1+build')?.version, '1.2.3-rc.1');
    t.equal(parseSemver(' 1.2.3 ')?.version, '1.2.3');
    for (const invalid of ['v1.2.3', 'V1.2.3', '=1.2.3', '1.2', '01.2.3', '1.2.3.4', '', 'x']) {
        t.equal(parseSemver(invalid), null, invalid);
    }
    t.equal(parseSemver('1.2.3'), parseSemver('1.2.3'), 'memoized: the same object');
});
//# sourceMappingURL=parse.test.js.map