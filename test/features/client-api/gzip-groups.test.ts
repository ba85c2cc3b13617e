import { randomBytes } from 'node:crypto';
import { crc32, gunzipSync, gzipSync } from 'node:zlib';
import t from 'tap';
import { crc32Combine, groupSize, gzipCounts, gzipJoined } from '../../../src/features/client-api/gzip-groups.js';

const HEAD = Buffer.from('{"version":2,"features":[');

/** A flag-like JSON piece, random enough that groups differ, repetitive enough to compress. */
function flag(i: number, salt = ''): Buffer {
  return Buffer.from(JSON.stringify({ name: `flag.${i}${salt}`, enabled: i % 3 === 0, strategies: [{ name: 'flexibleRollout', parameters: { rollout: String(i % 100) } }], note: randomBytes(i % 7).toString('hex') }));
}

function joined(flags: readonly Buffer[], tail: Buffer): Buffer {
  const parts: Buffer[] = [HEAD];
  flags.forEach((bytes, i) => parts.push(...(i > 0 ? [Buffer.from(','), bytes] : [bytes])));
  return Buffer.concat([...parts, tail]);
}

t.test('crc32Combine gives the CRC-32 of the concatenation', async (t) => {
  for (const [a, b] of [[0, 0], [0, 5], [5, 0], [1, 1], [100, 3], [3, 100_000], [70_000, 1_000]] as const) {
    const left = randomBytes(a);
    const right = randomBytes(b);
    t.equal(crc32Combine(crc32(left), crc32(right), right.length), crc32(Buffer.concat([left, right])), `${a} + ${b} bytes`);
  }
});

t.test('the assembled gzip decodes to the joined body (gunzip checks the CRC and length)', async (t) => {
  const tail = Buffer.from('],"query":{},"meta":{"revisionId":1}}');
  const small = groupSize(1);
  const large = groupSize(5000);
  t.ok(small < large, `groups of ${small} flags in a small body, ${large} in a large one`);
  for (const count of [0, 1, small - 1, small, small + 1, 5 * small + 17, 2000, 2000 + large - 1]) {
    const flags = Array.from({ length: count }, (_, i) => flag(i));
    const expected = joined(flags, tail);
    t.same(gunzipSync(gzipJoined(HEAD, flags, tail)), expected, `${count} flags`);
    t.same(JSON.parse(gunzipSync(gzipJoined(HEAD, flags, tail)).toString('utf8')), JSON.parse(expected.toString('utf8')), `${count} flags, again from the kept groups`);
  }
});

for (const bodyFlags of [73, 1500]) t.test(`after changes, kept groups and new ones still make the right body (${bodyFlags} flags)`, async (t) => {
  const GROUP_SIZE = groupSize(bodyFlags);
  const flags = Array.from({ length: bodyFlags }, (_, i) => flag(i));
  const tail = (n: number) => Buffer.from(`],"meta":{"revisionId":${n}}}`);
  gzipJoined(HEAD, flags, tail(0));
  let revision = 0;
  // One flag changed (its group made again), one added at the end, one removed in the middle
  // (every later group shifts), the first one changed (the group without a leading comma).
  const steps: Array<(list: Buffer[]) => void> = [
    (list) => void (list[GROUP_SIZE + 3] = flag(GROUP_SIZE + 3, '-changed')),
    (list) => void list.push(flag(list.length, '-new')),
    (list) => void list.splice(2 * GROUP_SIZE - 1, 1),
    (list) => void (list[0] = flag(0, '-first')),
    (list) => void list.splice(0, list.length - 3),
  ];
  for (const step of steps) {
    step(flags);
    revision++;
    t.same(gunzipSync(gzipJoined(HEAD, flags, tail(revision))), joined(flags, tail(revision)), `step ${revision}`);
  }
});

t.test('a group is compressed once while its flags are the same objects', async (t) => {
  const GROUP_SIZE = groupSize(100);
  const flags = Array.from({ length: 3 * GROUP_SIZE }, (_, i) => flag(i));
  const tail = Buffer.from(']}');
  const before = gzipCounts.groups;
  gzipJoined(HEAD, flags, tail);
  t.equal(gzipCounts.groups - before, 3, 'three groups on the first body');
  gzipJoined(HEAD, flags, Buffer.from(',"x":1]}'));
  t.equal(gzipCounts.groups - before, 3, 'none again for another tail');
  flags[GROUP_SIZE * 2 + 1] = flag(GROUP_SIZE * 2 + 1, '-x');
  const second = gzipJoined(HEAD, flags, tail);
  t.equal(gzipCounts.groups - before, 4, 'one more after a flag of the last group changed');
  t.same(gunzipSync(second), joined(flags, tail));
  flags.push(flag(flags.length, '-new'));
  gzipJoined(HEAD, flags, tail);
  t.equal(gzipCounts.groups - before, 5, 'one more for a flag added at the end');
  flags[GROUP_SIZE - 1] = flag(GROUP_SIZE - 1, '-y');
  t.same(gunzipSync(gzipJoined(HEAD, flags, tail)), joined(flags, tail));
  t.equal(gzipCounts.groups - before, 7, 'two more for the first group\'s last flag: its group and the next, whose dictionary it ends');
});

for (const [bodyFlags, slack] of [[160, 1.2], [1600, 1.2]] as const) {
  t.test(`groups compressed with the end of the previous one as a dictionary compress about as well as the whole (${bodyFlags} flags)`, async (t) => {
    const flags = Array.from({ length: bodyFlags }, (_, i) => flag(i));
    const tail = Buffer.from(']}');
    const whole = gzipSync(joined(flags, tail), { level: 6 });
    const assembled = gzipJoined(HEAD, flags, tail);
    t.ok(assembled.length < whole.length * slack, `${assembled.length} bytes against ${whole.length} for the whole`);
  });
}
