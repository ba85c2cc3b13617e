/**
 * The official UI's two heaviest page loads at a configuration size, Vane beside the reference:
 * `npm run bench:ui-pages -- --flags 5000 --reference http://127.0.0.1:4343`.
 *
 * Vane starts on a fresh embedded database and gets the bench configuration (bench/seed.ts) of
 * `--flags` flags through its API. The reference, when given, must already hold the same
 * configuration (bench:scale's `--with-reference` loads it; its admin token is
 * `*:*.peer-admin-token`), started with SEARCH_FEATURES_RATE_LIMIT_PER_MINUTE raised (Unleash's
 * default, 15 a minute, answers nearly every request 429). Each server then answers the flags overview's first page (the feature
 * search as the UI asks for it, four filters in turn) and a project's overview, 8 connections for
 * BENCH_SECONDS (10), one server at a time.
 */
import { commandLine } from '../tools/cli.js';
import { cannon, figure, rotating, type Figure } from './cannon.js';
import { startVane } from './servers.js';
import { seed, type Target } from './seed.js';

const USAGE = `
Usage: node dist/bench/ui-pages.js [--flags 5000] [--reference URL] [--reference-token TOKEN]
       (npm run bench:ui-pages -- …)

Feature search and a project's overview (req/s, p50/p99 ms) on Vane with --flags flags, and on an
already loaded reference with --reference.
`;
const { values: args } = commandLine(USAGE, {
  options: {
    flags: { type: 'string', default: '5000' },
    reference: { type: 'string' },
    'reference-token': { type: 'string', default: '*:*.peer-admin-token' },
  },
});
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

/** The flags overview's first page as the UI asks for it, sorted by creation, favorites first. */
const SEARCHES = ['', '&query=seed', '&type=IS%3Arelease', '&state=IS%3Aactive']
  .map((filter) => `/api/admin/search/features?offset=0&limit=25&favoritesFirst=true&sortBy=createdAt&sortOrder=desc${filter}`);

async function measure(target: Target, pid?: number): Promise<Record<string, Figure>> {
  const headers = { authorization: target.token };
  const search = await cannon({
    url: `${target.url}/api/admin/search/features`, connections: 8, duration: SECONDS,
    ...rotating(SEARCHES.map((path) => ({ method: 'GET' as const, path, headers }))),
  }, pid);
  const overview = await cannon({ url: `${target.url}/api/admin/projects/default/overview`, connections: 8, duration: SECONDS, headers }, pid);
  return { 'feature search': figure(search), 'project overview': figure(overview) };
}

async function main(): Promise<void> {
  const flags = Number(args.flags);
  const rows: Array<[string, Record<string, Figure>]> = [];
  const vane = await startVane({ name: 'ui-pages' });
  try {
    const started = Date.now();
    await seed(vane.target, undefined, { flags, concurrency: 4 });
    console.log(`vane: ${flags} flags loaded in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    rows.push(['Vane', await measure(vane.target, vane.child.pid)]);
  } finally {
    await vane.cleanup();
  }
  if (args.reference) rows.push(['Unleash 8.2', await measure({ name: 'reference', url: args.reference, token: args['reference-token'] })]);
  console.log(`\n${flags} flags, 8 connections, ${SECONDS} s each`);
  console.log('| server | feature search req/s (p50/p99 ms) | project overview req/s (p50/p99 ms) |');
  console.log('|---|---:|---:|');
  for (const [name, result] of rows) {
    const cell = (f: Figure) => `${f.rps.toFixed(0)} (${f.p50}/${f.p99})${f.errors ? `, ${f.errors} errors` : ''}`;
    console.log(`| ${name} | ${cell(result['feature search']!)} | ${cell(result['project overview']!)} |`);
  }
  if (rows.length === 2) {
    const [v, r] = [rows[0]![1], rows[1]![1]];
    for (const page of ['feature search', 'project overview']) console.log(`${page}: Vane ${(v[page]!.rps / r[page]!.rps).toFixed(1)}× the reference's req/s`);
  }
}

await main();
