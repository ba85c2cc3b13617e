/**
 * Differential tester: `npm run difftest -- --seed N --contexts 300 --vane URL --peer URL`, or
 * without `--peer` (or with `--vane-only`) the Vane-only surfaces of vane-run.ts on Vane alone.
 *
 * 1. Builds configuration N (config.ts) on both servers with the identical request sequence and
 *    compares every status.
 * 2. Asks both playground endpoints (`POST /api/admin/playground` and `/advanced`) the same random
 *    requests (contexts.ts) and compares the bodies after normalising server-generated ids.
 * 3. Prints the differing responses grouped by kind (the generalised first differing paths) and
 *    writes every difference with its request to `--out` (default /tmp/difftest-seed-N.json).
 *
 * 4. Compares the SDK surfaces (sdk-run.ts) and the Vane-only ones (vane-run.ts: batch, change-request
 *    impact, OFREP, each against Vane's own per-context answers).
 * 5. With `--peer`, last (it changes the configuration): the admin surface (admin-run.ts), the same
 *    random sequence of admin calls sent to both, statuses, bodies and recorded events compared.
 *
 * Both servers should be fresh: strategy types are created once per server, and segment ids must
 * start equal. The open-source reference cannot create projects through its API; with `--peer-db`
 * the tester inserts them into its database (the rows `POST /api/admin/projects` would make).
 * Exit code 1 when anything differs.
 */
import { writeFileSync } from 'node:fs';
import { commandLine } from '../cli.js';
import { applyConfiguration, generateConfiguration, type AdminRequest } from './config.js';
import { peerProjectCreator } from './peer-projects.js';
import { generateCases } from './contexts.js';
import { differences, kindOf, normaliseBody, type Difference } from './compare.js';
import { compareSdkSurfaces, parseSurfaces, SURFACES } from './sdk-run.js';
import { send, type SurfaceFinding } from './surfaces.js';
import { compareVaneSurfaces, parseVaneSurfaces, VANE_SURFACES } from './vane-run.js';
import { compareAdminSequence, printAdminResult } from './admin-run.js';

const { values: args } = commandLine(`
Usage: node dist/tools/difftest/run.js --seed N [--contexts 300] [--vane URL] [--peer URL --peer-db DB] [options]
       (npm run difftest -- …)

Builds random configuration N on Vane and, with --peer, on the Unleash reference (both fresh),
compares every status, then asks both the same random questions on every surface and compares the
answers. Without --peer (or with --vane-only) only the Vane-only surfaces run, on Vane alone.
Exit code 1 when anything differs.

  --seed N                 the configuration's seed (default 1)
  --flags N                flags in the configuration (default 100)
  --contexts N             random contexts per surface (default 300)
  --vane URL               Vane (default http://127.0.0.1:4242)
  --vane-token TOKEN       its admin token (default *:*.peer-admin-token)
  --peer URL               the Unleash reference
  --peer-token TOKEN       its admin token (default *:*.peer-admin-token)
  --peer-db DB             the reference's PostgreSQL database, to insert its projects
  --vane-only              the Vane-only surfaces alone, even with --peer
  --surfaces LIST          comma-separated: playground, ${SURFACES.join(', ')},
                           ${VANE_SURFACES.join(', ')}, admin (default: all that apply);
                           admin (with --peer; run last, it changes the configuration) sends
                           the same random admin calls to both (admin-run.ts); alone, it
                           skips building the configuration
  --admin-calls N          calls in the admin sequence (default 300)
  --ofrep-single-flags N   flags asked one by one per ofrep-single question (default 20)
  --skip-apply             reuse a configuration already applied
  --out FILE               where the differences go (default /tmp/difftest-seed-N.json)
`, {
  options: {
    seed: { type: 'string', default: '1' },
    flags: { type: 'string', default: '100' },
    contexts: { type: 'string', default: '300' },
    vane: { type: 'string', default: 'http://127.0.0.1:4242' },
    /** The Unleash reference; without it only the Vane-only surfaces run. */
    peer: { type: 'string' },
    'vane-only': { type: 'boolean', default: false },
    'vane-token': { type: 'string', default: '*:*.peer-admin-token' },
    'peer-token': { type: 'string', default: '*:*.peer-admin-token' },
    'peer-db': { type: 'string' },
    'skip-apply': { type: 'boolean', default: false },
    /** Comma-separated: playground, the SDK surfaces of sdk-run.ts, the Vane-only surfaces of vane-run.ts (default: all there are). */
    surfaces: { type: 'string' },
    /** Flags asked one by one per question on `ofrep-single`. */
    'ofrep-single-flags': { type: 'string', default: '20' },
    /** Calls in the admin sequence (admin-run.ts). */
    'admin-calls': { type: 'string', default: '300' },
    out: { type: 'string' },
  },
});

