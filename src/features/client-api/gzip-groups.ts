/**
 * The client API's gzip body assembled from pieces compressed once, so a write recompresses the
 * few flags it changed instead of the whole body.
 *
 * A gzip member is a header, one deflate stream, and the CRC-32 and length of what it holds. A
 * deflate stream may be cut into runs of blocks compressed separately: a run compressed on its own
 * and ended with a sync flush (an empty stored block, byte-aligned, not final) only refers back
 * within itself and its dictionary (the end of the run before it, which the decoder holds as the
 * output just before), so runs placed one after another decode as one stream; the last run ends
 * with the final block. The CRC-32 of the whole is combined from the runs' own (`crc32Combine`, GF(2)
 * arithmetic as zlib's `crc32_combine` does), so nothing is read twice.
 *
 * Here a run is `groupSize` consecutive flags of the body's `features` array (their bytes joined by
 * commas), kept while its flags' bytes are the same objects (client-api/features.ts makes them once
 * per flag revision): a write to one flag recompresses one group; adding a flag at the end, the
 * last (and the one after a changed group when the change reaches its dictionary); removing one in
 * the middle shifts every group after it (all compressed again, as before).
 *
 * At 5 000 bench flags (bench/seed.ts) the body is 3.5 MB of JSON, 94 KB gzipped whole: the whole
 * was compressed again for every revision and scope; now one group of 64 flags (≈ 45 KB) is, and
 * the assembled body is 96.7 KB. At 2 000 flags the gzip body after a one-flag write costs a
 * median 1.7–3.2 ms of CPU against 9.2–11.5 ms for gzipSync of the whole body (`npm run
 * bench:readers -- --flags 2000`, `client: gzip body after a write`: three runs of each, built
 * with and without this module, alternating). A request's end-to-end time after a write hides
 * much of that in the noise of the 2-core machine (11.4 ms without the groups, 14.5 with, 0.7
 * steady): other per-revision work still walks every flag (docs/benchmarks.md, readers after
 * writers), but the CPU saved is every scope's, every write.
 */
import { constants, crc32, deflateRawSync } from 'node:zlib';

/**
 * Flags per separately compressed run: 64 in a large body, 16 up to SMALL_BODY flags. A change
 * recompresses its group and the next (whose dictionary it ends), so at 100 flags (~68 KB of JSON)
 * groups of 64 recompressed the whole body after every write: 0.46–0.56 ms, most of the client
 * API's first read after a write, against 0.15–0.19 ms with groups of 16. Each group also ends a
 * deflate block, so small groups compress a little worse (100 flags: 3.2 KB against 2.9; 1 000:
 * 22.9 against 19.5 KB; 5 000: 111 against 93 KB, where 64 stays). Measured on bench/seed.ts's
 * flags, one change at a time, by a probe timing gzipJoined alone.
 */
export function groupSize(flags: number): number {
  return flags <= SMALL_BODY ? 16 : 64;
}

const SMALL_BODY = 1024;
const LEVEL = 6;

interface Run {
  readonly deflated: Buffer;
  readonly crc: number;
  readonly length: number;
  /** Its last WINDOW bytes (or all): the next run's dictionary. */
  readonly end: Buffer;
}

interface Group extends Run {
  /** The flags' bytes it was made of, in order (identity: a flag revision's bytes never change). */
  readonly members: readonly Buffer[];
  /** Whether it starts with a comma (every group but the first). */
  readonly leading: boolean;
  /** The dictionary it was compressed with (the previous run's `end`). */
  readonly dictionary: Buffer;
}

/** Groups compressed so far (tests: a write recompresses one). */
export const gzipCounts = { groups: 0 };

/** Groups by their first flag's bytes (dropped with them). */
const groups = new WeakMap<Buffer, Group>();
const COMMA = Buffer.from(',');

/** Deflate's window: how far back a match may reach. */
const WINDOW = 32 * 1024;

/**
 * `raw` compressed as a run of a longer stream: ended by a sync flush, or final. With the end of
 * what precedes it as a dictionary: matches may reach into it, which the decoder has in its window
 * (it is the output just before). Without one, each group of the bench's 5 000 flags started from
 * nothing and the body was 168 KB against 94 KB for the whole compressed at once; with it,
 * 96.7 KB (the figures at the top of this file).
 */
