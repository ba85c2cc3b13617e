import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Collection, Db } from 'mongodb';
import { isDuplicateKey } from '../keys.js';
import type { NumberedEvent } from '../outbox/commit-log.js';
import { tailKey, type EventAppender, type TailEntry } from './append.js';
import { BLOCK_SIZE, blockKey, blockOf, encodeBlock, EventBodies, firstIdOf, sealedBodiesOf, type BlockDocument } from './blocks.js';
import { BodyLoader } from './body-loader.js';
import { CHUNK_BLOCKS, decodeChunk, encodeChunk, type ChunkDocument } from './chunks.js';
import type { LogWriter } from './index.js';
import { EventLogIndex } from './search-index.js';
import { LogSlots } from './slots.js';
import { TailPruner } from './tail-pruner.js';

/**
 * This instance's copy of the event log, kept for the search: the index (search-index.ts) and every
 * event's JSON (blocks.ts). The database stays the record; the copy is rebuilt from it at start
 * and follows it:
 *
 * - every commit's events arrive with the commit (`onCommitted`): this process's as it commits,
 *   before the write is acknowledged, so a search always sees its own writes; other instances' as
 *   the commit is read (within REVISION_POLL_MS). They are searchable at once and `unconfirmed`
 *   until seen stored: this process's when the appender stores them (`onAppended`), another
 *   instance's when read by key (`unstored`, the event flusher's check after its orphan delay).
 *   The log's tail is read whole only when ids are missing (a gap between the start's read and the
 *   first commit followed): at 2 000 flags a read of the whole tail per remote commit made two
 *   instances configure the soak's flags in 493 s against 80 s for one;
 * - when every slot of a block of 256 ids is known, the block is sealed into `event_blocks` (by
 *   whichever instance gets there first; the same bytes either way) and, a few blocks later, its
 *   tail documents are pruned, so the tail stays a few hundred documents: cheap to read even on
 *   FerretDB, where every read scans its collection.
 *
 * At start it reads the index chunks (log-chunks.ts: the columns of 65 536 ids per document, no
 * JSON), the blocks after the last chunk and the tail, and is ready: the search answers from the
 * index at once. The sealed JSON of the chunks' blocks is read in the background; a page asked for
 * meanwhile reads its events' blocks by key first (`bodiesFor`). A log without chunks (written
 * before they existed) is read from its blocks, and its chunks are written after the start.
 * Which ids it knows is slots.ts; pruning the tail, tail-pruner.ts; the background load of sealed
 * JSON, body-loader.ts.
 */

const SYNC_RETRY_MS = 1000;
/** Blocks read by key at once while looking for those after the last chunk (the guard's read slots on FerretDB). */
const PARALLEL_READS = 4;
/**
 * Documents per round trip of the start's reads: each round trip has the database deadline
 * (DB_TIMEOUT_MS, 2 s by default). The driver's default batches (up to 16 MB) made the chunks'
 * first round trip 32 chunks of ~0.5 MB, which a cold FerretDB did not return within 2 s at 10 M
 * events: the start failed, waited and began again, 85–99 s to `/ready` in three starts out of
 * four (9–12 s otherwise). 4 chunks or 64 blocks are ~2 MB.
 */
const CHUNKS_PER_BATCH = 4;
const BLOCKS_PER_BATCH = 64;

