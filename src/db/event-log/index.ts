import type { Db, Filter } from 'mongodb';
import { Gauge, type Registry } from 'prom-client';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { NumberedEvent } from '../outbox/commit-log.js';
import { EventAppender } from './append.js';
import { DatabaseSearch } from './database.js';
import { EventLogMirror, type MirrorLogger } from './mirror.js';
import type { SearchCriteria, SearchPage } from './search-index.js';
import { searchTextOf, type EventDocument, type StoredEvent } from './stored.js';

export type { EventDocument, MirrorLogger, SearchCriteria, StoredEvent };

/**
 * The event log: every event, in id order, stored in the database and copied in memory for the
 * search. One module with a small surface:
 *
 * - `appendMany` (the change writer's flush, src/db/outbox/): stores committed events under the
 *   ids their commit gave them, idempotently (append.ts); the copy took them in with the commit;
 * - `has`: whether an event is in the log (an apply that a crash interrupted asks before writing
 *   again);
 * - `caughtUp`: resolves once the events of every write this process acknowledged are in the log;
 * - `search`: one page of the events matching a query, from the copy (mirror.ts, search-index.ts,
 *   blocks.ts) once it is ready, from the database (database.ts) until then.
 *
 * The rest is lifecycle: `start` loads the copy, `stop`/`settled` end it; tests and the metrics
 * look at its readiness.
 */

/** What the log needs of the change writer that appends to it (the Outbox). */
export interface LogWriter {
  /** Resolves once every write this process acknowledged so far has its events appended. */
  flushed(): Promise<void>;
  /** Told of every commit applied, with its events: `remote` when another instance's was read. */
  onCommitted(listener: (remote: boolean, events: readonly NumberedEvent[]) => void): () => void;
  /**
   * Resolves when a maintenance write (pruning the tail) may take the database's writer: once
   * requests' writes pause and earlier maintenance has had its share of the time, or as soon as
   * `hurry()` says so (Outbox.maintenanceTurn). The function it resolves with is called once that
   * write has ended.
   */
  maintenanceTurn(hurry: () => boolean): Promise<() => void>;
  /** Whether the server is FerretDB, which reads through no index but `_id` (DatabaseSearch.init). */
  readonly isFerretDB: boolean;
}

/** A search: the index's criteria, the free-text query, and the same as a MongoDB filter (built when the database is asked). */
export interface LogQuery {
  criteria: SearchCriteria;
  like: RegExp | null;
  filter(): Filter<EventDocument>;
}

/** One page of a search, newest first, and the number of matches. */
export type LogPage =
  /** From the copy: the events' ids (their JSON from `json`); `newestId` is the log's newest. */
  | { from: 'copy'; ids: number[]; total: number; newestId: number }
  | { from: 'database'; events: StoredEvent[]; total: number };

/** A search ran past its time budget (the database stopped it, or the copy's scan did). */
export class SearchBudgetExceeded extends Error {
  constructor(readonly budgetMs: number) {
    super(`event search exceeded ${budgetMs} ms`);
  }
}

/**
 * Waits until the copy holds the JSON of `ids`, at most `budgetMs`. Right after a start the copy
 * reads the events' JSON in the background (mirror.ts); a search confirming most of the log waits
 * for that load. The wait has a bound of its own, apart from the confirming scan's: it is I/O
 * that ends the same for every caller (on a loaded 2-core machine the JSON of 70 000 events took
 * longer than the scan's 5 s, and a search that had waited then had no budget left to scan), and a
 * database that does not answer still ends the request within twice the budget.
 */
