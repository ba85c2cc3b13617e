/**
 * Event search benchmark: `node dist/bench/events.js` (after `npx tsc -p tsconfig.json`).
 *
 * 1. Seeds EVENTS (default 1,000,000) events straight into a throwaway database, a realistic mix
 *    over the past year: 30 event types weighted like a busy instance, 25 projects, 3,000 flags,
 *    60 users, transactional groups for flag operations. By default as sealed blocks, as Vane
 *    leaves its log; SEED=events as `events` documents only, as an older Vane left it, so the
 *    first start backfills the blocks (timed).
 * 2. Starts Vane in-process on that database (`app.listen` on a free loopback port), waits for the
 *    log mirror's backfill, closes it and starts a second instance (timed: the normal start).
 * 3. Measures GET /api/admin/search/events with autocannon, each filter alone and combined with a
 *    one-month date range, every request with a different value (rotating through types, flags,
 *    projects, users, months, offsets), then `type=IS:feature-strategy-add&limit=50` at 8
 *    connections on a small log (SMALL_EVENTS, default 10,000), and prints a Markdown table.
 *
 * Settings (the command line and the environment): `node dist/bench/events.js --help`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { MongoClient } from 'mongodb';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { startEmbeddedDatabase, type EmbeddedServer } from '../src/db/embedded.js';
import { tailKey, type TailEntry } from '../src/db/event-log/append.js';
import { BLOCK_SIZE, encodeBlock, type BlockDocument, type BlockEntry } from '../src/db/event-log/blocks.js';
import { searchTextOf, type EventDocument } from '../src/db/event-log/stored.js';
import { commandLine } from '../tools/cli.js';
import { seededRandom } from './random.js';

const { values: args } = commandLine(`
Usage: node dist/bench/events.js [--events N]
       (node --max-old-space-size=8192 dist/bench/events.js --events 10000000 for ten million)

Event search on a large log: seeds it, starts Vane in-process on it, measures
GET /api/admin/search/events per filter (alone and with a month), appends, and a small log.

  --events N   events in the big log (default: EVENTS, else 1000000)

Environment: EVENTS, SMALL_EVENTS (10000), DURATION (seconds per scenario, 5), CONNECTIONS (4),
BATCH (insertMany size, 1000), APPENDS (300), SEED (blocks: as Vane leaves the log; events: as
an older Vane left it, backfilled on the first start), MONGODB_URL (default: the embedded
database), REUSE=<database> (a log kept by an earlier run, with MONGODB_URL), KEEP=1 (keep the
databases), ONLY=small (the small log only) or ONLY=seed (seed the big log and keep it),
SCENARIOS=<regex> (the scenarios whose names match), VANE_MONITOR_COMMANDS.
`, { options: { events: { type: 'string' } } });
const env = process.env;
const EVENTS = Number(args.events ?? env.EVENTS ?? 1_000_000);
const SEED = env.SEED ?? 'blocks';
const SMALL_EVENTS = Number(env.SMALL_EVENTS ?? 10_000);
const DURATION = Number(env.DURATION ?? 5);
const CONNECTIONS = Number(env.CONNECTIONS ?? 4);
const BATCH = Number(env.BATCH ?? 1000);
const APPENDS = Number(env.APPENDS ?? 300);
const ADMIN_TOKEN = '*:*.bench-admin-token';
const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);
const START = NOW - 365 * DAY;

// ---------------------------------------------------------------------------------------------
// Seeded data

const random = seededRandom(7);
const int = (min: number, max: number): number => min + Math.floor(random() * (max - min + 1));
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** Weighted like a busy instance: strategy and environment changes dominate. */
const TYPES: Array<[string, number]> = [
  ['feature-strategy-update', 22], ['feature-environment-enabled', 12], ['feature-environment-disabled', 10],
  ['feature-strategy-add', 9], ['feature-created', 6], ['feature-strategy-remove', 4], ['feature-updated', 4],
  ['feature-environment-variants-updated', 4], ['feature-archived', 2], ['feature-revived', 1],
  ['feature-tagged', 3], ['feature-untagged', 1], ['feature-dependency-added', 1], ['feature-dependency-removed', 1],
  ['feature-stale-on', 1], ['feature-stale-off', 1], ['segment-created', 1], ['segment-updated', 2], ['segment-deleted', 0.3],
  ['api-token-created', 1], ['api-token-deleted', 0.5], ['tag-created', 1], ['user-created', 1], ['user-updated', 1],
  ['project-created', 0.3], ['environment-created', 0.1], ['strategy-created', 0.1], ['change-request-created', 2],
  ['change-request-applied', 1.5], ['public-signup-token-created', 0.2],
];
const TYPE_TOTAL = TYPES.reduce((s, [, w]) => s + w, 0);
const TRANSACTIONAL = new Set([
  'feature-created', 'feature-strategy-add', 'feature-strategy-update', 'feature-strategy-remove',
  'feature-environment-enabled', 'feature-environment-disabled', 'feature-archived', 'feature-revived',
  'feature-dependency-added', 'feature-dependency-removed',
]);
const PROJECTS = ['default', ...Array.from({ length: 24 }, (_, i) => `team-${String.fromCharCode(97 + i)}`)];
const FLAGS = Array.from({ length: 3000 }, (_, i) => ({ name: `flag-${i}.${pick(['checkout', 'search', 'billing', 'onboarding', 'ui'])}`, project: PROJECTS[i % PROJECTS.length]! }));
const USERS = Array.from({ length: 60 }, (_, i) => ({ id: i + 1, name: `user${i + 1}@example.com` }));
const ENVIRONMENTS = ['development', 'production', 'staging'];

