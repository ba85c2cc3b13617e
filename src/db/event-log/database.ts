import type { Collection, Filter, IndexDescription } from 'mongodb';
import { ReadCache } from '../read-cache.js';
import type { LogWriter } from './index.js';
import type { EventDocument, StoredEvent } from './stored.js';

/**
 * Indexes of the `events` collection for the search (docs/rules.md §4): newest first overall, and newest
 * first within each equality filter, so a filtered page is an index range walk, not a sort.
 * `id` already has its unique index (append.ts).
 */
export const EVENT_INDEXES: IndexDescription[] = [
  { key: { createdAt: -1, id: -1 }, name: 'created_desc' },
  { key: { type: 1, createdAt: -1, id: -1 }, name: 'type_created_desc' },
  { key: { featureName: 1, createdAt: -1, id: -1 }, name: 'feature_created_desc' },
  { key: { project: 1, createdAt: -1, id: -1 }, name: 'project_created_desc' },
  { key: { createdByUserId: 1, createdAt: -1, id: -1 }, name: 'user_created_desc' },
  { key: { environment: 1, createdAt: -1, id: -1 }, name: 'environment_created_desc' },
  { key: { groupId: 1 }, name: 'group_id', sparse: true },
];

/** Every field of the response except the bookkeeping `_id` key and the search text. */
const PROJECTION = { _id: 0, searchText: 0 } as const;

export interface EventPage {
  events: StoredEvent[];
  total: number;
}

/** Results kept per revision: enough for dashboards paging through a few filters. */
const CACHE_ENTRIES = 500;

/** The log as the database holds it, searched there while this instance's copy is not ready. */
export class DatabaseSearch {
  /**
   * Reads are shared while running (single flight) and their results kept until the log changes.
   * Why: on FerretDB every filtered read is a scan of the whole log (it never uses secondary
   * indexes or pushes sorts down), so repeating a search is the expensive case; the log is
   * append-only, so a result stays exact until the next event. This process's own commits clear
   * the cache before they are acknowledged (a search never misses an event this instance wrote);
   * another instance's events are seen within REVISION_POLL_MS (Outbox.follow).
   */
  private readonly results: ReadCache;

  constructor(private readonly collection: Collection<EventDocument>, writer: LogWriter) {
    this.results = new ReadCache(writer, CACHE_ENTRIES);
  }

  /**
   * The search indexes, where the server reads through them (`indexed`: MongoDB). Idempotent:
   * creating an index that exists with the same definition is a no-op. One command per index:
   * FerretDB 1.24 panics on a createIndexes that mixes existing and new indexes.
   *
   * FerretDB reads none of them (every filtered read scans, sorts are not pushed down: see
   * `results`), and each is write cost only: every event inserted updates all seven in SQLite.
   * An insert of three events took 2.0–2.2 ms with them against 1.3–1.7 ms without (embedded
   * FerretDB, 300 inserts each, a `/tmp` probe); the 2 000-flag replay sent 3 721 such
   * inserts. So there they are not created, and those an earlier release created are dropped.
   */
  async init(indexed: boolean): Promise<void> {
    if (indexed) {
      for (const { key, ...options } of EVENT_INDEXES) await this.collection.createIndex(key, options);
      return;
    }
    const search = new Set(EVENT_INDEXES.map((index) => index.name));
    for (const { name } of await this.collection.listIndexes().toArray()) {
      if (typeof name === 'string' && search.has(name)) await this.collection.dropIndex(name);
    }
  }

  /**
   * One page, newest first (createdAt desc, id desc), and the number of matches. Both reads carry
   * `maxTimeMS`, so a search the indexes cannot serve (a free-text `query` is a scan) is stopped
   * by the server instead of holding a connection; the caller turns that into a 503.
   * With no filter at all the total comes from the collection's statistics (no scan; see countAll).
   */
  async page(filter: Filter<EventDocument>, offset: number, limit: number, maxTimeMS: number): Promise<EventPage> {
    const unfiltered = Object.keys(filter).length === 0;
    const key = JSON.stringify(filter);
    const [events, total] = await Promise.all([
      this.results.get(`page|${offset}|${limit}|${key}`, () =>
        this.collection
          // The projection leaves the event as the API presents it (see PROJECTION).
          .find<StoredEvent>(filter, { projection: PROJECTION, maxTimeMS })
          .sort({ createdAt: -1, id: -1 })
          .skip(offset)
          .limit(limit)
          .toArray()),
      this.results.get(`count|${key}`, () =>
        unfiltered ? this.countAll(maxTimeMS) : this.collection.countDocuments(filter, { maxTimeMS })),
    ]);
    return { events, total };
  }

  /**
   * Every event, from `$collStats` (MongoDB: collection metadata; FerretDB: a row count without
   * decoding documents — measured 0.1 s against 60 s for `count` on a busy 20k-event log).
   * Falls back to the `count` command where the stage is not available.
   */
  async countAll(maxTimeMS: number): Promise<number> {
    try {
      const stats = await this.collection.aggregate<{ count?: number }>([{ $collStats: { count: {} } }], { maxTimeMS }).toArray();
      if (stats.length > 0 && stats.every((s) => typeof s.count === 'number')) return stats.reduce((n, s) => n + s.count!, 0);
    } catch (err) {
      if ((err as { code?: number }).code === 50) throw err;
    }
    return await this.collection.estimatedDocumentCount({ maxTimeMS });
  }
}