function run(raw: Buffer, final: boolean, dictionary?: Buffer): Run {
  const deflated = deflateRawSync(raw, { level: LEVEL, finishFlush: final ? constants.Z_FINISH : constants.Z_SYNC_FLUSH, ...(dictionary?.length ? { dictionary } : {}) });
  return { deflated, crc: crc32(raw), length: raw.length, end: raw.length > WINDOW ? raw.subarray(raw.length - WINDOW) : raw };
}

/**
 * The group of `members` after the run ending in `dictionary`: kept while its members are the
 * same objects and what precedes it ends the same way (a change in the previous group's last
 * 32 KB compresses this one again too, and no further: its own end is unchanged).
 */
function groupOf(members: readonly Buffer[], leading: boolean, dictionary: Buffer): Group {
  const held = groups.get(members[0]!);
  if (
    held !== undefined && held.leading === leading && held.members.length === members.length && held.members.every((bytes, i) => bytes === members[i])
    && (held.dictionary === dictionary || held.dictionary.equals(dictionary))
  ) return held;
  const pieces: Buffer[] = [];
  members.forEach((bytes, i) => {
    if (i > 0 || leading) pieces.push(COMMA);
    pieces.push(bytes);
  });
  const group: Group = { ...run(Buffer.concat(pieces), false, dictionary), members: [...members], leading, dictionary };
  gzipCounts.groups++;
  groups.set(members[0]!, group);
  return group;
}

/** The openings compressed, by their buffer (a constant, such as FEATURES_OPENING). */
const heads = new WeakMap<Buffer, Run>();

/**
 * The gzip form of `head` + the flags' bytes joined by commas + `tail`, byte for byte what
 * gunzip gives back. `head` is a constant buffer, compressed once.
 */
export function gzipJoined(head: Buffer, flags: readonly Buffer[], tail: Buffer): Buffer {
  let opening = heads.get(head);
  if (opening === undefined) heads.set(head, (opening = run(head, false)));
  const runs: Run[] = [opening];
  const size = groupSize(flags.length);
  for (let start = 0; start < flags.length; start += size) runs.push(groupOf(flags.slice(start, start + size), start > 0, runs.at(-1)!.end));
  runs.push(run(tail, true, runs.at(-1)!.end));
  let crc = 0;
  let length = 0;
  for (const r of runs) {
    crc = crc32Combine(crc, r.crc, r.length);
    length += r.length;
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(length % 0x1_0000_0000, 4);
  return Buffer.concat([GZIP_HEADER, ...runs.map((r) => r.deflated), trailer]);
}

/** ID1 ID2, deflate, no flags, no modification time, no extra flags, OS unknown (255): what zlib's gzip writes with no name. */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff]);

/** The CRC-32 (reflected, polynomial 0xedb88320) of A followed by B, from A's, B's and B's length. */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  if (lengthB === 0) return crcA >>> 0;
  return (multiplyModP(xToThe8nModP(lengthB), crcA) ^ crcB) >>> 0;
}

const POLY = 0xedb88320;

/** a × b modulo the CRC polynomial, bit-reflected (bit 31 is x^0). */
function multiplyModP(a: number, b: number): number {
  let m = 0x8000_0000;
  let p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}

/** x^(2^k) modulo the polynomial, for k = 0…31. */
const X_TO_2_TO_THE_K: number[] = (() => {
  const table: number[] = [];
  let p = 0x4000_0000; // x^1
  table.push(p);
  for (let k = 1; k < 32; k++) table.push((p = multiplyModP(p, p)));
  return table;
})();

/** x^(8 × bytes) modulo the polynomial: what shifting a CRC past `bytes` zero bytes multiplies it by. */
function xToThe8nModP(bytes: number): number {
  let p = 0x8000_0000; // x^0
  let k = 3; // 8 = 2^3
  for (let n = bytes; n > 0; n = Math.floor(n / 2), k++) if (n % 2 === 1) p = multiplyModP(X_TO_2_TO_THE_K[k % 32]!, p);
  return p;
}
