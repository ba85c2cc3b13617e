/**
 * Sealed blocks of the event log: BLOCK_SIZE consecutive ids in one document, holding the index
 * columns (binary, for loading the search index without parsing events) and the events themselves
 * (their JSON, deflated together). Pure encoding and decoding; the mirror reads and writes them.
 *
 * Why blocks: every instance keeps the whole log searchable (search-index.ts) and its events readable
 * (EventBodies). Loading that from a million event documents means decoding a million documents;
 * from blocks it is one read of ~4 000 documents, about a seventh of the bytes. And FerretDB reads
 * any single document by scanning its collection, so the blocks collection, not `events`, is what
 * an instance that fell behind reads.
 *
 * Sizes: a block holds 256 events (about 4 000 documents for a million events); its JSON is
 * deflated in segments of 8 events with a preset dictionary (dictionary.ts), so reading one
 * event inflates ~5 KB, not the block's ~170 KB: a page of a rare filter, whose 50 events sit in 50
 * different blocks, costs 50 small inflates. (Measured at 1 M events: whole-block deflate gave such
 * pages p97.5 22 ms at 50 000 events; 32-event segments without a dictionary 1.8 ms of inflating per
 * page at 89 bytes per event; 8-event segments with the dictionary 0.8 ms at 87 bytes.)
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import { Binary } from 'mongodb';
import { CURRENT_DICTIONARY, presetDictionary } from './dictionary.js';
import { groupHashOf, type IndexedEvent } from './search-index.js';

export const BLOCK_SIZE = 256;
/** How a block's JSON is deflated: slots per segment, and the preset dictionary's version. */
export interface BodyFormat {
  segmentSize: number;
  dictionary: number;
}

/** What this version writes. */
export const CURRENT_FORMAT: BodyFormat = { segmentSize: 8, dictionary: CURRENT_DICTIONARY };

/** Block n holds ids n·256+1 … n·256+256. */
export function blockOf(id: number): number {
  return Math.floor((id - 1) / BLOCK_SIZE);
}

export function firstIdOf(block: number): number {
  return block * BLOCK_SIZE + 1;
}

export interface BlockDocument {
  _id: string;
  block: number;
  /** Per slot: createdAt, user id (NaN = null), type, project, flag, environment codes, group hash, present. */
  columns: Binary;
  /** The codes' strings: code c is strings[c - 1]; 0 is null. */
  strings: string[];
  /** The events' JSON (UTF-8) in id order, deflated per segment of `segmentSize` slots, concatenated. */
  bodies: Binary;
  /** Where each deflated segment starts in `bodies` (BLOCK_SIZE / segmentSize + 1 entries, uint32). */
  segments: Binary;
  /** Byte offsets of each slot's JSON in its segment's inflated text (BLOCK_SIZE + 1 entries, uint32; per segment from 0). */
  offsets: Binary;
  /** Slots per deflated segment; absent in the first format (32). */
  segmentSize: number;
  /** The preset dictionary's version (dictionary.ts); 0: none. */
  dictionary: number;
}

/** Room for a segment's last event when sizing the inflate output (event JSON is ~0.4–2 KB). */
const LAST_EVENT_ROOM = 2048;
/** zlib's smallest output chunk. */
const MIN_CHUNK = 64;

export function blockKey(block: number): string {
  return `b${block}`;
}

/** One slot of a block: an event, or null for an id that will never hold one (a void slot). */
export interface BlockEntry {
  event: IndexedEvent;
  json: string;
}

const COLUMN_BYTES = 8 + 8 + 4 * 6;

