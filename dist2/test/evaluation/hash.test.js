/** docs/rules.md §3.9 hashing vectors (murmurhash3js x86.hash32 on UTF-16 code units' low bytes). */
import t from 'tap';
import murmurhash3js from 'murmurhash3js';
import { normalizedHash, ROLLOUT_SEED, VARIANT_SEED } from '../../src/evaluation/index.js';
import { stickyHash } from '../../src/evaluation/hash.js';
import { seededRandom } from '../../bench/random.js';
t.test('raw murmur3_32 vectors', async (t) => {
    const hash32 = murmurhash3js.x86.hash32;
    t.equal(hash32('a:1', 0), 3531034293);
    t.equal(hash32('peer.demo:123', 0), 1033769925);
    t.equal(hash32('peer.demo:123', 86028157), 494526683);
    t.equal(hash32('undefined:7', 86028157), 3161523838);
    t.equal(hash32('ñ:é', 0), 4144140525, 'low bytes of UTF-16 units, not UTF-8');
    t.equal(hash32('g:😀', 0), 2868637875);
    t.equal(hash32('', 0), 0);
});
t.test('normalized buckets', async (t) => {
    t.equal(normalizedHash('123', 'peer.demo', 100, ROLLOUT_SEED), 26);
    t.equal(normalizedHash('123', 'peer.demo', 1000, VARIANT_SEED), 684);
    t.equal(normalizedHash('1', 'peer.demo', 1000, VARIANT_SEED), 948);
    t.equal(normalizedHash('3', 'peer.demo', 1000, VARIANT_SEED), 181);
    t.equal(normalizedHash('7', 'undefined', 1000, VARIANT_SEED), 839);
    t.equal(normalizedHash('user1', 'groupA', 100, ROLLOUT_SEED), 62);
});
t.test('stickyHash is murmurhash3js x86.hash32 of groupId:id, on random strings', async (t) => {
    const hash32 = murmurhash3js.x86.hash32;
    const random = seededRandom(31);
    // ASCII, Latin-1, BMP and astral code points, empty parts, every length modulo 4.
    const alphabets = ['abcxyz019.-_:', 'ñéüß', '中文字', '😀🚀'];
    const text = (length) => {
        let out = '';
        for (let i = 0; i < length; i++) {
            const alphabet = [...alphabets[Math.floor(random() * alphabets.length)]];
            out += alphabet[Math.floor(random() * alphabet.length)];
        }
        return out;
    };
    let mismatches = 0;
    for (let i = 0; i < 5000; i++) {
        const groupId = text(Math.floor(random() * 20));
        const id = text(Math.floor(random() * 12));
        const seed = i % 2 === 0 ? ROLLOUT_SEED : VARIANT_SEED;
        if (stickyHash(groupId, id, seed) !== hash32(`${groupId}:${id}`, seed))
            mismatches++;
    }
    t.equal(mismatches, 0);
    t.equal(stickyHash('peer.demo', '123', 86028157), 494526683);
    t.equal(stickyHash('ñ', 'é', 0), 4144140525);
});
//# sourceMappingURL=hash.test.js.map