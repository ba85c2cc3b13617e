/**
 * The event log's index alone, without a database: `node dist/bench/event-index.js [--events N]`
 * (default 10 000 000). What a start costs in the process once the chunks are read (inflate and
 * decode every chunk, add its columns, build the order and lists), the index's memory, the search
 * per filter of the seed (each request a different value, as bench/events.ts rotates them) and the
 * cost of one more event. Run it at 1 M and 10 M and compare: on a shared machine the scaling says
 * more than the figures.
 */
import { EventLogIndex, type IndexedEvent, type SearchCriteria } from '../src/db/event-log/search-index.js';
import { BLOCK_SIZE } from '../src/db/event-log/blocks.js';
import { CHUNK_BLOCKS, decodeChunk, encodeChunk, type ChunkDocument } from '../src/db/event-log/chunks.js';
import { commandLine } from '../tools/cli.js';
import { seededRandom } from './random.js';

const { values: args } = commandLine(`
Usage: node --expose-gc dist/bench/event-index.js [--events N]

The event log's index alone, without a database: a start from the chunks, the index's memory,
each seed filter's search (alone and with a month) and the cost of one more event.

  --events N   events in the log (default: EVENTS from the environment, else 10000000)
`, { options: { events: { type: 'string' } } });
const EVENTS = Number(args.events ?? process.env.EVENTS ?? 10_000_000);
const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);
const START = NOW - 365 * DAY;

const random = seededRandom(7);
const TYPES = ['feature-strategy-update', 'feature-environment-enabled', 'feature-environment-disabled', 'feature-strategy-add', 'feature-created', 'feature-strategy-remove', 'feature-updated', 'segment-updated', 'api-token-created', 'user-created'];
const TYPE_WEIGHTS = [22, 12, 10, 9, 6, 4, 4, 2, 1, 1];
const PROJECTS = ['default', ...Array.from({ length: 24 }, (_, i) => `team-${String.fromCharCode(97 + i)}`)];
const FLAGS = Array.from({ length: 3000 }, (_, i) => `flag-${i}`);
const ENVIRONMENTS = ['development', 'production', 'staging'];

function pickType(): string {
  let r = random() * 71;
  for (let k = 0; k < TYPES.length; k++) if ((r -= TYPE_WEIGHTS[k]!) <= 0) return TYPES[k]!;
  return TYPES[0]!;
}