export function encodeBlock(block: number, entries: Array<BlockEntry | null>, format: BodyFormat = CURRENT_FORMAT): BlockDocument {
  const { segmentSize } = format;
  if (entries.length !== BLOCK_SIZE) throw new Error(`a block holds ${BLOCK_SIZE} slots, got ${entries.length}`);
  const strings: string[] = [];
  const codes = new Map<string, number>();
  const code = (value: string | null): number => {
    if (value === null) return 0;
    let c = codes.get(value);
    if (c === undefined) {
      strings.push(value);
      c = strings.length;
      codes.set(value, c);
    }
    return c;
  };
  const dictionary = presetDictionary(format.dictionary);
  const deflateOptions = dictionary ? { dictionary } : {};
  const columns = Buffer.alloc(COLUMN_BYTES * BLOCK_SIZE);
  const offsets = new Uint32Array(BLOCK_SIZE + 1);
  const segments = new Uint32Array(BLOCK_SIZE / segmentSize + 1);
  const deflated: Buffer[] = [];
  let deflatedLength = 0;
  let texts: Buffer[] = [];
  let length = 0;
  entries.forEach((entry, slot) => {
    offsets[slot] = length;
    const base = slot * COLUMN_BYTES;
    if (entry) {
      const e = entry.event;
      columns.writeDoubleLE(e.at, base);
      columns.writeDoubleLE(e.createdByUserId ?? Number.NaN, base + 8);
      columns.writeUInt32LE(code(e.type), base + 16);
      columns.writeUInt32LE(code(e.project), base + 20);
      columns.writeUInt32LE(code(e.featureName), base + 24);
      columns.writeUInt32LE(code(e.environment), base + 28);
      columns.writeUInt32LE(groupHashOf(e), base + 32);
      columns.writeUInt32LE(1, base + 36);
      const text = Buffer.from(entry.json, 'utf8');
      texts.push(text);
      length += text.length;
    } else {
      columns.writeDoubleLE(Number.NaN, base + 8);
    }
    if ((slot + 1) % segmentSize === 0) {
      // The slot after a segment's last starts the next segment's text at 0.
      const segmentEnd = length;
      const segment = deflateRawSync(Buffer.concat(texts, length), deflateOptions);
      deflated.push(segment);
      deflatedLength += segment.length;
      segments[(slot + 1) / segmentSize] = deflatedLength;
      if (slot + 1 < BLOCK_SIZE) {
        texts = [];
        length = 0;
      } else {
        offsets[BLOCK_SIZE] = segmentEnd;
      }
    }
  });
  return {
    _id: blockKey(block),
    block,
    columns: new Binary(columns),
    strings,
    bodies: new Binary(Buffer.concat(deflated, deflatedLength)),
    segments: new Binary(Buffer.from(segments.buffer)),
    offsets: new Binary(Buffer.from(offsets.buffer)),
    segmentSize,
    dictionary: format.dictionary,
  };
}

function bytesOf(binary: Binary | Uint8Array): Buffer {
  const raw = binary instanceof Binary ? binary.buffer : binary;
  // A copy: the driver's view may keep a whole network batch alive.
  return Buffer.from(raw);
}

/** The indexed events of a block (void slots left out). */
export function decodeBlockIndex(doc: BlockDocument): IndexedEvent[] {
  const columns = bytesOf(doc.columns);
  const value = (c: number): string | null => (c === 0 ? null : doc.strings[c - 1]!);
  const events: IndexedEvent[] = [];
  const first = firstIdOf(doc.block);
  for (let slot = 0; slot < BLOCK_SIZE; slot++) {
    const base = slot * COLUMN_BYTES;
    if (columns.readUInt32LE(base + 36) !== 1) continue;
    const user = columns.readDoubleLE(base + 8);
    events.push({
      id: first + slot,
      at: columns.readDoubleLE(base),
      createdByUserId: Number.isNaN(user) ? null : user,
      type: value(columns.readUInt32LE(base + 16))!,
      project: value(columns.readUInt32LE(base + 20)),
      featureName: value(columns.readUInt32LE(base + 24)),
      environment: value(columns.readUInt32LE(base + 28)),
      groupHash: columns.readUInt32LE(base + 32),
    });
  }
  return events;
}

export interface SealedBodies {
  deflated: Buffer;
  segments: Uint32Array;
  offsets: Uint32Array;
  segmentSize: number;
  dictionary: Buffer | undefined;
}

function uint32s(binary: Binary): Uint32Array {
  const bytes = bytesOf(binary);
  return new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
}

