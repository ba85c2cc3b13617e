import type { Collection } from 'mongodb';
import { blockKey, blockOf, sealedBodiesOf, type BlockDocument, type EventBodies } from './blocks.js';

/**
 * A page whose events lie in more blocks without their JSON than this waits for the background
 * load instead of reading them by key (a free-text search over the whole log, right after start).
 * 64 reads by key take ~100–200 ms on FerretDB through its 4 read slots.
 */
const ON_DEMAND_BLOCKS = 64;
/** ~2 MB a round trip, within the database deadline on a cold FerretDB (see mirror.ts). */
const BLOCKS_PER_BATCH = 64;
/** Between attempts of the background load after a failed round trip. */
const BODY_RETRY_MS = 1000;

interface LoaderLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/**
 * The JSON of sealed blocks indexed from chunks (which hold only the index's columns): read in
 * one background pass over `event_blocks` after the start (at 10 M events a minute or more), and
 * by key for a page asked for meanwhile.
 */
export class BodyLoader {
  /** Sealed blocks indexed from a chunk whose JSON is not loaded yet. */
  private readonly bodiless = new Set<number>();
  private loading: Promise<void> = Promise.resolve();
  private started = false;

  constructor(
    private readonly blocks: Collection<BlockDocument>, private readonly bodies: EventBodies,
    private readonly log: LoaderLogger, private readonly stopped: () => boolean,
  ) {}

  /** A block indexed without its JSON. */
  add(block: number): void {
    this.bodiless.add(block);
  }

  /** Starts the background pass (once). */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.loading = this.load();
  }

  async settled(): Promise<void> {
    await this.loading;
  }

  /**
   * Makes the JSON of these events readable: the blocks still without it are read by key, or,
   * when there are many, the background pass is awaited.
   */
  async bodiesFor(ids: Iterable<number>): Promise<void> {
    if (this.bodiless.size === 0) return;
    const missing = new Set<number>();
    for (const id of ids) if (this.bodiless.has(blockOf(id))) missing.add(blockOf(id));
    if (missing.size === 0) return;
    if (missing.size > ON_DEMAND_BLOCKS) {
      await this.loading;
      if (this.bodiless.size === 0) return;
    }
    const docs = await Promise.all([...missing].map((block) => this.blocks.findOne({ _id: blockKey(block) })));
    for (const doc of docs) if (doc) this.seal(doc);
  }

  private async load(): Promise<void> {
    const started = Date.now();
    for (let attempt = 1; this.bodiless.size > 0 && !this.stopped(); attempt++) {
      try {
        await this.readPass();
        if (this.stopped()) return;
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

  private async readPass(): Promise<void> {
    const cursor = this.blocks.find({}, { projection: { columns: 0, strings: 0 }, batchSize: BLOCKS_PER_BATCH });
    try {
      for await (const doc of cursor) {
        if (this.stopped()) return;
        this.seal(doc);
        if (this.bodiless.size === 0) return;
      }
    } finally {
      await cursor.close().catch(() => undefined);
    }
  }

  private seal(doc: BlockDocument): void {
    if (!this.bodiless.delete(doc.block)) return;
    this.bodies.seal(doc.block, sealedBodiesOf(doc));
  }
}
