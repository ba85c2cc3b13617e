import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Collection, Db } from 'mongodb';
import { Gauge, type Registry } from 'prom-client';
import { isDuplicateKey } from '../keys.js';
import { tailKey, type EventAppender, type TailEntry } from './append.js';
import type { LogWriter } from './index.js';
import { storedEventJson } from './stored.js';
import {
  BLOCK_SIZE, blockKey, blockOf, decodeBlockIndex, encodeBlock, EventBodies, firstIdOf, sealedBodiesOf,
  type BlockDocument, type BlockEntry,
} from './blocks.js';
import { CHUNK_BLOCKS, decodeChunk, encodeChunk, type ChunkDocument } from './chunks.js';
import { EventLogIndex, type IndexedEvent } from './search-index.js';

/**
 * This instance's copy of the event log, kept for the search: the index (search-index.ts) and every
 * event's JSON (blocks.ts). The database stays the record; the copy is rebuilt from it at start
 * and follows it:
 *
 * - events this process appends arrive from the appender as they are stored (`onAppended`), before
 *   the write is acknowledged, so a search always sees its own writes;
 * - other instances' events are read from `event_tail` when their revision is noticed
 *   (`onCommitted` with remote = true; within REVISION_POLL_MS);
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
 *
 * A log written before the tail existed (or seeded straight into `events`) is read once from
 * `events` in the background and sealed into blocks; until then the search uses the database.
 */

/** Tail documents of this many sealed blocks are kept (ids recently claimed stay findable by key). */
const TAIL_KEPT_BLOCKS = 4;
/**
 * Tail documents past those kept that may wait for requests' writes to pause before they are
 * deleted (LogWriter.maintenanceTurn); past this many (two blocks) they are deleted as they come,
 * STEADY_DELETES or URGENT_DELETES to a command, so the tail stays bounded under any stream of writes.
 */
const PRUNE_BACKLOG = 512;
/**
 * Tail documents deleted in one command past PRUNE_BACKLOG (pruneTail): a few while the backlog is
 * within twice the bound, more past that. The user's write that comes meanwhile waits for the
 * whole command: at 5 000 flags, eight to a command took 13 ms on average during sequential
 * toggles, up to 31 ms, and set the toggles' p99 (command monitoring, 300 writes of each
 * kind: on/off p99 60.8 ms); a burst of writes crosses the bound with every block sealed, so most
 * of them are deleted two at a time. A client that never pauses (the 2 000-flag replay) drives the
 * backlog past twice the bound, where eight to a command keep up with it (the replay beside the
 * reference right after the change: 0.29× its time in a slow hour).
 */
const STEADY_DELETES = 2;
const URGENT_DELETES = 8;
const META_ID = 'event-log';
const SYNC_RETRY_MS = 1000;
/**
 * A page whose events lie in more blocks without their JSON than this waits for the background
 * load instead of reading them by key (a free-text search over the whole log, right after start).
 * 64 reads by key take ~100–200 ms on FerretDB through its 4 read slots.
 */
const ON_DEMAND_BLOCKS = 64;
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
/** Between attempts of the background load of the sealed events' JSON after a failed round trip. */
const BODY_RETRY_MS = 1000;

interface LogMetaDocument {
  _id: string;
  /** Every event from id 1 has a tail claim or a sealed block (the log needs no backfill). */
  complete?: boolean;
}

export interface MirrorLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/** The fields of a stored event the index keeps (from its JSON, or from its `events` document). */
interface StoredFields {
  type: string; createdAt: string | Date; project?: string | null; featureName?: string | null; environment?: string | null;
  createdByUserId?: number | null; groupId?: string | null;
}