function pickType(): string {
  let r = random() * TYPE_TOTAL;
  for (const [type, weight] of TYPES) {
    r -= weight;
    if (r <= 0) return type;
  }
  return TYPES[0]![0];
}

function strategy(flag: string): Record<string, unknown> {
  return {
    id: randomUUID(), name: 'flexibleRollout', title: random() < 0.3 ? `rollout ${int(1, 9)}` : null, disabled: false,
    constraints: random() < 0.5 ? [{ values: [String(int(1, 999))], inverted: false, operator: 'IN', contextName: 'userId', caseInsensitive: false }] : [],
    parameters: { groupId: flag, rollout: String(int(0, 100)), stickiness: 'default' }, variants: [], sortOrder: 0,
    segments: random() < 0.2 ? [int(1, 40)] : [],
  };
}

function makeEvent(id: number, createdAt: Date): EventDocument {
  const type = pickType();
  const user = random() < 0.15 ? { id: -42, name: 'admin' } : pick(USERS);
  const aboutFlag = type.startsWith('feature-') || type.startsWith('change-');
  const flag = pick(FLAGS);
  const environment = /strategy|environment|change-request/.test(type) ? pick(ENVIRONMENTS) : null;
  let data: unknown = null;
  let preData: unknown = null;
  if (type === 'feature-created') data = { name: flag.name, description: 'A flag', type: 'release', project: flag.project, stale: false, createdAt: createdAt.toISOString(), impressionData: false, archived: false };
  else if (type === 'feature-strategy-add') data = strategy(flag.name);
  else if (type === 'feature-strategy-update') { preData = strategy(flag.name); data = { ...(preData as object), parameters: { groupId: flag.name, rollout: String(int(0, 100)), stickiness: 'default' } }; } else if (type === 'feature-strategy-remove') preData = strategy(flag.name);
  else if (type === 'feature-environment-variants-updated') { data = { variants: [{ name: 'a', weight: 1000, weightType: 'variable', stickiness: 'default' }] }; preData = { variants: [] }; } else if (type.startsWith('segment-')) data = { id: int(1, 40), name: `segment-${int(1, 40)}`, description: null, constraints: [], createdBy: user.name, createdAt: createdAt.toISOString() };
  else if (type.startsWith('change-')) data = { changeRequestId: int(1, 5000) };
  else if (type === 'tag-created' || type === 'feature-tagged') data = { type: 'simple', value: `tag-${int(1, 200)}` };
  else if (type.startsWith('user-')) data = { id: int(1, 500), name: `User ${int(1, 500)}`, email: `u${int(1, 500)}@example.com` };
  else if (type.startsWith('api-token')) data = { tokenName: `token-${int(1, 100)}`, type: 'client', environment: 'production', projects: ['*'] };
  const tags = aboutFlag && random() < 0.2 ? [{ value: `tag-${int(1, 200)}`, type: 'simple' }] : [];
  const base = {
    type, createdBy: user.name, createdByUserId: user.id, createdAt, data, preData, tags,
    featureName: aboutFlag ? flag.name : null,
    project: aboutFlag ? flag.project : type.startsWith('api-token') ? '*' : null,
    environment,
    ...(TRANSACTIONAL.has(type) ? { groupType: 'transaction', groupId: randomUUID() } : {}),
  };
  return { _id: randomUUID(), id, ...base, searchText: searchTextOf(base) };
}