async function bodiesWithin(mirror: EventLogMirror, ids: number[], budgetMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new SearchBudgetExceeded(budgetMs)), budgetMs);
  });
  try {
    await Promise.race([mirror.bodiesFor(ids), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** How often (candidates) a confirming scan looks at the clock, and how long it runs between yields. */
const CLOCK_EVERY = 1024;
const SLICE_MS = 10;

export class EventLog {
  private readonly appender: EventAppender;
  private readonly mirror: EventLogMirror;
  private readonly database: DatabaseSearch;
  /**
   * Held from `start` until the copy has loaded and the appender knows the newest stored id:
   * the configuration loads beside the copy (initialiseState), and a write made meanwhile (a
   * fresh database's initial documents, a crash's leftovers) must not claim ids from 1 (see
   * start). Open before any start: tests append to a log they never start.
   */
  private appendsOpen: Promise<void> = Promise.resolve();
  private openAppends: { resolve(): void; reject(err: Error): void } | undefined;

  /** `chunkBlocks`: sealed blocks per index chunk written (tests write smaller ones; see chunks.ts). */
  constructor(db: Db, private readonly writer: LogWriter, log: MirrorLogger, options: { chunkBlocks?: number } = {}) {
    this.appender = new EventAppender(db);
    this.mirror = new EventLogMirror(this.appender, writer, db, log, options.chunkBlocks);
    this.database = new DatabaseSearch(this.appender.events, writer);
  }

  // -------------------------------------------------------------------------------------------
  // appending (the change writer)

  /** Stores events under the ids their commit gave them; idempotent (EventAppender.appendMany). */
  async appendMany(events: readonly NumberedEvent[]): Promise<void> {
    await this.appendsOpen;
    await this.appender.appendMany(events);
  }

  /** Resolves once appends may start: the copy knows the newest stored id (see start). */
  async opened(): Promise<void> {
    await this.appendsOpen;
  }

  /** Whether the event with this id is known to be stored in the log (only meaningful once the copy is ready). */
  holds(id: number): boolean {
    return this.mirror.holds(id);
  }

  /**
   * Those of `events` the log does not hold, after looking for them by key (another instance's
   * commit: its writer appends them, and this copy learns that by reading them).
   */
  async unstored(events: readonly NumberedEvent[]): Promise<NumberedEvent[]> {
    return await this.mirror.unstored(events);
  }

  /** The newest id in the copy (0 for an empty log): where the first commit's events start after. */
  get newestId(): number {
    return this.mirror.index.newestId;
  }

  /** The unique indexes appending relies on (at connection, before anything is written). */
  async createIndexes(): Promise<void> {
    await this.appender.createIndexes();
  }

  // -------------------------------------------------------------------------------------------
  // reading

  /** Whether the event with this key is stored in the log (one read by `_id`). */
  async stored(key: string): Promise<boolean> {
    return (await this.appender.events.findOne({ _id: key }, { projection: { _id: 1 } })) !== null;
  }

  /**
   * Whether any event with one of these keys is in the log. Reads the database (the copy may not
   * have heard of another instance's): a claim in the small tail first; only a key whose claim has
   * left the tail is looked for in `events` (on FerretDB a scan of the log, so for rare paths).
   */
  async has(keys: Iterable<string>): Promise<boolean> {
    const all = [...keys];
    for (const key of all) if (await this.appender.tail.findOne({ key }, { projection: { _id: 1 } })) return true;
    for (const key of all) if (await this.stored(key)) return true;
    return false;
  }

  /**
   * Resolves once the events of every write this process acknowledged are in the log: a write's
   * events are appended after its response (src/db/outbox/event-flush.ts), and a reader must see its own.
   */
  async caughtUp(): Promise<void> {
    await this.writer.flushed();
  }

  /**
   * One page of the events matching `query`, this process's writes included. From the copy when it is ready
   * (`fromDatabase` asks the database anyway: tests compare the two): the index answers the
   * filters; a group id (matched by hash) or a free-text query is confirmed event by event, with
   * the budget checked as it goes and the event loop yielded to every SLICE_MS. The database's
   * reads carry the budget as `maxTimeMS`. Past the budget: SearchBudgetExceeded.
   */
  async search(
    query: LogQuery, offset: number, limit: number, options: { budgetMs: number; fromDatabase?: boolean },
  ): Promise<LogPage> {
    if (this.mirror.isReady() && !options.fromDatabase) {
      // The copy holds every commit's events from the commit on (mirror.ts): no wait for this
      // process's appends, which a loaded database holds up for seconds (two event searches went
      // past 10 s so in a two-instance soak). Ids the copy found missing are read from the tail
      // first (a database that does not answer ends that read within DB_TIMEOUT_MS).
      await this.mirror.remoteRead();
      const { criteria, like } = query;
      const page = like || criteria.groupIds
        ? await this.confirmedPage(criteria, like, offset, limit, options.budgetMs)
        : this.mirror.index.search(criteria, offset, limit);
      // The page's bodies, should the copy still be loading them (mirror.ts: the index is ready first).
      await this.mirror.bodiesFor(page.ids);
      return { from: 'copy', ...page, newestId: this.mirror.index.newestId };
    }
    await this.caughtUp();
    try {
      return { from: 'database', ...await this.database.page(query.filter(), offset, limit, options.budgetMs) };
    } catch (err) {
      if (isTimeout(err)) throw new SearchBudgetExceeded(options.budgetMs);
      throw err;
    }
  }

  /** An event's stored JSON from the copy (undefined when it does not hold it). */
  json(id: number): string | undefined {
    return this.mirror.json(id);
  }

  /** Events by id, in the order asked, those the copy holds; waits for their JSON after a start (the addons' deliveries). */
  async read(ids: readonly number[]): Promise<StoredEvent[]> {
    await this.mirror.bodiesFor(ids);
    return ids.flatMap((id) => {
      const json = this.mirror.json(id);
      return json === undefined ? [] : [JSON.parse(json) as StoredEvent];
    });
  }

  private async confirmedPage(criteria: SearchCriteria, like: RegExp | null, offset: number, limit: number, budgetMs: number): Promise<SearchPage> {
    const mirror = this.mirror;
    const candidates: number[] = [];
    mirror.index.scan(criteria, (id) => {
      candidates.push(id);
      return true;
    });
    await bodiesWithin(mirror, candidates, budgetMs);
    const started = performance.now();
    let sliceStarted = started;
    const groups = criteria.groupIds ? new Set(criteria.groupIds) : null;
    // Whether a sealed segment's text (a few events' JSON, lower-cased) matches the query anywhere:
    // most segments do not, and one test rules out all their events.
    const segmentMatches = new Map<number, boolean>();
    const ids: number[] = [];
    let total = 0;
    for (let i = 0; i < candidates.length; i++) {
      if (i % CLOCK_EVERY === CLOCK_EVERY - 1) {
        const now = performance.now();
        if (now - started > budgetMs) throw new SearchBudgetExceeded(budgetMs);
        if (now - sliceStarted > SLICE_MS) {
          await yieldToEventLoop();
          sliceStarted = performance.now();
        }
      }
      const id = candidates[i]!;
      if (like) {
        const segment = mirror.bodies.segmentText(id);
        if (segment) {
          let any = segmentMatches.get(segment.key);
          if (any === undefined) {
            any = like.test(segment.text.toString('utf8').toLowerCase());
            segmentMatches.set(segment.key, any);
          }
          if (!any) continue;
        }
      }
      const json = mirror.json(id);
      if (json === undefined) continue;
      // The whole event's text contains each of data, tags and preData verbatim: no match there,
      // no match in any of them (and most events are ruled out without parsing).
      if (like && !like.test(json.toLowerCase())) continue;
      const event = JSON.parse(json) as StoredEvent;
      if (groups && !groups.has(event.groupId as string)) continue;
      if (like) {
        const text = searchTextOf(event);
        if (text === '' || !like.test(text)) continue;
      }
      if (total >= offset && ids.length < limit) ids.push(id);
      total++;
    }
    return { ids, total };
  }

  // -------------------------------------------------------------------------------------------
  // lifecycle

  /**
   * Loads the copy (sealed blocks and the tail; a log that needs a backfill is read in the
   * background) and follows the log from here on; then the database's search indexes. Appends
   * wait until it has loaded (a start that fails keeps them waiting for the next attempt).
   */
  async start(): Promise<void> {
    // A start again after one that failed keeps the appends already waiting on the same promise.
    if (!this.openAppends) {
      this.appendsOpen = new Promise<void>((resolve, reject) => { this.openAppends = { resolve, reject }; });
      this.appendsOpen.catch(() => undefined); // rejected only at stop; each waiting append has it too
    }
    await this.mirror.start();
    this.openAppends?.resolve();
    this.openAppends = undefined;
    await this.database.init(!this.writer.isFerretDB);
  }

  /** Deletes in the background what an earlier run left in the tail (see EventLogMirror.pruneLeftovers). */
  pruneLeftovers(): void {
    this.mirror.pruneLeftovers();
  }

  stop(): void {
    // Appends still waiting for a start that never finished fail rather than hold the close.
    this.openAppends?.reject(new Error('the event log stopped before its copy had loaded'));
    this.openAppends = undefined;
    this.mirror.stop();
  }

  /** Resolves once the copy's background work (sealing, syncing, backfill) has finished. */
  /** Events of `project` per UTC day since `since`, oldest first (a project's status page). */
  projectDays(project: string, since: Date): Array<{ date: string; count: number }> {
    return this.mirror.index.projectDays(project, since.getTime());
  }

  /** Who created events of `feature`, latest event first (a flag's collaborators). */
  featureCreators(feature: string): number[] {
    return this.mirror.index.featureCreators(feature);
  }

  /** The ids of everyone who created an event, ascending. */
  creatorIds(): number[] {
    return this.mirror.index.creatorIds();
  }

  /** Events of `project` created in [from, before). */
  projectEventCount(project: string, from: Date, before: Date): number {
    return this.mirror.index.countOfProject(project, from.getTime(), before.getTime());
  }

  async settled(): Promise<void> {
    await this.mirror.settled();
  }

  /** Whether searches are answered from the copy (false while it backfills). */
  isReady(): boolean {
    return this.mirror.isReady();
  }

  async whenReady(): Promise<void> {
    await this.mirror.whenReady();
  }

  /** Reads the tail now for other instances' events (tests skip the revision poll with it). */
  async sync(): Promise<void> {
    await this.mirror.sync();
  }

  /** How much of the log this instance holds: events indexed, the newest id, bytes of event JSON and of the index in memory. */
  stats(): { events: number; newestId: number; bodyBytes: number; indexBytes: number } {
    const { index, bodies } = this.mirror;
    return { events: index.size, newestId: index.newestId, bodyBytes: bodies.bytes, indexBytes: index.bytes };
  }

  /** Gauges read at scrape time: how much of the log this instance holds, and in how many bytes. */
  registerMetrics(registry: Registry): void {
    const { mirror } = this;
    new Gauge({
      name: 'vane_event_log_events', help: 'Events in this instance\'s search index', registers: [registry],
      collect() { this.set(mirror.index.size); },
    });
    new Gauge({
      name: 'vane_event_log_ready', help: '1 when event searches are answered from the in-memory copy, 0 while it loads', registers: [registry],
      collect() { this.set(mirror.isReady() ? 1 : 0); },
    });
    new Gauge({
      name: 'vane_event_log_body_bytes', help: 'Event JSON held in memory (deflated sealed segments plus unsealed events)', registers: [registry],
      collect() { this.set(mirror.bodies.bytes); },
    });
  }
}

function isTimeout(err: unknown): boolean {
  const e = err as { code?: number; codeName?: string; message?: string };
  return e?.code === 50 || e?.codeName === 'MaxTimeMSExpired' || /exceeded time limit|operation exceeded/i.test(e?.message ?? '');
}
