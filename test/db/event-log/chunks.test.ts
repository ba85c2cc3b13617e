import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { MongoClient } from 'mongodb';
import { buildApp } from '../../../src/app.js';
import { tailKey, type TailEntry } from '../../../src/db/event-log/append.js';
import { storedEventJson } from '../../../src/db/event-log/stored.js';
import type { PendingEvent } from '../../../src/db/outbox/index.js';
import { BLOCK_SIZE, encodeBlock, type BlockDocument, type BlockEntry } from '../../../src/db/event-log/blocks.js';
import { decodeChunk, encodeChunk, type ChunkDocument } from '../../../src/db/event-log/chunks.js';
import { EventLogIndex, type IndexedEvent, type SearchCriteria } from '../../../src/db/event-log/search-index.js';
import { EventLog } from '../../../src/db/event-log/index.js';
import { EventSearchService } from '../../../src/features/events/service.js';
import { buildTestApp, dropDatabase, testConfig, ADMIN } from '../../helpers/app.js';
import { fillerEvent, seedLog, type EventSeed } from '../../features/events/helpers.js';

const START = Date.UTC(2025, 0, 1);
const QUIET = { info: () => undefined, warn: () => undefined };

function filler(id: number): EventSeed {
  return fillerEvent(id, 300);
}

const QUERIES = [
  'limit=1000', 'offset=900&limit=30', 'type=IS:feature-strategy-add&limit=20', 'feature=IS_ANY_OF:flag-3,flag-299&offset=5',
  'project=IS:default&environment=IS:production', 'createdBy=IS:2&from=IS:2025-02-01&to=IS:2025-02-10',
  'groupId=IS:g-300', 'id=IS_ANY_OF:1,256,257,1000', 'query=seven&limit=5', 'from=IS:2025-03-01',
];

async function answersOf(service: EventSearchService): Promise<string[]> {
  const out: string[] = [];
  for (const qs of QUERIES) out.push(JSON.stringify(await service.search(Object.fromEntries(new URLSearchParams(qs)))));
  return out;
}

t.test('a chunk holds the index columns of its ids: void slots, nulls, wide dictionaries and late events come back', async (t) => {
  const index = new EventLogIndex();
  const events: IndexedEvent[] = [];
  for (let id = 1; id <= 2 * BLOCK_SIZE; id++) {
    if (id % 97 === 0) continue; // void slots
    const event: IndexedEvent = {
      id, at: START + id * 1000 - (id % 10 === 0 ? 5500 : 0), type: `type-${id % 4}`, project: id % 3 ? `p${id % 7}` : null,
      featureName: id % 5 ? `flag-${id % 400}` : null, environment: id % 2 ? 'production' : null,
      createdByUserId: id % 11 ? id % 300 - 42 : null, groupId: id % 3 === 1 ? `g-${id >> 1}` : null,
    };
    events.push(event);
    index.add(event);
  }
  const doc = encodeChunk(0, 2, index.columnsOf(1, 2 * BLOCK_SIZE));
  t.same(doc.widths, [1, 1, 2, 1, 2], 'codes one byte where a column has at most 255 values, two beyond');
  const copy = new EventLogIndex();
  copy.beginBulk();
  copy.addColumns(decodeChunk(doc));
  copy.endBulk();
  t.equal(copy.size, events.length);
  const searches: SearchCriteria[] = [
    {}, { types: ['type-1'] }, { features: ['flag-399', 'flag-7'] }, { userIds: [-42, 257] }, { projectRequired: true },
    { environments: ['production'], from: START + 100_000, before: START + 300_000 }, { ids: [96, 97, 98, 512] },
  ];
  for (const criteria of searches) t.same(copy.search(criteria, 0, 600), index.search(criteria, 0, 600), JSON.stringify(criteria));
  const scanned: number[] = [];
  copy.scan({ groupIds: ['g-50'] }, (id) => scanned.push(id) > 0);
  t.same(scanned, [101, 100].filter((id) => id % 3 === 1), 'group hashes kept');
  t.throws(() => encodeChunk(1, 2, index.columnsOf(1, 2 * BLOCK_SIZE)), /do not fit/);
  t.throws(() => decodeChunk({ ...doc, widths: [1, 1, 1, 1, 1] }), /bytes of columns/);
});

t.test('a log of blocks only gets its chunks; a later start reads the index from them and the JSON after', async (t) => {
  const a = await buildTestApp(t);
  await seedLog(a, Array.from({ length: 1300 }, (_, i) => filler(6 + i)));
  const expected = await answersOf(new EventSearchService(a.stores.eventLog, a.config.baseUrl, { fromDatabase: true }));
  const db = a.database.db;
  const writer = a.database.outbox;
  const searchOf = (log: EventLog) => new EventSearchService(log, a.config.baseUrl);

  // Chunks of two blocks: blocks 0–4 are sealed, so chunks c0 (blocks 0–1) and c2 (2–3).
  const first = new EventLog(db, writer, QUIET, { chunkBlocks: 2 });
  await first.start();
  await first.settled();
  const chunks = await db.collection<ChunkDocument>('event_chunks').find({}, { projection: { firstBlock: 1, blockCount: 1 } }).toArray();
  t.same(chunks.map((c) => [c.firstBlock, c.blockCount]).sort(), [[0, 2], [2, 2]], 'the sealed blocks\' chunks are written');
  t.same(await answersOf(searchOf(first)), expected, 'read from blocks');

  const second = new EventLog(db, writer, QUIET, { chunkBlocks: 2 });
  await second.start();
  t.equal(second.stats().events, first.stats().events, 'every event indexed at start (chunks, block 4, the tail)');
  t.same(await answersOf(searchOf(second)), expected, 'pages read their events\' blocks by key while the JSON loads');
  await second.settled();
  t.same(await answersOf(searchOf(second)), expected, 'and after');

  // Two more blocks sealed: the chunk of blocks 4–5 follows.
  await seedLog(a, Array.from({ length: 512 }, (_, i) => filler(1306 + i)));
  await second.sync();
  const after = await db.collection<ChunkDocument>('event_chunks').findOne({ firstBlock: 4 });
  t.ok(after, 'a chunk is written once its blocks are sealed');
  // (The database's answers are cached until this process appends; the seeding did not.)
  t.same(await answersOf(searchOf(second)), await answersOf(searchOf(a.stores.eventLog)), 'the same as the app\'s own copy');
  first.stop();
  second.stop();
});