export function sealedBodiesOf(doc: BlockDocument): SealedBodies {
  const { segmentSize } = doc;
  const segments = uint32s(doc.segments);
  if (!Number.isInteger(segmentSize) || BLOCK_SIZE % segmentSize !== 0 || segments.length !== BLOCK_SIZE / segmentSize + 1) {
    throw new Error(`event block ${doc.block}: ${segments.length - 1} segments do not fit a segment size of ${segmentSize}`);
  }
  return { deflated: bytesOf(doc.bodies), segments, offsets: uint32s(doc.offsets), segmentSize, dictionary: presetDictionary(doc.dictionary) };
}

/**
 * The events' JSON: loose (not yet sealed, as received) or sealed (deflated per segment, inflated
 * on demand).
 *
 * Memory churn decides tail latency here. Inflated segments are cached in a small LRU only: it
 * serves a page of neighbouring events (one inflate per segment, not per event) and the free-text
 * scan, while the segments of a page of a rare filter die young. A large cache kept them until a
 * full collection: at 1 M events, a cache of 1 024 segments (each holding zlib's 16 KiB output
 * chunk) forced a mark-compact every ~300 ms under cold pages — the p99 of a flag filter. The
 * output chunk is sized to the segment's text for the same reason.
 */
export class EventBodies {
  private readonly loose = new Map<number, string>();
  private readonly sealed = new Map<number, SealedBodies>();
  private readonly inflated: LRUCache<number, Buffer>;

  constructor(inflatedSegments = 32) {
    this.inflated = new LRUCache({ max: Math.max(1, inflatedSegments) });
  }

  addLoose(id: number, json: string): void {
    if (!this.sealed.has(blockOf(id))) this.loose.set(id, json);
  }

  /** Keeps a sealed block's bodies; the loose copies of its events are dropped. */
  seal(block: number, bodies: SealedBodies): void {
    this.sealed.set(block, bodies);
    const first = firstIdOf(block);
    for (let id = first; id < first + BLOCK_SIZE; id++) this.loose.delete(id);
  }

  /**
   * The inflated text of the segment holding `id` (shared: callers must not modify it), or
   * undefined when the id is loose or unknown. Useful to rule out a whole segment at once.
   */
  segmentText(id: number): { key: number; text: Buffer } | undefined {
    const block = blockOf(id);
    const bodies = this.sealed.get(block);
    if (!bodies) return undefined;
    const segment = Math.floor((id - firstIdOf(block)) / bodies.segmentSize);
    const key = block * BLOCK_SIZE + segment;
    let text = this.inflated.get(key);
    if (text === undefined) {
      text = inflateRawSync(
        bodies.deflated.subarray(bodies.segments[segment], bodies.segments[segment + 1]),
        { chunkSize: this.outputSize(bodies, segment), ...(bodies.dictionary ? { dictionary: bodies.dictionary } : {}) },
      );
      this.inflated.set(key, text);
    }
    return { key, text };
  }

  /**
   * A segment's inflated size, or near it: where its last event starts plus room for that event.
   * (Too small costs one more chunk and a copy; too big is memory held while the text lives.)
   */
  private outputSize(bodies: SealedBodies, segment: number): number {
    const last = (segment + 1) * bodies.segmentSize - 1;
    const end = last + 1 === BLOCK_SIZE ? bodies.offsets[BLOCK_SIZE]! : bodies.offsets[last]! + LAST_EVENT_ROOM;
    return Math.max(MIN_CHUNK, end);
  }

  json(id: number): string | undefined {
    const loose = this.loose.get(id);
    if (loose !== undefined) return loose;
    const segment = this.segmentText(id);
    if (!segment) return undefined;
    const bodies = this.sealed.get(blockOf(id))!;
    const slot = id - firstIdOf(blockOf(id));
    const start = bodies.offsets[slot]!;
    // The last slot of a segment ends where its text ends (the next offset restarts at 0).
    const end = (slot + 1) % bodies.segmentSize === 0 ? segment.text.length : bodies.offsets[slot + 1]!;
    return start === end ? undefined : segment.text.toString('utf8', start, end);
  }

  /** Bytes held: deflated blocks plus loose JSON (UTF-16 estimate). */
  get bytes(): number {
    let total = 0;
    for (const b of this.sealed.values()) total += b.deflated.length + b.offsets.byteLength + b.segments.byteLength;
    for (const json of this.loose.values()) total += json.length * 2;
    return total;
  }
}
