import t from 'tap';
import { hashPassword, passwordProblems, verifyPassword } from '../../../src/features/users/password.js';
import { avatarUrl, isEmail } from '../../../src/features/users/service.js';

t.test('password strength (OWASP rules as Unleash configures them)', async (t) => {
  t.same(passwordProblems('Correct-Horse-9'), []);
  t.same(passwordProblems('correct horse battery staple'), [
    'The password must contain at least one uppercase letter.',
    'The password must contain at least one number.',
  ], 'a passphrase needs the character classes too (Unleash turns passphrases off)');
  t.same(passwordProblems('Ab1!'), ['The password must be at least 10 characters long.']);
  t.same(passwordProblems('abcdefghijk'), [
    'The password must contain at least one uppercase letter.',
    'The password must contain at least one number.',
    'The password must contain at least one special character.',
  ]);
  t.same(passwordProblems('Aaaa-1234-xyz'), ['The password may not contain sequences of three or more repeated characters.']);
  t.same(passwordProblems('Aa1!😀😀😀xyz'), [], 'repeats are UTF-16 units, as the library (and so Unleash) counts them');
  t.same(passwordProblems(`Aa1!${'xy'.repeat(70)}`), ['The password must be fewer than 128 characters.']);
  t.same(passwordProblems(''), [
    'The password must be at least 10 characters long.',
    'The password must contain at least one lowercase letter.',
    'The password must contain at least one uppercase letter.',
    'The password must contain at least one number.',
    'The password must contain at least one special character.',
  ]);
});

t.test('scrypt hashes: salted, verifiable, never the password', async (t) => {
  const a = await hashPassword('Correct-Horse-9');
  const b = await hashPassword('Correct-Horse-9');
  t.not(a, b, 'a random salt per hash');
  t.notMatch(a, 'Correct-Horse-9');
  t.match(a, /^scrypt\$32768\$8\$1\$/);
  t.ok(await verifyPassword('Correct-Horse-9', a));
  t.ok(await verifyPassword('Correct-Horse-9', b));
  t.notOk(await verifyPassword('Correct-Horse-8', a));
  t.notOk(await verifyPassword('Correct-Horse-9', 'bcrypt$whatever'));
});

t.test('e-mail check and avatar', async (t) => {
  for (const ok of ['a@b.c', 'first.last+tag@example.co.uk', 'user@localhost', "o'hara@x.io"]) t.ok(isEmail(ok), ok);
  for (const bad of ['', 'a', 'a@', '@b', 'a b@c.d', 'a@b..c', 'a..b@c.d', '.a@b.c', 'a@-b.c', `${'a'.repeat(250)}@b.co`]) t.notOk(isEmail(bad), bad);
  t.equal(avatarUrl(' A@B.c '), avatarUrl('a@b.c'));
  t.match(avatarUrl('a@b.c'), /^https:\/\/gravatar\.com\/avatar\/[0-9a-f]{64}\?s=42&d=retro$/);
});