function event(id: number): IndexedEvent {
  const type = pickType();
  const aboutFlag = type.startsWith('feature-');
  const flag = Math.floor(random() * FLAGS.length);
  return {
    id, at: Math.floor(START + (id - 1) * ((NOW - START) / EVENTS)) - (id % 50 === 0 ? 900 : 0), type,
    project: aboutFlag ? PROJECTS[flag % PROJECTS.length]! : null, featureName: aboutFlag ? FLAGS[flag]! : null,
    environment: /strategy|environment/.test(type) ? ENVIRONMENTS[id % 3]! : null,
    createdByUserId: random() < 0.15 ? -42 : 1 + Math.floor(random() * 60), groupHash: aboutFlag ? 1 + Math.floor(random() * 0xfffffffe) : 0,
  };
}

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function main(): void {
  // The chunks as a start reads them (encoded once here from an index built event by event).
  let started = performance.now();
  const source = new EventLogIndex();
  source.beginBulk();
  for (let id = 1; id <= EVENTS; id++) source.add(event(id));
  source.endBulk();
  const chunkIds = CHUNK_BLOCKS * BLOCK_SIZE;
  const chunks: ChunkDocument[] = [];
  for (let first = 1; first + chunkIds - 1 <= EVENTS; first += chunkIds) chunks.push(encodeChunk((first - 1) / BLOCK_SIZE, CHUNK_BLOCKS, source.columnsOf(first, chunkIds)));
  const chunkBytes = chunks.reduce((sum, c) => sum + c.columns.length(), 0);
  console.log(`generated ${EVENTS.toLocaleString('en')} events and ${chunks.length} chunks (${(chunkBytes / 2 ** 20).toFixed(0)} MiB deflated, ${(chunkBytes / EVENTS).toFixed(1)} bytes per event) in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  global.gc?.();
  const before = process.memoryUsage();
  started = performance.now();
  const cpu = process.cpuUsage();
  const index = new EventLogIndex();
  index.beginBulk();
  for (const chunk of chunks) index.addColumns(decodeChunk(chunk));
  const covered = chunks.length * chunkIds;
  for (let id = covered + 1; id <= EVENTS; id++) index.add(event(id));
  index.endBulk();
  const loadMs = performance.now() - started;
  const loadCpu = process.cpuUsage(cpu);
  global.gc?.();
  const after = process.memoryUsage();
  console.log(`start, in the process: ${chunks.length} chunks decoded and indexed, ${(EVENTS - covered).toLocaleString('en')} events after them, order and lists built: ${(loadMs / 1000).toFixed(2)} s (CPU ${((loadCpu.user + loadCpu.system) / 1e6).toFixed(2)} s)`);
  console.log(`index: ${(index.bytes / 2 ** 20).toFixed(0)} MiB (${(index.bytes / EVENTS).toFixed(1)} bytes per event); RSS ${(after.rss / 2 ** 20).toFixed(0)} MiB (+${((after.rss - before.rss) / 2 ** 20).toFixed(0)}), heap used ${(after.heapUsed / 2 ** 20).toFixed(0)} MiB`);

  const months = Array.from({ length: 11 }, (_, i) => START + (i + 1) * 31 * DAY);
  const rotate = <T>(items: readonly T[], i: number): T => items[i % items.length]!;
  const month = (i: number): SearchCriteria => ({ from: rotate(months, i), before: rotate(months, i) + 28 * DAY });
  const scenarios: Array<[string, (i: number) => SearchCriteria, number]> = [
    ['no filter', () => ({}), 0],
    ['type', (i) => ({ types: [rotate(TYPES, i)] }), 0],
    ['type IS_ANY_OF', (i) => ({ types: [rotate(TYPES, i), rotate(TYPES, i + 3)] }), 0],
    ['feature', (i) => ({ features: [rotate(FLAGS, i * 7)] }), 0],
    ['project', (i) => ({ projects: [rotate(PROJECTS, i)] }), 0],
    ['createdBy', (i) => ({ userIds: [i % 8 === 0 ? -42 : 1 + (i % 60)] }), 0],
    ['environment', (i) => ({ environments: [rotate(ENVIRONMENTS, i)] }), 0],
    ['type + project + createdBy', (i) => ({ types: [rotate(TYPES, i)], projects: [rotate(PROJECTS, i)], userIds: [1 + (i % 60)] }), 0],
    ['month only', month, 0],
    ['type + month', (i) => ({ types: [rotate(TYPES, i)], ...month(i) }), 0],
    ['type IS_ANY_OF + month', (i) => ({ types: [rotate(TYPES, i), rotate(TYPES, i + 3)], ...month(i) }), 0],
    ['feature + month', (i) => ({ features: [rotate(FLAGS, i * 7)], ...month(i) }), 0],
    ['project + month', (i) => ({ projects: [rotate(PROJECTS, i)], ...month(i) }), 0],
    ['createdBy + month', (i) => ({ userIds: [1 + (i % 60)], ...month(i) }), 0],
    ['environment + month', (i) => ({ environments: [rotate(ENVIRONMENTS, i)], ...month(i) }), 0],
    ['type + project + createdBy + month', (i) => ({ types: [rotate(TYPES, i)], projects: [rotate(PROJECTS, i)], userIds: [1 + (i % 60)], ...month(i) }), 0],
    ['offset ≤ 10 000', () => ({}), 10_000],
  ];
  // CPU time beside wall time: on a shared machine a request preempted mid-search shows in the wall
  // time's tail, not in its CPU time (process.cpuUsage() is precise to the microsecond).
  console.log('\n| search (index only, 50 per page) | p50 ms | p99 ms | max ms | mean ms | CPU p99 ms |\n|---|---:|---:|---:|---:|---:|');
  for (const [name, criteria, offsets] of scenarios) {
    const times: number[] = [];
    const cpuTimes: number[] = [];
    for (let i = 0; i < 400; i++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      index.search(criteria(i), offsets ? (i * 997) % offsets : 0, 50);
      times.push(performance.now() - t0);
      const c1 = process.cpuUsage(c0);
      cpuTimes.push((c1.user + c1.system) / 1000);
    }
    times.sort((a, b) => a - b);
    cpuTimes.sort((a, b) => a - b);
    const mean = times.reduce((sum, t) => sum + t, 0) / times.length;
    console.log(`| ${name} | ${percentile(times, 0.5).toFixed(2)} | ${percentile(times, 0.99).toFixed(2)} | ${times.at(-1)!.toFixed(2)} | ${mean.toFixed(2)} | ${percentile(cpuTimes, 0.99).toFixed(2)} |`);
  }

  const times: number[] = [];
  for (let id = EVENTS + 1; id <= EVENTS + 20_000; id++) {
    const e = event(id);
    const t0 = performance.now();
    index.add(e);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  console.log(`\nadding 20 000 events after the load: p50 ${(percentile(times, 0.5) * 1000).toFixed(1)} µs, p99 ${(percentile(times, 0.99) * 1000).toFixed(1)} µs, max ${times.at(-1)!.toFixed(1)} ms`);
}

main();