const seed = Number(args.seed);
const vaneOnly = args['vane-only'] || args.peer === undefined;
const peerBase = args.peer ?? '';
const out = args.out ?? `/tmp/difftest-seed-${seed}.json`;

/** Inserts a project into the reference's PostgreSQL (as root through `runuser -u postgres`). */

async function post(base: string, token: string, path: string, body: unknown): Promise<{ status: number; json: unknown; text: string }> {
  const { status, text } = await send(base, token, 'POST', path, body);
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    // compared as text
  }
  return { status, json, text };
}

interface Finding {
  case: number;
  endpoint: string;
  request: unknown;
  status: [number, number];
  differences: Difference[];
}

async function main(): Promise<void> {
  const requests: AdminRequest[] = generateConfiguration(seed, { flags: Number(args.flags) });
  const projects = [
    'default',
    ...requests.filter((r) => r.path === '/api/admin/projects').map((r) => (r.body as { id: string }).id),
  ];
  let statusDifferences = 0;
  const all = vaneOnly ? [...VANE_SURFACES] : ['playground', ...SURFACES, ...VANE_SURFACES, 'admin'];
  const wanted = args.surfaces === undefined ? all : args.surfaces.split(',').map((s) => s.trim()).filter(Boolean);
  for (const surface of wanted) {
    if (!all.includes(surface)) throw new Error(`surface ${surface} ${vaneOnly ? 'needs the reference (--peer)' : 'is unknown'}; known: ${all.join(', ')}`);
  }
  // The admin sequence builds what it reads; alone, it needs no configuration.
  if (!args['skip-apply'] && wanted.some((surface) => surface !== 'admin')) {
    const started = Date.now();
    const bodies: { vane: string[]; peer: string[] } = { vane: [], peer: [] };
    const vane = await applyConfiguration(args.vane, args['vane-token'], requests, {
      onResponse: (i, _r, _s, body) => (bodies.vane[i] = body),
    });
    // Without the reference, a server error is the only status that is certainly wrong.
    const peer = vaneOnly
      ? vane.map((status) => (status >= 500 ? 0 : status))
      : await applyConfiguration(peerBase, args['peer-token'], requests, {
          onResponse: (i, _r, _s, body) => (bodies.peer[i] = body),
          ...(args['peer-db'] ? { createProject: peerProjectCreator(args['peer-db']) } : {}),
        });
    requests.forEach((request, i) => {
      if (vane[i] === peer[i]) return;
      statusDifferences++;
      console.log(`status differs at request ${i}: ${request.method} ${request.path} ${JSON.stringify(request.body ?? null).slice(0, 300)}`);
      console.log(`  vane ${vane[i]} ${bodies.vane[i]!.slice(0, 300)}`);
      console.log(`  peer ${peer[i]} ${bodies.peer[i]?.slice(0, 300) ?? '(not asked)'}`);
    });
    console.log(`seed ${seed}: ${requests.length} admin requests, ${statusDifferences} ${vaneOnly ? 'server errors' : 'status differences'} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }

  const playground = wanted.includes('playground') ? await comparePlayground(requests, projects) : { compared: 0, findings: [] };
  const sdkSurfaces = parseSurfaces(wanted.filter((s) => (SURFACES as readonly string[]).includes(s)).join(','));
  const flags = requests.filter((r) => r.method === 'POST' && /^\/api\/admin\/projects\/[^/]+\/features$/.test(r.path)).map((r) => (r.body as { name: string }).name);
  const surfaceFindings: SurfaceFinding[] = [];
  if (sdkSurfaces.length > 0) {
    const started = Date.now();
    const { tally, skipped } = await compareSdkSurfaces({
      seed, contexts: Number(args.contexts), flags, surfaces: sdkSurfaces,
      base: { vane: args.vane, peer: peerBase }, adminToken: { vane: args['vane-token'], peer: args['peer-token'] },
    });
    for (const line of skipped) console.log(`  skipped: ${line}`);
    console.log(`seed ${seed}: SDK surfaces, ${args.contexts} contexts × 2 environments, ${flags.length} flags (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    tally.print();
    surfaceFindings.push(...tally.findings);
  }
  const vaneSurfaces = parseVaneSurfaces(wanted);
  if (vaneSurfaces.length > 0) {
    const started = Date.now();
    const tally = await compareVaneSurfaces({
      seed, contexts: Number(args.contexts), base: args.vane, adminToken: args['vane-token'], configuration: requests,
      surfaces: vaneSurfaces, singleFlags: Number(args['ofrep-single-flags']),
    });
    console.log(`seed ${seed}: Vane-only surfaces against Vane's own answers, ${args.contexts} contexts (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    tally.print();
    surfaceFindings.push(...tally.findings);
  }
  // Last: the admin sequence changes the configuration the other surfaces read.
  const admin = wanted.includes('admin')
    ? await compareAdminSequence({
        seed, calls: Number(args['admin-calls']),
        base: { vane: args.vane, peer: peerBase }, adminToken: { vane: args['vane-token'], peer: args['peer-token'] },
      })
    : undefined;
  if (admin) printAdminResult(seed, admin);
  const adminFindings = admin?.findings ?? [];
  const unexplained = admin?.unexplained.length ?? 0;
  const report = {
    seed, compared: playground.compared, statusDifferences, findings: playground.findings, surfaceFindings, adminFindings, adminTrace: admin?.trace ?? [],
  };
  writeFileSync(out, JSON.stringify(report, null, 1));
  if (playground.findings.length > 0 || surfaceFindings.length > 0 || adminFindings.length > 0) console.log(`details: ${out}`);
  process.exitCode = playground.findings.length > 0 || surfaceFindings.length > 0 || statusDifferences > 0 || unexplained > 0 ? 1 : 0;
}

/** Both playground endpoints asked the same random requests (contexts.ts `generateCases`). */
async function comparePlayground(requests: AdminRequest[], projects: string[]): Promise<{ compared: number; findings: Finding[] }> {
  const cases = generateCases(seed, Number(args.contexts), projects);
  const findings: Finding[] = [];
  const kinds = new Map<string, { count: number; example: Finding }>();
  let compared = 0;
  for (const [index, playgroundCase] of cases.entries()) {
    for (const [endpoint, path, body] of [
      ['deprecated', '/api/admin/playground', playgroundCase.deprecated],
      ['advanced', '/api/admin/playground/advanced', playgroundCase.advanced],
    ] as const) {
      const [vane, peer] = await Promise.all([
        post(args.vane, args['vane-token'], path, body),
        post(peerBase, args['peer-token'], path, body),
      ]);
      compared++;
      const found = differences(normaliseBody(peer.json), normaliseBody(vane.json), 8);
      if (vane.status !== peer.status) found.unshift({ path: '<status>', what: 'value', expected: peer.status, actual: vane.status });
      if (found.length === 0) continue;
      const finding: Finding = { case: index, endpoint, request: body, status: [peer.status, vane.status], differences: found };
      findings.push(finding);
      // A response counts once per kind, under each kind it shows.
      for (const kind of new Set(found.map((difference) => kindOf(endpoint, difference)))) {
        const entry = kinds.get(kind);
        if (entry) entry.count++;
        else kinds.set(kind, { count: 1, example: finding });
      }
    }
  }
  console.log(`seed ${seed}: ${compared} playground responses compared (${cases.length} contexts × 2 endpoints), ${findings.length} differ`);
  for (const [kind, { count, example }] of [...kinds].sort((a, b) => b[1].count - a[1].count)) {
    const first = example.differences.find((difference) => kindOf(example.endpoint, difference) === kind)!;
    console.log(`  ${String(count).padStart(5)}  ${kind}`);
    console.log(`         e.g. case ${example.case} ${first.path}: peer ${JSON.stringify(first.expected)?.slice(0, 200)} vane ${JSON.stringify(first.actual)?.slice(0, 200)}`);
  }
  return { compared, findings };
}

await main();