function indexedEvent(id: number, e: StoredFields): IndexedEvent {
  return {
    id, at: typeof e.createdAt === 'string' ? Date.parse(e.createdAt) : e.createdAt.getTime(), type: e.type,
    project: e.project ?? null, featureName: e.featureName ?? null, environment: e.environment ?? null,
    createdByUserId: e.createdByUserId ?? null, groupId: e.groupId ?? null,
  };
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
  /** Sealed blocks indexed from a chunk whose JSON is not loaded yet. */
  private readonly bodiless = new Set<number>();
  private bodyLoad: Promise<void> = Promise.resolve();
  private bodyLoadStarted = false;
  /** The listeners to appends and commits are registered (start may run again after a failure). */
  private listening = false;
  private readonly tail: Collection<TailEntry>;
  private readonly meta: Collection<LogMetaDocument>;
  /** Slots of blocks not sealed yet: the event, or null for a void slot. */
  private readonly pending = new Map<number, Map<number, BlockEntry | null>>();
  private sealedThrough = -1;
  private readonly sealedBlocks = new Set<number>();
  private ready = false;
  private readonly readyWaiters: Array<() => void> = [];
  private work: Promise<void> = Promise.resolve();
  /** The pruning of the tail under way (pruneSoon), beside `work`: it may wait for writers to pause. */
  private pruning: Promise<void> | undefined;
  private pruneAgain = false;
  /**
   * The lowest id whose tail document may still exist: the lowest one the start's read of the
   * tail found (or the first id after the sealed blocks, for an empty tail), then past each id
   * pruned. Ids are dense, so the documents to prune are known by key (pruneTail). Unknown
   * (infinite) until then, or for a log that needs a backfill (see pruneTail).
   */
  private tailFloor = Number.POSITIVE_INFINITY;
  /**
   * Tail documents an earlier run left unpruned (it stopped behind its writers), found by the
   * start's read: ids `next` up to `end`. Deleted one by one when writers pause, from
   * `pruneLeftovers` (once the server is serving) or the next block sealed, after that block's;
   * each start reads them until then.
   */
  private leftovers: { next: number; end: number } | undefined;
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
    this.meta = db.collection<LogMetaDocument>('meta');
  }

  isReady(): boolean {
    return this.ready;
  }

  async whenReady(): Promise<void> {
    if (this.ready) return;
    await new Promise<void>((resolve) => this.readyWaiters.push(resolve));
  }

  /**
   * Loads the index (chunks, then the blocks after them, then the tail), then follows the log. The
   * chunks' JSON is read in the background; a log that needs a backfill from `events` too.
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
        this.accept(entry);
        this.schedule(() => this.sealComplete());
      });
      this.writer.onCommitted((remote) => {
        if (remote) this.requestSync();
      });
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
        for await (const doc of this.blocks.find({}, { batchSize: BLOCKS_PER_BATCH })) this.loadBlock(doc);
      } else {
        await this.loadBlocksAfterChunks();
      }
      for await (const entry of this.tail.find({})) {
        this.accept(entry);
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
    if (!this.bodyLoadStarted) {
      this.bodyLoadStarted = true;
      this.bodyLoad = this.loadBodies();
    }
    const meta = await this.meta.findOne({ _id: META_ID });
    if (meta?.complete || !(await this.appender.events.findOne({}, { projection: { _id: 1 } }))) {
      if (!meta?.complete) await this.markComplete();
      // Every later tail document belongs to a block not sealed yet, above this.
      const floor = Math.min(this.tailFloor, lowestInTail, firstIdOf(this.sealedThrough + 1));
      const kept = firstIdOf(this.sealedThrough - TAIL_KEPT_BLOCKS + 1);
      if (floor < kept) {
        this.leftovers = { next: floor, end: kept };
        this.tailFloor = kept;
      } else {
        this.tailFloor = floor;
      }
      this.becomeReady();
      this.schedule(() => this.sealComplete());
      this.schedule(() => this.writeChunks());
      return;
    }
    this.schedule(() => this.backfill());
  }

  private loadChunk(doc: ChunkDocument): void {
    if (this.chunked.has(doc.firstBlock)) return;
    this.index.addColumns(decodeChunk(doc));
    for (let block = doc.firstBlock; block < doc.firstBlock + doc.blockCount; block++) {
      if (this.sealedBlocks.has(block)) continue;
      this.bodiless.add(block);
      this.markSealed(block);
    }
    this.chunked.add(doc.firstBlock);
  }

  /**
   * The sealed blocks no chunk covers, read by key from the first (a range read or `$in` would
   * scan every block on FerretDB): up to the first block not sealed, whose events are in the tail.
   */
  private async loadBlocksAfterChunks(): Promise<void> {
    let block = this.sealedThrough + 1;
    for (;;) {
      const keys: number[] = [];
      for (; keys.length < PARALLEL_READS; block++) if (!this.sealedBlocks.has(block)) keys.push(block);
      const docs = await Promise.all(keys.map((b) => this.blocks.findOne({ _id: blockKey(b) })));
      for (const doc of docs) if (doc) this.loadBlock(doc);
      if (docs.some((doc) => doc === null)) return;
    }
  }

  /**
   * Reads the JSON of the blocks indexed from chunks: one pass over `event_blocks`, beside the
   * serial work (at 10 M events it takes a minute or more; sealing and other instances' events do
   * not wait for it).
   */
  private async loadBodies(): Promise<void> {
    const started = Date.now();
    for (let attempt = 1; this.bodiless.size > 0 && !this.stopped; attempt++) {
      try {
        await this.readBodies();
        if (this.stopped) return;
        if (this.bodiless.size > 0) this.log.warn({ blocks: this.bodiless.size }, 'event log mirror: blocks listed by chunks are missing from event_blocks');
        else this.log.info({ seconds: (Date.now() - started) / 1000 }, 'event log mirror: sealed events\' JSON loaded');
        return;
      } catch (err) {
        // Pages read their blocks by key meanwhile; the pass begins again, skipping the blocks it read.
        this.log.warn({ err, attempt, blocks: this.bodiless.size }, 'event log mirror: loading the sealed events\' JSON failed; trying again');
        await new Promise((resolve) => setTimeout(resolve, BODY_RETRY_MS).unref());
      }
    }
  }

  /** One pass over `event_blocks` for the JSON of the blocks still without it. */
  private async readBodies(): Promise<void> {
    const cursor = this.blocks.find({}, { projection: { columns: 0, strings: 0 }, batchSize: BLOCKS_PER_BATCH });
    try {
      for await (const doc of cursor) {
        if (this.stopped) return;
        this.sealBodies(doc);
        if (this.bodiless.size === 0) return;
      }
    } finally {
      await cursor.close().catch(() => undefined);
    }
  }

  private sealBodies(doc: BlockDocument): void {
    if (!this.bodiless.delete(doc.block)) return;
    this.bodies.seal(doc.block, sealedBodiesOf(doc));
  }

  /**
   * Makes the JSON of these events readable (`json`): the blocks still without it are read by key,
   * or, when there are many, the background load is awaited.
   */
  async bodiesFor(ids: Iterable<number>): Promise<void> {
    if (this.bodiless.size === 0) return;
    const missing = new Set<number>();
    for (const id of ids) if (this.bodiless.has(blockOf(id))) missing.add(blockOf(id));
    if (missing.size === 0) return;
    if (missing.size > ON_DEMAND_BLOCKS) {
      await this.bodyLoad;
      if (this.bodiless.size === 0) return;
    }
    const docs = await Promise.all([...missing].map((block) => this.blocks.findOne({ _id: blockKey(block) })));
    for (const doc of docs) if (doc) this.sealBodies(doc);
  }

  /** Writes the index chunks of sealed blocks not written yet (after a start on an older log, and as blocks are sealed). */
  private async writeChunks(): Promise<void> {
    while (this.nextChunk + this.chunkBlocks - 1 <= this.sealedThrough) {
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

  /** Gauges read at scrape time: how much of the log this instance holds, and in how many bytes. */
  registerMetrics(registry: Registry): void {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- prom-client calls collect() with the metric as `this`
    const mirror = this;
    new Gauge({
      name: 'vane_event_log_events', help: 'Events in this instance\'s search index', registers: [registry],
      collect() { this.set(mirror.index.size); },
    });
    new Gauge({
      name: 'vane_event_log_ready', help: '1 when event searches are answered from the in-memory copy, 0 while it is backfilled', registers: [registry],
      collect() { this.set(mirror.ready ? 1 : 0); },
    });
    new Gauge({
      name: 'vane_event_log_body_bytes', help: 'Event JSON held in memory (deflated sealed segments plus unsealed events)', registers: [registry],
      collect() { this.set(mirror.bodies.bytes); },
    });
  }

  private becomeReady(): void {
    this.ready = true;
    for (const resolve of this.readyWaiters.splice(0)) resolve();
  }

  private async markComplete(): Promise<void> {
    await this.meta.updateOne({ _id: META_ID }, { $set: { complete: true } }, { upsert: true }).catch((err: unknown) => {
      if (!isDuplicateKey(err)) throw err;
    });
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
      await this.pruning;
    } while (current !== this.work || this.pruning !== undefined);
    await this.bodyLoad;
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

  private loadBlock(doc: BlockDocument): void {
    if (this.sealedBlocks.has(doc.block)) return;
    for (const event of decodeBlockIndex(doc)) this.index.add(event);
    this.bodies.seal(doc.block, sealedBodiesOf(doc));
    this.markSealed(doc.block);
  }

  private markSealed(block: number): void {
    this.sealedBlocks.add(block);
    this.pending.delete(block);
    while (this.sealedBlocks.has(this.sealedThrough + 1)) this.sealedThrough++;
  }

  /**
   * Takes one claimed id: its event into the index and the bodies, its slot towards sealing.
   * `event` when the caller has the indexed fields at hand (else they are parsed from the JSON).
   */
  private accept(entry: TailEntry, event?: IndexedEvent): void {
    const block = blockOf(entry.id);
    if (this.sealedBlocks.has(block)) return;
    let slots = this.pending.get(block);
    if (!slots) {
      slots = new Map();
      this.pending.set(block, slots);
    }
    const slot = entry.id - firstIdOf(block);
    if (entry.void || entry.body === undefined) {
      // A claim turned void after another instance's sync read it (a repeated flush found its
      // event stored under an older id): the copy read meanwhile goes.
      if (slots.get(slot)) this.index.remove(entry.id);
      this.bodies.dropLoose(entry.id);
      slots.set(slot, null);
      return;
    }
    if (slots.has(slot)) return;
    const indexed = event ?? indexedEvent(entry.id, JSON.parse(entry.body) as StoredFields);
    slots.set(slot, { event: indexed, json: entry.body });
    this.index.add(indexed);
    this.bodies.addLoose(entry.id, entry.body);
  }

  /**
   * Reads the tail for other instances' events. Ids below the tail that this instance never saw
   * were sealed and pruned meanwhile: their blocks are read from `event_blocks`.
   */
  private async syncTail(): Promise<void> {
    let lowest = Number.POSITIVE_INFINITY;
    let highest = 0;
    for await (const entry of this.tail.find({})) {
      this.accept(entry);
      lowest = Math.min(lowest, entry.id);
      highest = Math.max(highest, entry.id);
    }
    const below = Number.isFinite(lowest) ? blockOf(lowest) : blockOf(highest + 1);
    const missing: string[] = [];
    for (let block = this.sealedThrough + 1; block < below; block++) {
      if (!this.sealedBlocks.has(block)) missing.push(blockKey(block));
    }
    if (missing.length === 0) return;
    for await (const doc of this.blocks.find({ _id: { $in: missing } })) this.loadBlock(doc);
  }

  /** Seals every block whose slots are all known (oldest first), then prunes the tail. */
  private async sealComplete(): Promise<void> {
    const complete = [...this.pending.entries()].filter(([, slots]) => slots.size === BLOCK_SIZE).map(([block]) => block).sort((a, b) => a - b);
    for (const block of complete) {
      const slots = this.pending.get(block)!;
      const entries = Array.from({ length: BLOCK_SIZE }, (_, slot) => slots.get(slot) ?? null);
      const doc = encodeBlock(block, entries);
      try {
        await this.blocks.insertOne(doc);
      } catch (err) {
        if (!isDuplicateKey(err)) throw err; // sealed by another instance: the same events
      }
      this.bodies.seal(block, sealedBodiesOf(doc));
      this.markSealed(block);
    }
    if (complete.length > 0) {
      this.pruneSoon();
      if (this.ready) await this.writeChunks();
    }
  }

  /**
   * Deletes the tail documents an earlier run left unpruned, when writers pause (a start calls
   * it once it serves: deleted during the load, they slowed it, 5 800 of them after the
   * 5 000-flag seed).
   */
  pruneLeftovers(): void {
    if (this.leftovers) this.pruneSoon();
  }

  /**
   * Starts pruning the tail (pruneTail), or asks the pruning under way to look again when it
   * ends. Not a step of `work`: it waits for writers to pause, and the steps behind it (sealing
   * the next block, reading other instances' events) must not wait with it.
   */
  private pruneSoon(): void {
    if (this.pruning) {
      this.pruneAgain = true;
      return;
    }
    this.pruning = (async () => {
      try {
        do {
          this.pruneAgain = false;
          await this.pruneTail();
        } while (this.pruneAgain && !this.stopped);
      } catch (err) {
        this.log.warn({ err }, 'event log mirror: pruning the tail failed (retried after the next block)');
      } finally {
        this.pruning = undefined;
      }
    })();
  }

  /**
   * Deletes tail documents from `from` (below `end`) in a maintenance turn: one when writers
   * paused, up to URGENT_DELETES in one command when `urgent()` (the turn came at once). The
   * number deleted; 0, deleting nothing, once the mirror is stopping.
   */
  private async deleteInTurn(from: number, end: number, urgent: () => boolean): Promise<number> {
    const ended = await this.writer.maintenanceTurn(() => this.stopped || urgent());
    try {
      if (this.stopped) return 0;
      const count = urgent() ? Math.min(this.pruneBacklog() > 2 * PRUNE_BACKLOG ? URGENT_DELETES : STEADY_DELETES, end - from) : 1;
      if (count === 1) {
        await this.tail.deleteOne({ _id: tailKey(from) });
      } else {
        const deletes = Array.from({ length: count }, (_, i) => ({ deleteOne: { filter: { _id: tailKey(from + i) } } }));
        await this.tail.bulkWrite(deletes, { ordered: false });
      }
      return count;
    } finally {
      ended();
    }
  }

  /** Tail documents of blocks sealed TAIL_KEPT_BLOCKS ago and before that are not deleted yet. */
  private pruneBacklog(): number {
    return firstIdOf(this.sealedThrough - TAIL_KEPT_BLOCKS + 1) - this.tailFloor;
  }

  /**
   * Deletes the tail documents of the blocks sealed TAIL_KEPT_BLOCKS ago and before, by `_id`: one
   * at a time when requests' writes pause, several at once past PRUNE_BACKLOG. One `deleteMany` of
   * a block's 256 documents held the embedded database's only writer for ~63 ms at 5 000 flags,
   * and the user's write that came meanwhile waited for all of it (the slowest variants write of
   * the scale bench, every run: 64 ms against a p50 of 10). A delete by `_id` takes the index (embedded.ts) and ~2 ms, as much as any command there:
   * deleted as the events came, one per event, each delete sat in front of the next request's
   * write. Then an earlier run's leftovers, when writers pause.
   *
   * Past the bound, STEADY_DELETES to a command, URGENT_DELETES past twice the bound (a `bulkWrite`
   * of deletes by `_id`; see STEADY_DELETES for why not always eight): a sequential
   * client writing without pause deletes one tail document per event it causes, and 16 in one
   * command cost ~1 ms each against ~2 ms for a `deleteOne` (a probe on the 5 000-flag seed's
   * tail). The 2 000-flag replay (bench/replay.ts, 11 036 requests, Vane alone, turns
   * alternating): 62.1–74.8 s (median 65.1) against 70.9–83.6 s (77.5) one by one. Eight,
   * not 16: the user's write that comes meanwhile waits for the whole command. (16 to a command
   * tried, before the bound was asked again at every look, took the writer from the
   * outbox's clears; the start after that seed repaired 1 202 flags instead of 312.)
   *
   * The documents are named by key, from `tailFloor` up, not found by a query: FerretDB answers
   * any query on `id` by reading every tail document's body, and that scan (20 + 46 + 130 ms of
   * `find` and `getMore` at 2 000 flags) held the writer while users' writes waited (a
   * flag update beside it took 31 ms). A key already gone (pruned by another instance) deletes
   * nothing.
   */
  private async pruneTail(): Promise<void> {
    const below = firstIdOf(this.sealedThrough - TAIL_KEPT_BLOCKS + 1);
    if (below <= 1) return;
    if (!Number.isFinite(this.tailFloor)) {
      // A log being backfilled (its old events never had tail documents): the lowest tail
      // document, asked once (a scan on FerretDB). Documents written later all belong to blocks
      // not sealed yet, above `below`.
      const lowest = await this.tail.find({}, { projection: { id: 1 } }).sort({ id: 1 }).limit(1).next();
      this.tailFloor = Math.min(lowest?.id ?? below, below);
    }
    while (this.tailFloor < below) {
      // Urgent once the backlog (to the newest block sealed, meanwhile too) passes its bound.
      const deleted = await this.deleteInTurn(this.tailFloor, below, () => this.pruneBacklog() > PRUNE_BACKLOG);
      if (deleted === 0) return;
      this.tailFloor += deleted;
    }
    const leftovers = this.leftovers;
    while (leftovers && leftovers.next < leftovers.end) {
      if (this.pruneAgain) return; // a block sealed meanwhile: its documents first (pruneSoon)
      // One at a time: hurried only to return to the new block's documents.
      const deleted = await this.deleteInTurn(leftovers.next, leftovers.next + 1, () => this.pruneAgain);
      if (deleted === 0) return;
      leftovers.next += deleted;
    }
    this.leftovers = undefined;
  }

  /**
   * A log written before the tail existed: every event is read once from `events` and sealed into
   * blocks; ids below the newest event that hold none become void slots; the last, incomplete
   * block goes to the tail. Searches use the database until this is done.
   */
  private async backfill(): Promise<void> {
    const started = Date.now();
    this.log.info({}, 'event log mirror: reading the event log once to build its blocks (searches use the database meanwhile)');
    let highest = 0;
    let read = 0;
    const cursor = this.appender.events.find({}, { projection: { searchText: 0 }, batchSize: 2000 });
    for await (const doc of cursor) {
      if (this.stopped) {
        await cursor.close();
        return;
      }
      const { _id: key, id, ...rest } = doc;
      if (typeof id !== 'number') continue;
      highest = Math.max(highest, id);
      read++;
      if (!this.index.has(id)) {
        this.accept({ _id: tailKey(id), id, key, body: storedEventJson(id, { key, ...rest }) }, indexedEvent(id, rest));
      }
      if (read % 50_000 === 0) this.log.info({ read, seconds: (Date.now() - started) / 1000 }, 'event log mirror: backfill progress');
      if (this.pending.size > 8) await this.sealComplete();
    }
    // Ids the old log skipped can never hold an event now.
    for (let id = 1; id <= highest; id++) {
      const block = blockOf(id);
      if (this.sealedBlocks.has(block)) {
        id = firstIdOf(block + 1) - 1;
        continue;
      }
      if (!this.pending.get(block)?.has(id - firstIdOf(block))) this.accept({ _id: tailKey(id), id, key: `void:${id}`, void: true });
    }
    await this.sealComplete();
    // The remainder (an incomplete block) is written to the tail, where other instances look.
    for (const [block, slots] of this.pending) {
      for (const [slot, entry] of slots) {
        const id = firstIdOf(block) + slot;
        const doc: TailEntry = entry
          ? { _id: tailKey(id), id, key: `backfill:${id}`, body: entry.json }
          : { _id: tailKey(id), id, key: `void:${id}`, void: true };
        await this.tail.insertOne(doc).catch((err: unknown) => {
          if (!isDuplicateKey(err)) throw err;
        });
      }
    }
    await this.markComplete();
    this.log.info({ events: read, seconds: (Date.now() - started) / 1000 }, 'event log mirror: backfill done');
    this.becomeReady();
    await this.writeChunks();
  }

  /** The stored JSON of an event this instance knows. */
  json(id: number): string | undefined {
    return this.bodies.json(id);
  }
}