t.test('a start reads more chunks than one round trip carries, and may be begun again after a failed attempt', async (t) => {
  const a = await buildTestApp(t);
  await seedLog(a, Array.from({ length: 1300 }, (_, i) => filler(6 + i)));
  const expected = await answersOf(new EventSearchService(a.stores.eventLog, a.config.baseUrl, { fromDatabase: true }));
  const db = a.database.db;
  const writer = a.database.outbox;
  // Chunks of one block: blocks 0–4 are sealed, five chunks, two round trips of the start's read (4 per batch).
  const first = new EventLog(db, writer, QUIET, { chunkBlocks: 1 });
  await first.start();
  await first.settled();
  t.equal(await db.collection<ChunkDocument>('event_chunks').countDocuments(), 5, 'five chunks');
  const second = new EventLog(db, writer, QUIET, { chunkBlocks: 1 });
  await second.start();
  // As the start-up does when an attempt failed on a database deadline: start again on the same log.
  await second.start();
  t.equal(second.stats().events, first.stats().events, 'every event indexed once');
  await second.settled();
  t.same(await answersOf(new EventSearchService(second, a.config.baseUrl)), expected, 'the same answers as the database, bodies loaded');
  first.stop();
  second.stop();
});

/** Seeds `count` events as sealed blocks (the last incomplete block's in the tail), as a long-running Vane leaves its log. */
async function seedBlocks(url: string, dbName: string, count: number): Promise<void> {
  const client = await new MongoClient(url).connect();
  try {
    const db = client.db(dbName);
    const entries: Array<{ entry: BlockEntry; key: string }> = [];
    for (let id = 1; id <= count; id++) {
      const seed = filler(id);
      const event: PendingEvent = {
        key: `seed-${id}`, type: seed.type, createdBy: 'admin', createdByUserId: seed.createdByUserId ?? null, createdAt: seed.createdAt,
        data: seed.data, preData: null, tags: [], featureName: seed.featureName ?? null, project: seed.project ?? null,
        environment: seed.environment ?? null, ...(seed.groupId ? { groupType: 'transaction', groupId: seed.groupId } : {}),
      };
      entries.push({ key: event.key, entry: { json: storedEventJson(id, event), event: { id, at: seed.createdAt.getTime(), ...event } } });
    }
    const sealed = Math.floor(count / BLOCK_SIZE);
    const blocks: BlockDocument[] = [];
    for (let block = 0; block < sealed; block++) blocks.push(encodeBlock(block, entries.slice(block * BLOCK_SIZE, (block + 1) * BLOCK_SIZE).map((e) => e.entry)));
    for (let i = 0; i < blocks.length; i += 16) await db.collection<BlockDocument>('event_blocks').insertMany(blocks.slice(i, i + 16));
    const tail: TailEntry[] = entries.slice(sealed * BLOCK_SIZE).map(({ key, entry }) => ({ _id: tailKey(entry.event.id), id: entry.event.id, key, body: entry.json }));
    await db.collection<TailEntry>('event_tail').insertMany(tail);
  } finally {
    await client.close();
  }
}

t.test('a large log (70 000 events: a full chunk, blocks after it, the tail) starts from its chunk', async (t) => {
  const config = await testConfig(t);
  t.teardown(() => dropDatabase(config));
  await seedBlocks(config.MONGODB_URL!, config.MONGODB_DB, 70_000);
  const apps: FastifyInstance[] = [];
  t.teardown(async () => { for (const app of apps) await app.close(); });

  const first = await buildApp(config, { logger: false });
  apps.push(first);
  await first.stores.eventLog.settled();
  const chunk = await first.database.db.collection<ChunkDocument>('event_chunks').findOne({});
  t.same([chunk?.firstBlock, chunk?.blockCount], [0, 256], 'the first start writes the chunk of blocks 0–255');

  const started = performance.now();
  const second = await buildApp(config, { logger: false });
  apps.push(second);
  t.comment(`start from the chunk: ${Math.round(performance.now() - started)} ms`);
  t.equal(second.stores.eventLog.stats().events, 70_005, 'every event indexed (and the start\'s own five)');
  const pages = async (app: FastifyInstance) => {
    const out: string[] = [];
    for (const qs of QUERIES) out.push((await app.inject({ url: `/api/admin/search/events?${qs}`, headers: ADMIN })).body);
    return out;
  };
  const expected = await pages(first);
  t.match(expected[0], /"total":70005\}$/);
  t.same(await pages(second), expected, 'the same answers while the JSON is read in the background');
  await second.stores.eventLog.settled();
  t.same(await pages(second), expected, 'and once it is read');
});