/** Group ids seen while seeding (every 97th), for the groupId scenario. */
const groupIds: string[] = [];

/**
 * Seeds a log as an older Vane (or an import) would have left it: documents in `events` and the
 * newest id in `meta`, no blocks — so the first start also measures the one-time backfill.
 */
async function seed(url: string, dbName: string, count: number): Promise<{ seconds: number; sample: EventDocument }> {
  const client = new MongoClient(url);
  await client.connect();
  const events = client.db(dbName).collection<EventDocument>('events');
  const started = Date.now();
  let sample: EventDocument | undefined;
  const step = (NOW - START) / count;
  for (let first = 1; first <= count; first += BATCH) {
    const docs: EventDocument[] = [];
    for (let id = first; id < Math.min(first + BATCH, count + 1); id++) {
      docs.push(makeEvent(id, new Date(Math.floor(START + (id - 1) * step))));
    }
    sample ??= docs.find((d) => d.type === 'feature-strategy-update' && d.groupId);
    for (const d of docs) if (d.groupId && d.id % 97 === 0) groupIds.push(d.groupId);
    await events.insertMany(docs, { ordered: false });
    if (first === 1 || (first - 1) % (BATCH * 20) === 0) {
      process.stderr.write(`  seeded ${first - 1 + docs.length}/${count} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
    }
  }
  await client.db(dbName).collection<{ _id: string; lastId: number }>('meta').updateOne({ _id: 'events' }, { $set: { lastId: count } }, { upsert: true });
  await client.close();
  return { seconds: (Date.now() - started) / 1000, sample: sample! };
}

/**
 * Seeds a log as Vane itself leaves it: sealed blocks of 256 events in `event_blocks` (written in
 * bulk, encoded as the mirror seals them), the last incomplete block's events in `event_tail`, the
 * log marked complete. `events` stays empty: the search never reads it once blocks exist (a real
 * log has a document per event there too, which only appends touch). Encoding overlaps the writes
 * (one batch in flight), so 10 M events take minutes, not the hours of inserting 10 M documents.
 */
async function seedBlocks(url: string, dbName: string, count: number): Promise<{ seconds: number; sample: EventDocument }> {
  const client = new MongoClient(url);
  await client.connect();
  const db = client.db(dbName);
  const blocks = db.collection<BlockDocument>('event_blocks');
  const started = Date.now();
  let sample: EventDocument | undefined;
  const step = (NOW - START) / count;
  const sealed = Math.floor(count / BLOCK_SIZE);
  const BLOCKS_PER_BATCH = 8;
  let inFlight: Promise<unknown> = Promise.resolve();
  const entryOf = (id: number): { doc: EventDocument; entry: BlockEntry } => {
    const doc = makeEvent(id, new Date(Math.floor(START + (id - 1) * step)));
    const { _id, searchText: _text, ...stored } = doc;
    const json = JSON.stringify(stored);
    const event = {
      id, at: doc.createdAt.getTime(), type: doc.type, project: doc.project, featureName: doc.featureName, environment: doc.environment,
      createdByUserId: doc.createdByUserId, groupId: doc.groupId ?? null,
    };
    return { doc, entry: { json, event } };
  };
  for (let first = 0; first < sealed; first += BLOCKS_PER_BATCH) {
    const docs: BlockDocument[] = [];
    for (let block = first; block < Math.min(first + BLOCKS_PER_BATCH, sealed); block++) {
      const entries: BlockEntry[] = [];
      for (let slot = 0; slot < BLOCK_SIZE; slot++) {
        const { doc, entry } = entryOf(block * BLOCK_SIZE + slot + 1);
        if (doc.groupId && doc.id % 97 === 0 && groupIds.length < 10_000) groupIds.push(doc.groupId);
        if (!sample && doc.type === 'feature-strategy-update' && doc.groupId) sample = doc;
        entries.push(entry);
      }
      docs.push(encodeBlock(block, entries));
    }
    await inFlight;
    inFlight = blocks.insertMany(docs, { ordered: false });
    if (first % (BLOCKS_PER_BATCH * 500) === 0) {
      process.stderr.write(`  sealed ${(first * BLOCK_SIZE).toLocaleString('en')}/${count.toLocaleString('en')} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
    }
  }
  await inFlight;
  const tail: TailEntry[] = [];
  for (let id = sealed * BLOCK_SIZE + 1; id <= count; id++) {
    const { doc, entry } = entryOf(id);
    tail.push({ _id: tailKey(id), id, key: doc._id, body: entry.json });
  }
  if (tail.length > 0) await db.collection<TailEntry>('event_tail').insertMany(tail);
  await db.collection<{ _id: string; lastId?: number; complete?: boolean }>('meta').bulkWrite([
    { updateOne: { filter: { _id: 'events' }, update: { $set: { lastId: count } }, upsert: true } },
    { updateOne: { filter: { _id: 'event-log' }, update: { $set: { complete: true } }, upsert: true } },
  ]);
  await client.close();
  return { seconds: (Date.now() - started) / 1000, sample: sample ?? entryOf(1).doc };
}

// ---------------------------------------------------------------------------------------------
// Measurement

interface Row {
  log: string;
  scenario: string;
  connections: number;
  p50: number;
  p975: number;
  p99: number;
  rps: number;
  requests: number;
  non2xx: number;
  total: string;
}

/**
 * One scenario: `pathFor(i)` gives the i-th request's path, so a scenario can rotate through many
 * filter values (every request a different search: nothing is answered from a warm cache of the
 * same query). A slow endpoint (first answer over 500 ms) runs a fixed number of requests instead
 * (3 per connection), since autocannon only counts responses that arrive inside its duration.
 */
async function measure(base: string, log: string, scenario: string, pathFor: (i: number) => string, connections: number): Promise<Row> {
  const started = Date.now();
  const first = await fetch(`${base}${pathFor(0)}`, { headers: { authorization: ADMIN_TOKEN } });
  const body = (await first.json()) as { total?: number; message?: string };
  const slow = Date.now() - started > 500;
  let counter = 1;
  const result = await autocannon({
    url: base,
    headers: { authorization: ADMIN_TOKEN },
    connections,
    requests: [{ method: 'GET', setupRequest: (request: { path: string }) => ({ ...request, path: pathFor(counter++) }) }],
    ...(slow ? { amount: connections * 3 } : { duration: DURATION }),
    timeout: 120,
  } as autocannon.Options);
  const rps = slow ? (result.requests.total / (result.duration || 1)) : result.requests.average;
  const row: Row = {
    log, scenario, connections,
    p50: result.latency.p50, p975: result.latency.p97_5, p99: result.latency.p99,
    rps, requests: result.requests.total, non2xx: result.non2xx + result.errors + result.timeouts,
    total: first.status === 200 ? String(body.total) : `HTTP ${first.status}`,
  };
  process.stderr.write(`  ${scenario}: p50 ${row.p50} ms, p99 ${row.p99} ms, ${row.rps.toFixed(1)} req/s, ${row.non2xx} non-2xx, total ${row.total}\n`);
  return row;
}

/**
 * Starts Vane on the database as the server does (listening at once, loading in the background)
 * and times it until `/ready` answers 200: the configuration and the event log's index loaded.
 */
async function startApp(url: string, dbName: string) {
  const config = loadConfig({
    MONGODB_URL: url, MONGODB_DB: dbName, INIT_ADMIN_API_TOKENS: ADMIN_TOKEN, LOG_LEVEL: 'silent',
    VANE_MONITOR_COMMANDS: process.env.VANE_MONITOR_COMMANDS,
  });
  const started = Date.now();
  const app = await buildApp(config, { logger: false, loadInBackground: true });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const base = `http://127.0.0.1:${port}`;
  for (;;) {
    const ready = await fetch(`${base}/ready`).then((r) => r.status, () => 0);
    if (ready === 200) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return { app, base, started, startSeconds: (Date.now() - started) / 1000 };
}

/** Appends through the API (strategy add and remove: two events each) and times each write. */
async function measureAppends(base: string, count: number): Promise<{ p50: number; p99: number; count: number }> {
  const headers = { authorization: ADMIN_TOKEN, 'content-type': 'application/json' };
  const flag = `bench-append-${randomBytes(3).toString('hex')}`;
  await fetch(`${base}/api/admin/projects/default/features`, { method: 'POST', headers, body: JSON.stringify({ name: flag }) });
  const strategies = `${base}/api/admin/projects/default/features/${flag}/environments/development/strategies`;
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const response = await fetch(strategies, { method: 'POST', headers, body: JSON.stringify({ name: 'default', constraints: [], parameters: {} }) });
    await response.arrayBuffer();
    // The write is acknowledged before its event is flushed: a search waits for it, so this does too.
    await fetch(`${base}/api/admin/search/events?limit=1`, { headers: { authorization: ADMIN_TOKEN } }).then((r) => r.arrayBuffer());
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))]! * 10) / 10;
  return { p50: at(0.5), p99: at(0.99), count };
}

