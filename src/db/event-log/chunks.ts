/**
 * Index chunks of the event log: the search index's columns for CHUNK_BLOCKS sealed blocks
 * (65 536 ids) in one document of `event_chunks`, without the events' JSON. Pure encoding and
 * decoding; the mirror (log-mirror.ts) writes a chunk once all its blocks are sealed and reads the
 * chunks at start, before anything else.
 *
 * Why: at start an instance must know every event's filterable fields before it answers a search
 * (`/ready`), but not their JSON. From blocks alone that meant reading every block, bodies and all:
 * at 10 M events 39 062 documents, 2 GB in FerretDB's files (a start from blocks took 8–13 s at
 * 1 M events: 1.5–2 minutes at 10 M). Chunks carry only the columns, 7.6 bytes per event deflated
 * (72 MiB in 152 documents at 10 M events; decoding and indexing them takes ~2.2 s of CPU,
 * bench/event-index.ts); the bodies follow in the background (and on demand for the pages asked
 * meanwhile).
 *
 * Layout of the inflated `columns`, slot by slot within each column (n = blockCount · 256 slots):
 * createdAt as Float64 differences from the previous event's (NaN where a slot holds no event; the
 * differences are small integers, which deflate well), group hashes as Uint32, then the type,
 * project, flag, environment and user codes, each as 1, 2 or 4 bytes (`widths`), each into its own
 * dictionary (`types`, …; code c is values[c - 1], 0 null). A type code of 0 is a slot without an
 * event (a void id).
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { Binary } from 'mongodb';
import { BLOCK_SIZE } from './blocks.js';
import { codesFor, type Codes, type CodedSlice, type IndexColumns } from './search-index.js';

/** Blocks per chunk: 256 blocks of 256 ids. */
export const CHUNK_BLOCKS = 256;

export interface ChunkDocument {
  _id: string;
  /** The first block it covers (its first id is firstBlock · 256 + 1). */
  firstBlock: number;
  blockCount: number;
  /** The columns, deflated (layout above). */
  columns: Binary;
  /** Bytes per code of the type, project, flag, environment and user columns. */
  widths: number[];
  types: string[];
  projects: string[];
  features: string[];
  environments: string[];
  users: number[];
}

export function chunkKey(firstBlock: number): string {
  return `c${firstBlock}`;
}

function bytesOfCodes(codes: Codes): Buffer {
  return Buffer.from(codes.buffer, codes.byteOffset, codes.byteLength);
}

export function encodeChunk(firstBlock: number, blockCount: number, columns: IndexColumns): ChunkDocument {
  const slots = blockCount * BLOCK_SIZE;
  if (columns.count !== slots || columns.first !== firstBlock * BLOCK_SIZE + 1) {
    throw new Error(`chunk ${firstBlock}: columns of ids ${columns.first}+${columns.count} do not fit ${blockCount} blocks`);
  }
  const deltas = new Float64Array(slots);
  let previous = 0;
  for (let slot = 0; slot < slots; slot++) {
    const at = columns.at[slot]!;
    if (columns.type.codes[slot] === 0) {
      deltas[slot] = Number.NaN;
      continue;
    }
    deltas[slot] = at - previous;
    previous = at;
  }
  const coded = [columns.type, columns.project, columns.feature, columns.environment, columns.user];
  const raw = Buffer.concat([
    Buffer.from(deltas.buffer),
    Buffer.from(columns.group.buffer, columns.group.byteOffset, columns.group.byteLength),
    ...coded.map((slice) => bytesOfCodes(slice.codes)),
  ]);
  return {
    _id: chunkKey(firstBlock),
    firstBlock,
    blockCount,
    columns: new Binary(deflateRawSync(raw)),
    widths: coded.map((slice) => slice.codes.BYTES_PER_ELEMENT),
    types: columns.type.values,
    projects: columns.project.values,
    features: columns.feature.values,
    environments: columns.environment.values,
    users: columns.user.values,
  };
}

/** A typed array over `bytes` at `offset` (copied: the inflated buffer's offsets need not be aligned). */
function codesAt(bytes: Buffer, offset: number, slots: number, width: number): Codes {
  const codes = codesFor(width === 1 ? 0xff : width === 2 ? 0xffff : 0x10000, slots);
  const view = bytes.subarray(offset, offset + slots * width);
  new Uint8Array(codes.buffer).set(view);
  return codes;
}

export function decodeChunk(doc: ChunkDocument): IndexColumns {
  const slots = doc.blockCount * BLOCK_SIZE;
  const bytes = inflateRawSync(doc.columns.buffer);
  const widths = doc.widths;
  const expected = slots * (8 + 4 + widths.reduce((sum, w) => sum + w, 0));
  if (widths.length !== 5 || bytes.length !== expected) {
    throw new Error(`event chunk ${doc.firstBlock}: ${bytes.length} bytes of columns, expected ${expected}`);
  }
  const at = new Float64Array(slots);
  new Uint8Array(at.buffer).set(bytes.subarray(0, slots * 8));
  let previous = 0;
  for (let slot = 0; slot < slots; slot++) {
    if (Number.isNaN(at[slot]!)) continue;
    previous += at[slot]!;
    at[slot] = previous;
  }
  const group = new Uint32Array(slots);
  new Uint8Array(group.buffer).set(bytes.subarray(slots * 8, slots * 12));
  let offset = slots * 12;
  const slice = <V extends string | number>(k: number, values: V[]): CodedSlice<V> => {
    const codes = codesAt(bytes, offset, slots, widths[k]!);
    offset += slots * widths[k]!;
    return { codes, values };
  };
  const type = slice(0, doc.types);
  const project = slice(1, doc.projects);
  const feature = slice(2, doc.features);
  const environment = slice(3, doc.environments);
  const user = slice(4, doc.users);
  return { first: doc.firstBlock * BLOCK_SIZE + 1, count: slots, at, group, type, project, feature, environment, user };
}