export interface MirrorLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export class EventLogMirror {
  readonly index = new EventLogIndex();
  readonly bodies = new EventBodies();
  private readonly blocks: Collection<BlockDocument>;
  private readonly chunks: Collection<ChunkDocument>;
  /** The first blocks of the chunks known to be stored. */
  private readonly chunked = new Set<number>();
  /** Where the next chunk to write starts (every chunk below is stored). */
  private nextChunk = 0;
  private readonly bodyLoader: BodyLoader;
  private readonly pruner: TailPruner;
  /** The listeners to appends and commits are registered (start may run again after a failure). */
  private listening = false;
  private readonly tail: Collection<TailEntry>;
  private readonly slots = new LogSlots(this.index, this.bodies);
  private ready = false;
  private becomeReady!: () => void;
  private readonly readied = new Promise<void>((resolve) => (this.becomeReady = () => { this.ready = true; resolve(); }));
  private work: Promise<void> = Promise.resolve();
  private syncQueued = false;
  /** The queued or running read of the tail for other instances' events (remoteRead). */
  private tailRead: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly appender: EventAppender, private readonly writer: LogWriter, db: Db, private readonly log: MirrorLogger,
    /** Blocks per index chunk written (tests write smaller ones); chunks of any size are read. */
    private readonly chunkBlocks = CHUNK_BLOCKS,
  ) {
    this.blocks = db.collection<BlockDocument>('event_blocks');
    this.chunks = db.collection<ChunkDocument>('event_chunks');
    this.tail = appender.tail;
    this.bodyLoader = new BodyLoader(this.blocks, this.bodies, log, () => this.stopped);
    this.pruner = new TailPruner(this.tail, writer, log, () => this.slots.sealedThrough, () => this.stopped);
  }

  isReady(): boolean {
    return this.ready;
  }

  async whenReady(): Promise<void> {
    await this.readied;
  }

  /**
   * Loads the index (chunks, then the blocks after them, then the tail), then follows the log. The
   * chunks' JSON is read in the background (body-loader.ts).
   *
   * At 10 M events, from blocks alone a start reads 39 062 documents (~2 GB as FerretDB stores
   * them); from chunks it reads 152 documents of ~0.5 MB (72 MiB, ~2.2 s of CPU to index,
   * bench/event-index.ts), the ≤ 255 blocks after them by key, 4 at a time, and the tail.
   */
  async start(): Promise<void> {
    // A start that failed (the database did not answer in time) is begun again by the caller:
    // what it loaded stays (chunks and blocks already indexed are skipped), and it listens once.
    if (!this.listening) {
      this.listening = true;
      this.appender.onAppended((entry) => {
        this.slots.accept(entry);
        this.schedule(() => this.sealComplete());
      });
      this.writer.onCommitted((_remote, events) => this.takeCommitted(events));
    }
    const started = performance.now();
    let decoding = 0;
    let ordering: number;
    let lowestInTail = Number.POSITIVE_INFINITY;
    this.index.beginBulk();
    try {
      // The next round trip is in flight while a batch is decoded (the decoding, ~1.6 s of CPU at
      // 10 M events, overlaps the reading instead of following it).
      const cursor = this.chunks.find({}, { batchSize: CHUNKS_PER_BATCH });
      try {
        let more = cursor.hasNext();
        while (await more) {
          const docs = cursor.readBufferedDocuments();
          more = cursor.hasNext();
          more.catch(() => undefined); // awaited on the next turn; a failure must not go unhandled meanwhile
          await yieldToEventLoop(); // the round trip is sent before the CPU work
          const at = performance.now();
          for (const doc of docs) this.loadChunk(doc);
          decoding += performance.now() - at;
        }
      } finally {
        await cursor.close().catch(() => undefined);
      }
      if (this.chunked.size === 0) {
        for await (const doc of this.blocks.find({}, { batchSize: BLOCKS_PER_BATCH })) this.slots.loadBlock(doc);
      } else {
        await this.loadBlocksAfterChunks();
      }
      for await (const entry of this.tail.find({})) {
        this.slots.accept(entry);
        lowestInTail = Math.min(lowestInTail, entry.id);
      }
    } finally {
      const at = performance.now();
      this.index.endBulk();
      ordering = performance.now() - at;
    }
    const ms = (value: number) => Math.round(value);
    this.log.info({
      events: this.index.size, chunks: this.chunked.size, ms: ms(performance.now() - started), decodingMs: ms(decoding), orderingMs: ms(ordering),
    }, 'event log mirror: index loaded');
    this.bodyLoader.start();
    this.pruner.begin(lowestInTail);
    this.becomeReady();
    this.schedule(() => this.sealComplete());
    this.schedule(() => this.writeChunks());
  }

  private loadChunk(doc: ChunkDocument): void {
    if (this.chunked.has(doc.firstBlock)) return;
    this.index.addColumns(decodeChunk(doc));
    for (let block = doc.firstBlock; block < doc.firstBlock + doc.blockCount; block++) {
      if (this.slots.isSealed(block)) continue;
      this.bodyLoader.add(block);
      this.slots.markSealed(block);
    }
    this.chunked.add(doc.firstBlock);
  }

  /**
   * The sealed blocks no chunk covers, read by key from the first (a range read or `$in` would
   * scan every block on FerretDB): up to the first block not sealed, whose events are in the tail.
   */
  private async loadBlocksAfterChunks(): Promise<void> {
    let block = this.slots.sealedThrough + 1;
    for (;;) {
      const keys: number[] = [];
      for (; keys.length < PARALLEL_READS; block++) if (!this.slots.isSealed(block)) keys.push(block);
      const docs = await Promise.all(keys.map((b) => this.blocks.findOne({ _id: blockKey(b) })));
      for (const doc of docs) if (doc) this.slots.loadBlock(doc);
      if (docs.some((doc) => doc === null)) return;
    }
  }

  /** Makes the JSON of these events readable (`json`), reading blocks the background load has not reached. */
  async bodiesFor(ids: Iterable<number>): Promise<void> {
    await this.bodyLoader.bodiesFor(ids);
  }

  /** Writes the index chunks of sealed blocks not written yet (after a start on an older log, and as blocks are sealed). */
  private async writeChunks(): Promise<void> {
    while (this.nextChunk + this.chunkBlocks - 1 <= this.slots.sealedThrough) {
      const first = this.nextChunk;
      if (!this.chunked.has(first)) {
        const doc = encodeChunk(first, this.chunkBlocks, this.index.columnsOf(firstIdOf(first), this.chunkBlocks * BLOCK_SIZE));
        try {
          await this.chunks.insertOne(doc);
        } catch (err) {
          if (!isDuplicateKey(err)) throw err; // written by another instance: the same columns
        }
        this.chunked.add(first);
      }
      this.nextChunk = first + this.chunkBlocks;
    }
  }

  stop(): void {
    this.stopped = true;
  }

  /** Background work runs one step at a time, in order; a failed step is logged, not fatal. */
  private schedule(step: () => Promise<void>): void {
    this.work = this.work.then(async () => {
      if (this.stopped) return;
      try {
        await step();
      } catch (err) {
        this.log.warn({ err }, 'event log mirror: step failed (retried on the next change)');
      }
    });
  }

  /** Settles when the background work queued so far is done (tests, shutdown). */
  async settled(): Promise<void> {
    let current: Promise<void>;
    do {
      current = this.work;
      await current;
      await this.pruner.settled();
    } while (current !== this.work || this.pruner.busy);
    await this.bodyLoader.settled();
  }

  /** Reads other instances' events now (instead of at the next noticed revision). */
  async sync(): Promise<void> {
    this.requestSync();
    await this.settled();
  }

  /**
   * Resolves once the tail has been read for every other instance's revision noticed so far (or
   * that read failed, and is retried): a search after a noticed revision includes its events.
   */
  async remoteRead(): Promise<void> {
    await this.tailRead;
  }

  private requestSync(): void {
    if (this.syncQueued) return;
    this.syncQueued = true;
    this.schedule(async () => {
      this.syncQueued = false;
      try {
        await this.syncTail();
      } catch (err) {
        // No further revision may come to prompt another try (the database was away): retry.
        if (!this.stopped) setTimeout(() => this.requestSync(), SYNC_RETRY_MS).unref();
        throw err;
      }
    });
    this.tailRead = this.work; // settles when the step ends (schedule's chain never rejects)
    this.schedule(() => this.sealComplete());
  }

  /** A commit's events: searchable now, stored once confirmed (see the class). */
  private takeCommitted(events: readonly NumberedEvent[]): void {
    const first = events[0];
    if (!first) return;
    // Ids between the newest known and these: commits this copy did not hear of (see the class).
    if (this.ready && first.id > this.index.newestId + 1) this.requestSync();
    for (const { id, event } of events) this.slots.acceptCommitted(id, event);
  }

  /** Whether the event with this id is known to be stored (in the tail or a sealed block). */
  holds(id: number): boolean {
    return this.slots.holds(id);
  }

  /**
   * Those of `events` not stored: each not known stored is looked for by key in the tail, then in
   * its sealed block (another instance may have sealed it and pruned the tail meanwhile).
   */
  async unstored(events: readonly NumberedEvent[]): Promise<NumberedEvent[]> {
    const unknown = events.filter(({ id }) => !this.slots.holds(id));
    if (!unknown.length) return [];
    // One read at a time: the check runs beside requests, which the read slots are for.
    for (const { id, event } of unknown) {
      const entry = await this.tail.findOne({ _id: tailKey(id) });
      if (entry?.key === event.key) this.slots.accept(entry);
    }
    const blocks = [...new Set(unknown.filter(({ id }) => !this.slots.holds(id)).map(({ id }) => blockOf(id)))];
    for (const doc of await Promise.all(blocks.map((block) => this.blocks.findOne({ _id: blockKey(block) })))) if (doc) this.slots.loadBlock(doc);
    this.schedule(() => this.sealComplete());
    return unknown.filter(({ id }) => !this.slots.holds(id));
  }

  /**
   * Reads the tail for other instances' events. Ids below the tail that this instance never saw
   * were sealed and pruned meanwhile: their blocks are read from `event_blocks`.
   */
  private async syncTail(): Promise<void> {
    let lowest = Number.POSITIVE_INFINITY;
    let highest = 0;
    for await (const entry of this.tail.find({})) {
      this.slots.accept(entry);
      lowest = Math.min(lowest, entry.id);
      highest = Math.max(highest, entry.id);
    }
    const below = Number.isFinite(lowest) ? blockOf(lowest) : blockOf(highest + 1);
    const missing: string[] = [];
    for (let block = this.slots.sealedThrough + 1; block < below; block++) {
      if (!this.slots.isSealed(block)) missing.push(blockKey(block));
    }
    if (missing.length === 0) return;
    for await (const doc of this.blocks.find({ _id: { $in: missing } })) this.slots.loadBlock(doc);
  }

  /** Seals every block whose slots are all known and stored (oldest first), then prunes the tail. */
  private async sealComplete(): Promise<void> {
    const complete = this.slots.sealable();
    for (const { block, entries } of complete) {
      const doc = encodeBlock(block, entries);
      try {
        await this.blocks.insertOne(doc);
      } catch (err) {
        if (!isDuplicateKey(err)) throw err; // sealed by another instance: the same events
      }
      this.bodies.seal(block, sealedBodiesOf(doc));
      this.slots.markSealed(block);
    }
    if (complete.length > 0) {
      this.pruner.soon();
      if (this.ready) await this.writeChunks();
    }
  }

  /** Deletes the tail documents an earlier run left unpruned, when writers pause (once serving). */
  pruneLeftovers(): void {
    this.pruner.pruneLeftovers();
  }

  /** The stored JSON of an event this instance knows. */
  json(id: number): string | undefined {
    return this.bodies.json(id);
  }
}