async function main(): Promise<void> {
  let embedded: EmbeddedServer | undefined;
  let dataDir: string | undefined;
  /** Events in the big log (a reused log's as its copy counted them). */
  let bigEvents = EVENTS;
  let url = env.MONGODB_URL;
  if (!url) {
    dataDir = mkdtempSync(join(tmpdir(), 'vane-bench-db-'));
    embedded = await startEmbeddedDatabase(dataDir, { info: () => undefined, warn: (o, m) => process.stderr.write(`${m ?? ''} ${JSON.stringify(o)}\n`) });
    url = embedded.url;
  }
  const suffix = randomBytes(4).toString('hex');
  const bigDb = env.REUSE ?? `vane_bench_events_${suffix}`;
  const smallDb = `vane_bench_events_small_${suffix}`;
  const rows: Row[] = [];
  const notes: string[] = [];
  try {
    if (env.ONLY !== 'small') {
      let sample: Pick<EventDocument, 'groupId'>;
      if (env.REUSE) {
        const client = await new MongoClient(url).connect();
        const found = await client.db(bigDb).collection<EventDocument>('events')
          .find({ groupId: { $type: 'string' } }, { projection: { groupId: 1 } }).limit(100).toArray().catch(() => []);
        await client.close();
        // A log seeded as blocks has no `events` documents: its group ids are read from the copy once loaded.
        groupIds.push(...found.map((d) => d.groupId!));
        sample = found[0] ?? {};
        notes.push(`reused the log in ${bigDb} (seeded by an earlier run)`);
      } else if (SEED === 'events') {
        process.stderr.write(`seeding ${EVENTS} events into ${bigDb}\n`);
        const big = await seed(url, bigDb, EVENTS);
        sample = big.sample;
        notes.push(`seeded ${EVENTS.toLocaleString('en')} events into \`events\` in ${big.seconds.toFixed(0)} s (${Math.round(EVENTS / big.seconds).toLocaleString('en')}/s, batches of ${BATCH})`);
        const first = await startApp(url, bigDb);
        notes.push(`first app start on the seeded log: ready after ${first.startSeconds.toFixed(1)} s (searches use the database until the backfill is done)`);
        const backfillStarted = Date.now();
        await first.app.stores.eventLog.whenReady();
        await first.app.stores.eventLog.settled();
        notes.push(`one-time backfill (read every event from \`events\`, seal blocks of 256 into \`event_blocks\`): ${((Date.now() - backfillStarted) / 1000).toFixed(1)} s more`);
        await first.app.close();
      } else {
        process.stderr.write(`sealing ${EVENTS} events into blocks in ${bigDb}\n`);
        const big = await seedBlocks(url, bigDb, EVENTS);
        sample = big.sample;
        notes.push(`seeded ${EVENTS.toLocaleString('en')} events as sealed blocks in ${big.seconds.toFixed(0)} s (${Math.round(EVENTS / big.seconds).toLocaleString('en')}/s)`);
        if (env.ONLY === 'seed') {
          process.stderr.write(`${notes.at(-1)!}; kept in ${bigDb} (REUSE=${bigDb})\n`);
          return;
        }
        const first = await startApp(url, bigDb);
        await first.app.stores.eventLog.settled();
        notes.push(`first app start on the seeded blocks: ready after ${first.startSeconds.toFixed(1)} s, index chunks written and bodies loaded after ${((Date.now() - first.started) / 1000).toFixed(1)} s`);
        await first.app.close();
      }
      const { app, base, startSeconds, started } = await startApp(url, bigDb);
      const mirror = app.stores.eventLog;
      const readyMemory = process.memoryUsage();
      bigEvents = mirror.stats().events;
      notes.push(`app start (index loaded, \`/ready\` 200): ${startSeconds.toFixed(1)} s, ${mirror.stats().events.toLocaleString('en')} events indexed; RSS then ${(readyMemory.rss / 2 ** 20).toFixed(0)} MiB, heap used ${(readyMemory.heapUsed / 2 ** 20).toFixed(0)} MiB`);
      await mirror.settled();
      for (let id = 97; groupIds.length < 100 && id <= mirror.stats().newestId; id += 97 * 1009) {
        const groupId = (JSON.parse(mirror.json(id) ?? '{}') as { groupId?: string }).groupId;
        if (groupId) groupIds.push(groupId);
      }
      const memory = process.memoryUsage();
      notes.push(`every event body loaded ${((Date.now() - started) / 1000).toFixed(1)} s after the start: RSS ${(memory.rss / 2 ** 20).toFixed(0)} MiB, heap used ${(memory.heapUsed / 2 ** 20).toFixed(0)} MiB, deflated event JSON ${(mirror.stats().bodyBytes / 2 ** 20).toFixed(0)} MiB, index ≈ ${(mirror.stats().indexBytes / 2 ** 20).toFixed(0)} MiB (both apps ran in this process)`);
      const s = sample;
      const rotate = <T>(items: readonly T[], i: number): T => items[i % items.length]!;
      const months = Array.from({ length: 11 }, (_, i) => new Date(START + (i + 1) * 31 * DAY).toISOString().slice(0, 7));
      const range = (i: number) => `from=IS:${rotate(months, i)}-01&to=IS:${rotate(months, i)}-28`;
      const typeNames = TYPES.map(([type]) => type);
      const scenarios: Array<[string, (i: number) => string, boolean]> = [
        ['no filter', () => '', false],
        ['type', (i) => `type=IS:${rotate(typeNames, i)}`, true],
        ['type IS_ANY_OF', (i) => `type=IS_ANY_OF:${rotate(typeNames, i)},${rotate(typeNames, i + 7)}`, true],
        ['feature', (i) => `feature=IS:${encodeURIComponent(rotate(FLAGS, i * 7).name)}`, true],
        ['project', (i) => `project=IS:${rotate(PROJECTS, i)}`, true],
        ['createdBy', (i) => `createdBy=IS:${i % 8 === 0 ? -42 : rotate(USERS, i).id}`, true],
        ['environment', (i) => `environment=IS:${rotate(ENVIRONMENTS, i)}`, true],
        ['type + project + createdBy', (i) => `type=IS:${rotate(typeNames, i)}&project=IS:${rotate(PROJECTS, i)}&createdBy=IS:${rotate(USERS, i).id}`, true],
        ['id', (i) => `id=IS:${1 + ((i * 7919) % EVENTS)}`, false],
        ['groupId', (i) => `groupId=IS:${rotate(groupIds.length ? groupIds : [s.groupId!], i)}`, false],
        ['offset ≤ 10 000', (i) => `offset=${(i * 997) % 10_000}`, false],
        ['limit=1000', (i) => `limit=1000&offset=${(i * 997) % 10_000}`, false],
        ['query (free text, bounded)', (i) => `query=${encodeURIComponent(`rollout ${1 + (i % 9)}`)}`, false],
      ];
      const selected = (name: string) => !env.SCENARIOS || new RegExp(env.SCENARIOS).test(name);
      for (const [name, qs, withMonth] of scenarios) {
        if (selected(name)) rows.push(await measure(base, 'big', name, (i) => `/api/admin/search/events?${qs(i)}`, CONNECTIONS));
        if (withMonth && selected(`${name} + month`)) rows.push(await measure(base, 'big', `${name} + month`, (i) => `/api/admin/search/events?${qs(i)}&${range(i)}`, CONNECTIONS));
      }
      if (selected('month only')) rows.push(await measure(base, 'big', 'month only', (i) => `/api/admin/search/events?${range(i)}`, CONNECTIONS));
      if (selected('append')) {
        const appends = await measureAppends(base, APPENDS);
        notes.push(`append (strategy add through the API, its event flushed and searchable), ${appends.count} sequential: p50 ${appends.p50} ms, p99 ${appends.p99} ms`);
      }
      await app.close();
    }

    process.stderr.write(`seeding ${SMALL_EVENTS} events into ${smallDb}\n`);
    await seed(url, smallDb, SMALL_EVENTS);
    const small = await startApp(url, smallDb);
    await small.app.stores.eventLog.whenReady();
    rows.push(await measure(small.base, 'small', 'type=IS:feature-strategy-add&limit=50', () => '/api/admin/search/events?type=IS:feature-strategy-add&limit=50', 8));
    await small.app.close();
  } finally {
    if (env.KEEP === '1') {
      process.stderr.write(`kept: ${env.ONLY === 'small' ? '' : `${bigDb} `}${smallDb}\n`);
    } else {
      const client = new MongoClient(url);
      await client.connect();
      if (!env.REUSE) await client.db(bigDb).dropDatabase().catch(() => undefined);
      await client.db(smallDb).dropDatabase().catch(() => undefined);
      await client.close();
    }
    await embedded?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }

  const server = embedded ? `embedded ${embedded.kind}` : url.replace(/\/\/[^@]*@/, '//');
  console.log(`\n### Event search (${server}, ${DURATION} s per scenario)\n`);
  for (const note of notes) console.log(`- ${note}`);
  const sizes = env.ONLY === 'small' ? '' : `big log: ${bigEvents.toLocaleString('en')} events; `;
  console.log(`- ${sizes}small log: ${SMALL_EVENTS.toLocaleString('en')} events; latencies in ms\n`);
  console.log('| log | scenario | conns | p50 | p97.5 | p99 | req/s | requests | errors/non-2xx | total |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    console.log(`| ${r.log} | ${r.scenario} | ${r.connections} | ${r.p50} | ${r.p975} | ${r.p99} | ${r.rps.toFixed(1)} | ${r.requests} | ${r.non2xx} | ${r.total} |`);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
