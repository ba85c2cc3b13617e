import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
/**
 * Password strength and storage for users who join through an invite link.
 *
 * Strength follows the OWASP rules Unleash applies (owasp-password-strength-test configured with
 * minLength 10, maxLength 128, passphrases of 20+ characters allowed, all four optional tests
 * required otherwise). The texts are the library's.
 */
const MIN_LENGTH = 10;
const MAX_LENGTH = 128;
const MIN_PHRASE_LENGTH = 20;
const OPTIONAL_TESTS = [
    [/[a-z]/, 'The password must contain at least one lowercase letter.'],
    [/[A-Z]/, 'The password must contain at least one uppercase letter.'],
    [/[0-9]/, 'The password must contain at least one number.'],
    [/[^A-Za-z0-9]/, 'The password must contain at least one special character.'],
];
/** What is wrong with a password; empty when it is strong enough. */
export function passwordProblems(password) {
    const required = [];
    if (password.length < MIN_LENGTH)
        required.push(`The password must be at least ${MIN_LENGTH} characters long.`);
    if (password.length > MAX_LENGTH)
        required.push(`The password must be fewer than ${MAX_LENGTH} characters.`);
    if (/(.)\1{2,}/u.test(password))
        required.push('The password may not contain sequences of three or more repeated characters.');
    const isPassphrase = password.length >= MIN_PHRASE_LENGTH;
    const optional = isPassphrase ? [] : OPTIONAL_TESTS.filter(([test]) => !test.test(password)).map(([, message]) => message);
    return [...required, ...optional];
}
/**
 * scrypt parameters: N = 2^15, r = 8, p = 1 (about 32 MiB and tens of milliseconds per hash, the
 * cost OWASP recommends). They are written into the stored hash so they can be raised later
 * without breaking existing passwords.
 */
const COST = 2 ** 15;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const KEY_LENGTH = 64;
const SALT_BYTES = 16;
function derive(password, salt, options, length) {
    return new Promise((resolve, reject) => {
        scrypt(password.normalize('NFKC'), salt, length, options, (err, key) => (err ? reject(err) : resolve(key)));
    });
}
function optionsFor(N, r, p) {
    return { N, r, p, maxmem: 128 * N * r * p + 16 * 1024 * 1024 };
}
/** `scrypt$N$r$p$<salt base64>$<key base64>`, with a fresh random salt per call. */
export async function hashPassword(password) {
    const salt = randomBytes(SALT_BYTES);
    const key = await derive(password, salt, optionsFor(COST, BLOCK_SIZE, PARALLELISM), KEY_LENGTH);
    return ['scrypt', COST, BLOCK_SIZE, PARALLELISM, salt.toString('base64'), key.toString('base64')].join('$');
}
export async function verifyPassword(password, stored) {
    const [scheme, n, r, p, saltText, keyText] = stored.split('$');
    if (scheme !== 'scrypt' || !saltText || !keyText)
        return false;
    const expected = Buffer.from(keyText, 'base64');
    const key = await derive(password, Buffer.from(saltText, 'base64'), optionsFor(Number(n), Number(r), Number(p)), expected.length);
    return timingSafeEqual(key, expected);
}
//# sourceMappingURL=password.js.map